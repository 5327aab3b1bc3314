import PlatformCore

/// The revamp's three gradient screens: a headline, a message, an SF Symbol and a white button.
struct MotivationalStep: FlowStep {
    let id: String
    let kind = StepKind.content
    let headline: @Sendable (_ name: String) -> String
    let message: String
    /// The SF Symbol the seed names for the illustration.
    let symbol: String
    let button: String

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: headline(context.displayName),
            content: ["message": .string(message), "symbol": .string(symbol), "background": "gradient"],
            actions: [.continue(button)])
    }

    static let welcomeJourney = MotivationalStep(
        id: StepID.welcomeJourney, headline: { "Welcome to your journey, \($0)" },
        message: "Every game is a chance to improve. Let's build your athletic story together.",
        symbol: "figure.run", button: "Let's Go")

    static let goalsLockedIn = MotivationalStep(
        id: StepID.goalsLockedIn, headline: { "You're locked in, \($0)" },
        message: "Small goals = big wins. Your season targets will keep you focused and motivated.",
        symbol: "target", button: "Keep Going")

    static let almostThere = MotivationalStep(
        id: StepID.almostThere, headline: { "Almost there, \($0)" },
        message: "You're ready to start tracking. Your first game log is just a tap away!",
        symbol: "chart.line.uptrend.xyaxis", button: "Finish Setup")
}
