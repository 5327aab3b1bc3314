import PlatformCore

/// Step 11: the seed's read-only summary, one section per part with the step that edits it
/// (`flow.goto`), and "Enter Your Locker", whose submit re-checks every answer before completing.
///
/// Not the core's generic ``PlatformCore/ReviewStep``: the seed's sections join fields of
/// several steps into one line ("Midfield | Class of 2026", "Duxbury – Duxbury, MA") and number
/// the goals, which a section per step cannot say. The re-check is the core's.
struct LockerReviewStep: FlowStep {
    let id = StepID.review
    let kind = StepKind.review
    /// The steps before the review, whose saved answers the submit checks again.
    let earlierSteps: [any FlowStep]
    let rules: SeasonGoalRules
    var edition = Edition.revamp

    func copy(in context: StepContext) -> StepCopy {
        let classic = edition == .classic
        return StepCopy(
            title: classic ? "You're all set!" : "Review your profile, \(context.displayName)",
            subtitle: "Review your info before entering your Locker.",
            helper: classic ? nil : "Make sure everything looks right before we finish.",
            content: ["sections": .array(sections(Answers(context)))],
            actions: [.continue("Enter Your Locker"), StepAction("edit", "Edit")])
    }

    func sections(_ answers: Answers) -> [JSONValue] {
        func section(_ id: String, _ title: String, _ lines: [String], edit: String?) -> JSONValue {
            var object: [String: JSONValue] = [
                "id": .string(id), "title": .string(title), "lines": .array(lines.map(JSONValue.string)),
            ]
            if let edit { object["edit"] = .string(edit) }
            return .object(object)
        }
        func place(_ team: String?, _ city: String?, _ state: String?) -> String {
            "\(team ?? "") – \(city ?? ""), \(state ?? "")"
        }
        let classOf = answers.gradYear.map { " | Class of \($0)" } ?? ""
        var sections = [
            section("name", "Name", [answers.fullName], edit: nil),
            section("position", "Position", ["\(answers.position ?? "")\(classOf)"], edit: StepID.position),
            section("level", "Level", [answers.level ?? ""], edit: StepID.profileDetails),
            section(
                "hsTeam", "High School Team", [place(answers.hsTeamName, answers.hsCity, answers.hsState)],
                edit: StepID.teamInfo),
        ]
        if answers.hasClubTeam {
            sections.append(
                section(
                    "clubTeam", "Club Team", [place(answers.clubTeamName, answers.clubCity, answers.clubState)],
                    edit: StepID.teamInfo))
        }
        let goals = rules.titles(answers.seasonGoals).enumerated().map { "\($0.offset + 1). \($0.element)" }
        sections.append(section("seasonGoals", "Season Goals", goals, edit: StepID.seasonGoals))
        sections.append(section("aiTone", "AI Coach Tone", [answers.aiTone ?? ""], edit: StepID.toneQuiz))
        return sections
    }

    /// Every earlier step's saved answers, through that step's own field rules and checks, in the
    /// session as it is now (a goals library or position list that changed since is caught here).
    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        PlatformCore.ReviewStep.recheck(earlierSteps, in: context)
    }
}
