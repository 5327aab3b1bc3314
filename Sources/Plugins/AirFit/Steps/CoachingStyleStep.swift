import PlatformCore

/// Screen 4: one slider per coaching voice, each carrying every value band's description so a
/// client can show the one under the thumb without asking the server.
struct CoachingStyleStep: FlowStep {
    let id = AirFitStep.coachingStyle.id
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        CoachingStyle.allCases.map { style in
            FieldSpec(
                id: style.rawValue, type: .slider, label: style.label, required: false,
                min: 0, max: 100, step: 1, defaultValue: .int(Int64(style.defaultValue)),
                messages: [
                    .outOfRange: "Set \(style.label) anywhere from 0 to 100.",
                    .invalidFormat: "Set \(style.label) to a whole number from 0 to 100.",
                    .invalidType: "Set \(style.label) with a number from 0 to 100.",
                ],
                extra: ["bands": .array(style.bands.map(\.json))])
        }
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "How should your coach speak to you?",
            subtitle: "Blend the voices that bring out your best.",
            helper: "Your blend is shared out as percentages of 100; leave every slider at 0 for an even mix.",
            actions: [.continue("Next")])
    }

    /// A slider the client left alone keeps the value it showed.
    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        var kept: [String: JSONValue] = [:]
        for style in CoachingStyle.allCases {
            kept[style.rawValue] = values[style.rawValue] ?? .int(Int64(style.defaultValue))
        }
        return kept
    }
}
