import PlatformCore

/// Screen 1: the invitation. "Maybe Later" defers the session; the next "Begin" resumes it.
struct OpeningScreenStep: FlowStep {
    let id = AirFitStep.openingScreen.id
    let kind = StepKind.content

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "Let's design your AirFit Coach.",
            subtitle: "Est. 3-4 minutes to create your personalized experience.",
            content: ["brand": "AirFit", "estimatedMinutes": "3-4"],
            actions: [.continue("Begin"), .later("Maybe Later")])
    }
}
