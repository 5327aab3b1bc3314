import PlatformCore

/// Step 1: the sport. Only open sports can be picked; the others show "Coming soon".
struct SportStep: FlowStep {
    let id = StepID.sport
    let kind = StepKind.question
    var edition = Edition.revamp

    static var field: FieldSpec {
        FieldSpec(
            id: FieldID.sport, type: .choice, label: "Sport", options: Sports.options,
            messages: [
                .required: "Pick your sport to get started.",
                .notAnOption: "Pick a sport from the list to get started.",
            ])
    }

    func fields(in context: StepContext) -> [FieldSpec] { [Self.field] }

    func copy(in context: StepContext) -> StepCopy {
        if edition == .classic {
            return StepCopy(
                title: "Let's build your Locker", subtitle: "Choose your sport to get started.",
                helper: "We're launching with lacrosse — more sports coming soon!")
        }
        return StepCopy(
            title: "Hey \(context.displayName) 👋 What sport do you play?",
            subtitle: "Choose your sport to get started.",
            helper: "Choose the sport you'll be tracking stats for.")
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        OnboardingLog.stepCompleted(1, step: id, "sport=\(values[FieldID.sport]?.stringValue ?? "")", in: context)
        return .next
    }
}
