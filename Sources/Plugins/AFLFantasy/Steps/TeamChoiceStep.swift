import PlatformCore

/// One of the two pathways on team choice. The field is a boolean, so the buttons that set it
/// travel as data in the step's `content`, with their VoiceOver label and hint (seed: "VoiceOver
/// labels: 'Connect existing AFL Fantasy team' with hints").
struct TeamPathway {
    let hasExistingTeam: Bool
    let label: String
    let detail: String
    let symbol: String
    let accessibilityLabel: String
    let accessibilityHint: String

    static let connectExisting = TeamPathway(
        hasExistingTeam: true,
        label: "Connect Existing Team",
        detail: "I already play AFL Fantasy",
        symbol: "link",
        accessibilityLabel: "Connect existing AFL Fantasy team",
        accessibilityHint: "Continues to your details, then asks for your Team ID.")

    static let createNew = TeamPathway(
        hasExistingTeam: false,
        label: "I Need to Create One",
        detail: "Show me how to set up a team",
        symbol: "plus.circle",
        accessibilityLabel: "Create a new AFL Fantasy team",
        accessibilityHint: "Opens a step-by-step guide to creating your team on the AFL Fantasy website.")

    static let all = [connectExisting, createNew]

    var json: JSONValue {
        [
            "value": .bool(hasExistingTeam), "label": .string(label), "detail": .string(detail),
            "symbol": .string(symbol), "accessibilityLabel": .string(accessibilityLabel),
            "accessibilityHint": .string(accessibilityHint),
        ]
    }
}

/// A card of the feature carousel on team choice (the seed's four features).
struct FeatureCard {
    let id: String
    let title: String
    let description: String
    let symbol: String

    static let all = [
        FeatureCard(
            id: "ai_trade_insights", title: "AI Trade Insights",
            description: "Trade smarter with AI analysis of form, price and fixtures.",
            symbol: "brain.head.profile"),
        FeatureCard(
            id: "captain_advisor", title: "Captain Advisor",
            description: "Lock in the right captain each round with data-backed picks.",
            symbol: "star.circle.fill"),
        FeatureCard(
            id: "performance_tracking", title: "Performance Tracking",
            description: "Follow your score, rank and player form week by week.",
            symbol: "chart.line.uptrend.xyaxis"),
        FeatureCard(
            id: "cash_cow_alerts", title: "Cash Cow Alerts",
            description: "Know when your rookies have peaked so you sell at the right time.",
            symbol: "dollarsign.circle.fill"),
    ]

    /// The seed: "Feature carousel auto-advances every 3 seconds".
    static let autoAdvanceSeconds = 3

    var json: JSONValue {
        ["id": .string(id), "title": .string(title), "description": .string(description), "symbol": .string(symbol)]
    }
}

/// Team choice, step 2 of 6: the branch. `hasExistingTeam` true (or `skip`, the seed's original
/// flow) goes to `personal_info`; false goes to the create-team guide.
struct TeamChoiceStep: FlowStep {
    let id = StepID.teamChoice
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.hasExistingTeam, type: .boolean, label: "Do you have an AFL Fantasy team?",
                messages: [
                    .required: "Choose Connect Existing Team or I Need to Create One.",
                    .invalidType: "Choose Connect Existing Team or I Need to Create One.",
                ])
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: "Do you have an AFL Fantasy team, \(context.coachName)?",
            subtitle: "Connect the team you already play with, or we'll show you how to create one.",
            content: [
                "options": .array(TeamPathway.all.map(\.json)),
                "carousel": [
                    "autoAdvanceSeconds": .int(Int64(FeatureCard.autoAdvanceSeconds)),
                    "items": .array(FeatureCard.all.map(\.json)),
                ],
            ],
            actions: [.continue(), .skip()])
    }

    /// A skip goes on to personal info, as connecting an existing team does.
    var branches: [FlowBranch] {
        [
            FlowBranch(
                when: "hasExistingTeam = false", if: { $0[FieldID.hasExistingTeam] == false },
                steps: [CreateTeamGuideStep()])
        ]
    }
}
