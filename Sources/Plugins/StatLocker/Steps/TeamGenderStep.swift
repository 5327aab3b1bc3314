import PlatformCore

/// Step 3: boys' or girls' team, which decides the positions and goals offered later.
struct TeamGenderStep: FlowStep {
    let id = StepID.teamGender
    let kind = StepKind.question
    var edition = Edition.revamp

    static var field: FieldSpec {
        FieldSpec(
            id: FieldID.teamGender, type: .choice, label: "Team",
            options: TeamGender.allCases.map { FieldOption(value: $0.rawValue, label: $0.label) },
            messages: [
                .required: "Pick Boys or Girls to continue.",
                .notAnOption: "Pick Boys or Girls to continue.",
            ])
    }

    func fields(in context: StepContext) -> [FieldSpec] { [Self.field] }

    func copy(in context: StepContext) -> StepCopy {
        if edition == .classic {
            return StepCopy(
                title: "Let's build your Locker", subtitle: "Every stat tells your story — start with the basics.",
                helper: "This helps us show the right positions and benchmarks.")
        }
        return StepCopy(
            title: "Got it, \(context.displayName). Which team?",
            subtitle: "Every stat tells your story — start with the basics.",
            helper: "This helps us customize your experience.")
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        OnboardingLog.stepCompleted(2, step: id, "gender=\(values[FieldID.teamGender]?.stringValue ?? "")", in: context)
        return .next
    }
}
