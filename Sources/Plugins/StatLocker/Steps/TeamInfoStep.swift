import PlatformCore

/// Step 6: the high-school team (required) and, behind a toggle, a club team.
struct TeamInfoStep: FlowStep {
    let id = StepID.teamInfo
    let kind = StepKind.question
    var edition = Edition.revamp

    static let clubOnly = FieldCondition.field(FieldID.hasClubTeam, equals: true)

    static func textField(
        _ id: String, label: String, placeholder: String? = nil, clubOnly: Bool = false, required: String, tooLong: String
    ) -> FieldSpec {
        FieldSpec(
            id: id, type: .text, label: label, placeholder: placeholder, minLength: 1, maxLength: 80,
            visibleWhen: clubOnly ? Self.clubOnly : nil, normalization: .trimmed,
            messages: [
                .required: required,
                .invalidType: required,
                .tooLong: tooLong,
            ])
    }

    static func stateField(_ id: String, label: String, clubOnly: Bool = false, required: String) -> FieldSpec {
        FieldSpec(
            id: id, type: .choice, label: label, options: USStates.options,
            visibleWhen: clubOnly ? Self.clubOnly : nil,
            messages: [
                .required: required,
                .notAnOption: "Pick a state from the list, like MA.",
                .invalidType: "Pick a state from the list, like MA.",
            ])
    }

    static let teamNameTooLong = "Keep the team name to 80 characters or fewer."
    static let cityTooLong = "Keep the city to 80 characters or fewer."

    /// Built once: the same fields in every session (a state picker each has fifty options).
    static let fields: [FieldSpec] =
        [
            textField(
                FieldID.hsTeamName, label: "High school team", placeholder: "Duxbury High School",
                required: "Add your high school team's name.", tooLong: teamNameTooLong),
            textField(
                FieldID.hsCity, label: "City", placeholder: "Duxbury", required: "Add your high school's city.",
                tooLong: cityTooLong),
            stateField(FieldID.hsState, label: "State", required: "Pick your high school's state."),
            FieldSpec(
                id: FieldID.hasClubTeam, type: .boolean, label: "I also play for a club team", required: false,
                defaultValue: false,
                messages: [.invalidType: "Turn the club team switch on or off."],
                extra: ["helper": "Club stats will be tracked separately from HS."]),
            textField(
                FieldID.clubTeamName, label: "Club team", clubOnly: true, required: "Add your club team's name.",
                tooLong: teamNameTooLong),
            textField(
                FieldID.clubCity, label: "Club city", clubOnly: true, required: "Add your club team's city.",
                tooLong: cityTooLong),
            stateField(FieldID.clubState, label: "Club state", clubOnly: true, required: "Pick your club team's state."),
        ]

    func fields(in context: StepContext) -> [FieldSpec] { Self.fields }

    func copy(in context: StepContext) -> StepCopy {
        if edition == .classic {
            return StepCopy(title: "Where do you play?", subtitle: "We'll use this for your recruiting profile.")
        }
        return StepCopy(
            title: "Team details, \(context.displayName)",
            subtitle: "We'll use this for your recruiting profile.",
            helper: "Tell us about your high school and club teams.")
    }

    /// A switch left untouched is off: kept as `false`, so the saved answer says so.
    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        var kept = values
        if kept[FieldID.hasClubTeam] == nil { kept[FieldID.hasClubTeam] = false }
        return kept
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        let hasClub = values[FieldID.hasClubTeam]?.boolValue ?? false
        OnboardingLog.stepCompleted(5, step: id, "hs=\(values[FieldID.hsTeamName]?.stringValue ?? ""), hasClub=\(hasClub)", in: context)
        return .next
    }
}
