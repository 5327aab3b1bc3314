import PlatformCore

/// Screen 3: the goal. A preset card, or `describe_own` with the person's words, which are
/// analysed into a structured goal as server work before the step is accepted.
struct CoreAspirationStep: FlowStep {
    static let maxTextLength = 500

    let id = AirFitStep.coreAspiration.id
    let kind = StepKind.question
    let analysis: GoalAnalysisWork

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.aspirationPreset, type: .choice, label: "Aspiration", options: AspirationPreset.options,
                messages: [
                    .required: "Choose the aspiration that matters most, or describe your own.",
                    .notAnOption: "Choose one of the aspirations shown, or describe your own.",
                ]),
            FieldSpec(
                id: FieldID.aspirationText, type: .text, label: "Your aspiration",
                placeholder: "e.g. Run a sub-25 minute 5k in 12 weeks",
                minLength: 1, maxLength: Self.maxTextLength,
                visibleWhen: .field(FieldID.aspirationPreset, equals: .string(AspirationPreset.describeOwn.rawValue)),
                messages: [
                    .required: "Describe your aspiration in a sentence or two.",
                    .tooLong: "Keep your aspiration to 500 characters or fewer.",
                    .invalidType: "Describe your aspiration in words.",
                ]),
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "What matters most right now?",
            subtitle: "Your coach shapes every recommendation around it.",
            actions: [.continue("Next")])
    }

    func work(for values: [String: JSONValue], in context: StepContext) -> StepWork? {
        guard AspirationPreset(values[FieldID.aspirationPreset]) == .describeOwn,
            let text = values[FieldID.aspirationText]?.stringValue
        else { return nil }
        return analysis.work(for: text, on: context.now)
    }
}
