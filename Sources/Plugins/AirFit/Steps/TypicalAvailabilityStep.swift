import PlatformCore

/// Screen 6: the windows in a week when training usually fits. An empty list is an answer
/// ("my week is too variable to plan around").
struct TypicalAvailabilityStep: FlowStep {
    let id = AirFitStep.typicalAvailability.id
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.availability, type: .list, label: "Availability", required: false,
                minItems: 0, maxItems: AvailabilityBlock.maximumCount, defaultValue: [],
                itemFields: [
                    FieldSpec(
                        id: "dayOfWeek", type: .integer, label: "Day of week", min: 1, max: 7,
                        messages: [
                            .outOfRange: "Day of week runs from 1 (Monday) to 7 (Sunday).",
                            .invalidType: "Day of week is a whole number from 1 (Monday) to 7 (Sunday).",
                        ]),
                    FieldSpec(id: "startTime", type: .time, label: "Start time"),
                    FieldSpec(id: "endTime", type: .time, label: "End time"),
                ],
                messages: [
                    .count: "Add at most \(AvailabilityBlock.maximumCount) availability blocks.",
                    .invalidType: "Availability is a list of blocks, each with a day, a start time and an end time.",
                ])
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "When do you usually have time to train?",
            subtitle: "Add the windows that tend to work. Your coach times plans and reminders around them.",
            helper: "Each block needs at least 15 minutes. Leave this empty if your week is too variable to plan around.",
            actions: [.continue("Next")])
    }

    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        let blocks = (values[FieldID.availability]?.arrayValue ?? []).compactMap(AvailabilityBlock.init)
        var errors: [FieldError] = []
        for block in blocks {
            if block.end <= block.start {
                errors.append(
                    FieldError(
                        field: FieldID.availability, code: .outOfRange,
                        message: "\(block.name): the end time must be after the start time. "
                            + "Split a block that runs past midnight into two days."))
            } else if block.durationMinutes < AvailabilityBlock.minimumMinutes {
                errors.append(
                    FieldError(
                        field: FieldID.availability, code: .outOfRange,
                        message: "\(block.name) is \(SleepWindow.spoken(minutes: block.durationMinutes)); "
                            + "blocks need at least \(AvailabilityBlock.minimumMinutes) minutes."))
            }
        }
        let ordered = blocks.filter { $0.end > $0.start }.sorted()
        for (offset, first) in ordered.enumerated() {
            for second in ordered[(offset + 1)...] where first.overlaps(second) {
                errors.append(
                    FieldError(
                        field: FieldID.availability, code: .overlap,
                        message: "\(first.name) overlaps \(second.name). Adjust or remove one of them."))
            }
        }
        return errors
    }

    /// Blocks are kept in week order, whatever order they were added in.
    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        let blocks = (values[FieldID.availability]?.arrayValue ?? []).compactMap(AvailabilityBlock.init).sorted()
        return [FieldID.availability: .array(blocks.map(\.answer))]
    }
}
