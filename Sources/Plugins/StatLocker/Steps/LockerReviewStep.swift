import PlatformCore

/// Step 11: the seed's read-only summary, one section per part with the step that edits it
/// (`flow.goto`), and "Enter Your Locker", whose submit re-checks every answer before completing.
struct ReviewStep: FlowStep {
    let id = StepID.review
    let kind = StepKind.review
    /// The steps before the review, whose saved answers the submit checks again.
    let earlierSteps: [any FlowStep]
    let rules: SeasonGoalRules

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: "Review your profile, \(context.displayName)",
            subtitle: "Review your info before entering your Locker.",
            helper: "Make sure everything looks right before we finish.",
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
            section("hsTeam", "High School Team", [place(answers.hsTeamName, answers.hsCity, answers.hsState)],
                    edit: StepID.teamInfo),
        ]
        if answers.hasClubTeam {
            sections.append(section(
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
        let validator = FieldValidator()
        var errors: [FieldError] = []
        for step in earlierSteps {
            let saved = context.answers(of: step.id) ?? [:]
            var clean: [String: JSONValue] = [:]
            var failed = Set<String>()
            for spec in step.fields(in: context) where spec.isVisible(given: { saved[$0] ?? context.value(of: $0) }) {
                switch validator.check(saved[spec.id], against: spec) {
                case .valid(let value): clean[spec.id] = value
                case .absent: break
                case .invalid(let error):
                    errors.append(error)
                    failed.insert(spec.id)
                }
            }
            errors += step.validate(clean, in: context).filter { $0.field.map { !failed.contains($0) } ?? true }
        }
        return errors
    }
}
