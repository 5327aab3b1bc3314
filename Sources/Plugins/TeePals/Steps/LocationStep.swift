import PlatformCore

/// 3.3: "Where do you usually golf?" — a city chosen from `flow.search` results.
struct LocationStep: FlowStep {
    let id = StepID.location
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.location, type: .search, label: "City", placeholder: "Search for your city",
                messages: [.required: "Choose the city where you usually golf."])
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(title: "Where do you usually golf?", helper: "We'll show you rounds nearby")
    }
}
