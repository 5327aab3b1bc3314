import PlatformCore

/// Screen 7: the sleep window, which also sets the coach's quiet hours. A bedtime later than
/// the wake time is the usual night across midnight.
struct SleepAndBoundariesStep: FlowStep {
    let id = AirFitStep.sleepAndBoundaries.id
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.sleepBedtime, type: .time, label: "Typical bedtime", required: false,
                defaultValue: .string(SleepWindow.defaultBedtime.description),
                messages: [.invalidFormat: "Typical bedtime must be a time written HH:mm, such as 22:30."]),
            FieldSpec(
                id: FieldID.sleepWakeTime, type: .time, label: "Typical wake time", required: false,
                defaultValue: .string(SleepWindow.defaultWakeTime.description),
                messages: [.invalidFormat: "Typical wake time must be a time written HH:mm, such as 06:30."]),
            FieldSpec(
                id: FieldID.sleepRhythm, type: .choice, label: "Sleep rhythm", required: false,
                options: SleepRhythm.options, defaultValue: .string(SleepRhythm.default.rawValue),
                messages: [.notAnOption: "Choose how consistent your sleep usually is."]),
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "Protect your rest.",
            subtitle: "Your coach stays quiet while you sleep.",
            helper: "Going to bed after midnight? Choose a time such as 00:30.",
            actions: [.continue("Next")])
    }

    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        guard let message = Self.window(values).outOfRangeMessage else { return [] }
        // The duration belongs to the pair of times, not to either one.
        return [FieldError(field: nil, code: .outOfRange, message: message)]
    }

    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        let window = Self.window(values)
        return [
            FieldID.sleepBedtime: .string(window.bedtime.description),
            FieldID.sleepWakeTime: .string(window.wakeTime.description),
            FieldID.sleepRhythm: .string((SleepRhythm(values[FieldID.sleepRhythm]) ?? .default).rawValue),
        ]
    }

    /// The posted window, with the defaults the client showed for anything left out.
    static func window(_ values: [String: JSONValue]) -> SleepWindow {
        SleepWindow(
            bedtime: values[FieldID.sleepBedtime]?.stringValue.flatMap(ClockTime.init) ?? SleepWindow.defaultBedtime,
            wakeTime: values[FieldID.sleepWakeTime]?.stringValue.flatMap(ClockTime.init) ?? SleepWindow.defaultWakeTime)
    }
}
