import PlatformCore

/// Screen 9: the client submits it to have the coach built. It is the last step, so the
/// submit completes the session and the completion handler writes the persona.
struct GeneratingCoachStep: FlowStep {
    let id = AirFitStep.generatingCoach.id
    let kind = StepKind.processing
    /// The bar stays at 8 of 8 while the coach is generated.
    let countsInProgress = false

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "Crafting Your Coach…",
            subtitle: "Bringing your choices together.",
            content: [
                "messages": [
                    "Analyzing preferences…", "Defining your coach's voice…", "Aligning with your schedule…",
                    "Calibrating motivation…", "Finalizing your AirFit Coach…",
                ]
            ],
            actions: [.continue("Create My Coach")])
    }
}
