import PlatformCore

/// One item of the create-team checklist (seed: "5-step process from website visit to Team ID
/// extraction").
struct GuideItem {
    let id: String
    let label: String
    let detail: String
    let link: String?

    static let website = "https://fantasy.afl.com.au"

    static let all = [
        GuideItem(
            id: "visit_website", label: "Visit fantasy.afl.com.au",
            detail: "Open the official AFL Fantasy website in Safari.", link: website),
        GuideItem(
            id: "sign_in", label: "Sign in or register",
            detail: "Log in with your AFL account, or create one for free.", link: nil),
        GuideItem(
            id: "pick_squad", label: "Pick your squad",
            detail: "Choose your players within the salary cap.", link: nil),
        GuideItem(
            id: "save_team", label: "Name and save your team",
            detail: "Give your team a name and save it to enter the competition.", link: nil),
        GuideItem(
            id: "find_team_id", label: "Find your Team ID",
            detail: "Open your team page and note the number that identifies your team. You'll enter it shortly.",
            link: nil),
    ]

    /// Seed: "Requires 4/5 steps completed before continuing".
    static let requiredCount = 4

    var option: FieldOption {
        FieldOption(value: id, label: label, detail: detail, link: link)
    }
}

/// The create-team guide, step 3 of 6 on the create path: a checklist of which at least 4 of 5
/// items must be ticked to continue, or `skip`. Time spent here is read from the server's events
/// (`context.secondsSpent`), so the client measures nothing.
struct CreateTeamGuideStep: FlowStep {
    let id = StepID.createTeamGuide
    let kind = StepKind.checklist

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.completedItems, type: .multiChoice, label: "Steps completed",
                options: GuideItem.all.map(\.option),
                // An empty list or no list at all is the core's `required`; its message names
                // every item like the `count` message of `validate` does.
                messages: [.required: Self.shortfallMessage(ticked: [])],
                // minItems is announced to clients but enforced by `validate`, whose message
                // names the items still to do (the core's minItems message cannot).
                extra: ["minItems": .int(Int64(GuideItem.requiredCount))])
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: "Create Your AFL Fantasy Team",
            subtitle: "Follow these steps on the AFL Fantasy website, then come back with your Team ID.",
            helper: "Tick at least \(GuideItem.requiredCount) of the \(GuideItem.all.count) steps to continue.",
            content: [
                "link": [
                    "url": .string(GuideItem.website), "label": "Open AFL Fantasy",
                    "symbol": "safari", "accessorySymbol": "arrow.up.right",
                ],
                "requiredItems": .int(Int64(GuideItem.requiredCount)),
            ],
            actions: [.continue(), .skip("Skip for Now")])
    }

    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        let ticked = Set(values[FieldID.completedItems]?.arrayValue?.compactMap(\.stringValue) ?? [])
        guard ticked.count < GuideItem.requiredCount else { return [] }
        return [FieldError(field: FieldID.completedItems, code: .count, message: Self.shortfallMessage(ticked: ticked))]
    }

    /// "Complete at least 4 of the 5 steps to continue (you've ticked 2). Still to do: A, B and C."
    static func shortfallMessage(ticked: Set<String>) -> String {
        let missing = GuideItem.all.filter { !ticked.contains($0.id) }.map(\.label)
        let done = ticked.isEmpty ? "you haven't ticked any yet" : "you've ticked \(ticked.count)"
        return "Complete at least \(GuideItem.requiredCount) of the \(GuideItem.all.count) steps to continue "
            + "(\(done)). Still to do: \(Self.list(missing))."
    }

    static func list(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " and " + last
    }
}
