import PlatformCore

/// Step 7: exactly 3 season goals, from the library for the player's gender, position and
/// level, or custom (`{ "title", "targetValue"?, "unit"? }`).
struct SeasonGoalsStep: FlowStep {
    let id = StepID.seasonGoals
    let kind = StepKind.question
    let rules: SeasonGoalRules
    var edition = Edition.revamp

    func fields(in context: StepContext) -> [FieldSpec] {
        [rules.field(offering: Answers(context).offeredGoals(in: rules.library))]
    }

    /// The seed's subtitle and 001's helper are the same line, so the helper is 000's.
    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: edition == .classic ? "Pick your top 3 season goals" : "Pick your top 3 season goals, \(context.displayName)",
            subtitle: "These keep you locked in all season.",
            helper: "You can change these anytime in Settings.")
    }

    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        rules.errors(in: values[FieldID.seasonGoals]?.arrayValue ?? [])
    }

    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        var kept = values
        if let items = values[FieldID.seasonGoals]?.arrayValue {
            kept[FieldID.seasonGoals] = .array(rules.cleaned(items))
        }
        return kept
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        let items = values[FieldID.seasonGoals]?.arrayValue ?? []
        let customCount = items.filter { $0.objectValue != nil }.count
        OnboardingLog.stepCompleted(
            6, step: id, "goals=[\(rules.titles(items).joined(separator: ", "))], customCount=\(customCount)", in: context)
        return .next
    }
}
