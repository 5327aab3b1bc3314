import PlatformCore

/// The launch screen. Not counted by the progress bar (contract: index 0, empty label).
struct SplashStep: FlowStep {
    let id = StepID.splash
    let kind = StepKind.content
    let countsInProgress = false

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: "AFL Fantasy",
            subtitle: "Smarter trades. Better captains. Every round.",
            content: ["symbol": "sportscourt.fill"],
            actions: [.continue("Get Started")])
    }
}

/// The welcome screen, step 1 of 6.
struct WelcomeStep: FlowStep {
    let id = StepID.welcome
    let kind = StepKind.content

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: "Welcome to AFL Fantasy, \(context.coachName)!",
            subtitle: "Your AI-powered assistant coach for the season.",
            content: [
                "message": "Let's connect your team so we can start finding you points.",
                "symbol": "trophy.fill",
            ],
            actions: [.continue("Let's Go")])
    }
}
