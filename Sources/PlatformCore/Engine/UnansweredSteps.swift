import Foundation

extension FlowEngine {
    /// The steps with a required answer that a session has neither answered nor skipped, on the
    /// way the flow goes from its first step to the session's current one with the session's
    /// answers, in flow order (the steps ahead it will be shown anyway).
    ///
    /// A session walked forward answers every step on its way, so this is empty for it. A session
    /// moved onto a newer version (`move`) may not be: a required step added before or at its
    /// position was never shown to it. It must be answered before the session completes: the
    /// submit that would complete goes to the first of them instead, and a review lists them.
    /// Past a step that is not answered, the way on is the one an empty answer takes.
    public func unansweredRequiredSteps(_ state: SessionState, now: Date) -> [String] {
        guard !state.status.isFinal else { return [] }
        let context = self.context(state, now: now)
        var missing: [String] = []
        var seen: Set<String> = []
        var current: String? = flow.steps.first?.id
        while let id = current, id != state.currentStep, let step = flow.step(id), seen.insert(id).inserted {
            let skipped = state.skipped.contains(id)
            let saved = skipped ? [:] : state.answers[id]
            if saved == nil, Self.asksForAnAnswer(step, in: context) {
                missing.append(id)
            }
            let action: SubmitAction = skipped ? .skip : .continue
            let values = saved ?? [:]
            switch step.transition(after: action, values: values, in: context) {
            case .next: current = flow.destination(after: step, BranchInput(action: action, values: values, context: context))
            case .goTo(let target): current = target
            default: current = nil
            }
        }
        return missing
    }

    /// Whether a step shows a required field (visible with no answers given): one that a person
    /// who never saw the step cannot have answered.
    static func asksForAnAnswer(_ step: any FlowStep, in context: StepContext) -> Bool {
        guard step.kind != .review else { return false }
        var reader = ConditionReader { context.value(of: $0) }
        return step.fields(in: context).contains { reader.apply($0)?.required == true }
    }

    /// What a review shows of the steps still to answer: `content.missing`, each step's id and title.
    func missingContent(_ state: SessionState, now: Date) -> JSONValue? {
        let missing = unansweredRequiredSteps(state, now: now)
        guard !missing.isEmpty else { return nil }
        let context = self.context(state, now: now)
        return .array(
            missing.compactMap { id in
                flow.step(id).map { ["id": .string(id), "title": .string($0.copy(in: context).title)] }
            })
    }
}
