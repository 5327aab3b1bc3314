import PlatformCore

/// 3.4: "How do you identify?" — the last step; its button completes the setup.
struct GenderStep: FlowStep {
    let id = StepID.gender
    let kind = StepKind.question

    static let options = [
        FieldOption(value: "male", label: "Male"),
        FieldOption(value: "female", label: "Female"),
        FieldOption(value: "non_binary", label: "Non-binary"),
        FieldOption(value: "prefer_not_to_say", label: "Prefer not to say"),
    ]

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.gender, type: .choice, label: "Gender", options: Self.options,
                messages: [
                    .required: "Choose one of the options (\"Prefer not to say\" is fine).",
                    .notAnOption: "Choose one of the options (\"Prefer not to say\" is fine).",
                ])
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(title: "How do you identify?", helper: "This helps build diverse groups", actions: [.continue("Complete Setup")])
    }
}
