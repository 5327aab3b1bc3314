import PlatformCore

/// Step 5: the primary position, from the list for the player's sport and team gender, each
/// option carrying the seed's "We track: …" tooltip.
struct PositionStep: FlowStep {
    let id = StepID.position
    let kind = StepKind.question
    var edition = Edition.revamp

    static func field(for positions: [Position]) -> FieldSpec {
        FieldSpec(
            id: FieldID.position, type: .choice, label: "Position",
            options: positions.map { FieldOption(value: $0.name, label: $0.name, detail: $0.tooltip) },
            messages: [
                .required: "Pick your primary position.",
                .notAnOption: "Pick one of the positions listed for your team.",
            ])
    }

    func fields(in context: StepContext) -> [FieldSpec] {
        let answers = Answers(context)
        return [Self.field(for: Positions.positions(sport: answers.sport, gender: answers.gender))]
    }

    func copy(in context: StepContext) -> StepCopy {
        if edition == .classic {
            return StepCopy(title: "What's your primary position?", subtitle: "Your position shapes the stats we track.")
        }
        return StepCopy(
            title: "What position do you play, \(context.displayName)?",
            subtitle: "Your position shapes the stats we track.",
            helper: "This determines which stats we'll track for you.")
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        OnboardingLog.stepCompleted(4, step: id, "position=\(values[FieldID.position]?.stringValue ?? "")", in: context)
        return .next
    }
}
