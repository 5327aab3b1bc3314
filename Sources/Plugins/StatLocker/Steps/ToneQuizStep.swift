import PlatformCore

/// Step 9: how the AI Coach sounds.
struct ToneQuizStep: FlowStep {
    let id = StepID.toneQuiz
    let kind = StepKind.question
    var edition = Edition.revamp

    func fields(in context: StepContext) -> [FieldSpec] { [AITones.field] }

    func copy(in context: StepContext) -> StepCopy {
        if edition == .classic {
            return StepCopy(
                title: "How should your AI Coach sound?", subtitle: "This shapes how we give you feedback.",
                helper: "You can change this anytime in Settings.")
        }
        return StepCopy(
            title: "How do you like feedback, \(context.displayName)?",
            subtitle: "This shapes how we give you feedback.",
            helper: "This shapes how AI Coach talks to you.")
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        OnboardingLog.stepCompleted(7, step: id, "tone=\(values[FieldID.aiTone]?.stringValue ?? "")", in: context)
        return .next
    }
}
