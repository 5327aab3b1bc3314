import PlatformCore

/// How the AI Coach sounds (`aiTone`), each with the seed's example line.
enum AITones {
    static let all: [(tone: String, example: String)] = [
        ("Hype", "🔥 You brought it today. Keep that edge."),
        ("Mentor", "Strong step forward. Let's compound it."),
        ("Analyst", "Save% +7 vs season avg. Lateral speed trending up."),
        ("Captain", "Leaders show up—keep stacking wins."),
    ]

    static var field: FieldSpec {
        FieldSpec(
            id: FieldID.aiTone, type: .choice, label: "AI Coach tone",
            options: all.map { FieldOption(value: $0.tone, label: $0.tone, detail: $0.example) },
            messages: [
                .required: "Pick how your AI Coach should sound.",
                .notAnOption: "Pick Hype, Mentor, Analyst or Captain.",
            ])
    }
}
