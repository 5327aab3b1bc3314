import PlatformCore

/// Screen 2: the seed's `LifeSnapshotSelections`, one flag per option. Choosing none is a
/// valid answer (every flag false), so the field is optional and defaults to an empty list.
struct LifeSnapshotStep: FlowStep {
    let id = AirFitStep.lifeSnapshot.id
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.lifeSnapshot, type: .multiChoice, label: "Your week", required: false,
                options: LifeSnapshotFlag.options, defaultValue: [],
                messages: [.duplicate: "Each option can be chosen only once."])
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "What does a typical week look like?",
            subtitle: "Select all that apply. Your coach plans around your life, not the other way around.",
            actions: [.continue("Next")])
    }

    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        [FieldID.lifeSnapshot: values[FieldID.lifeSnapshot] ?? []]
    }
}
