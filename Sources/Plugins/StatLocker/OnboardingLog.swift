import PlatformCore

/// The seed's `[StatLocker][Onboarding]` debug lines. Steps record them from their `transition`
/// hook, which runs once per accepted submit, in the submit's context: the host writes them once
/// the submit has committed, so a refused or rolled-back submit logs nothing.
enum OnboardingLog {
    /// "Step 3 completed: gradYear=2027, level=Varsity". Steps are numbered as seed 000 numbers its
    /// eight functional steps, so the lines read as the seed wrote them.
    static func stepCompleted(_ number: Int, step: String, _ details: String, in context: StepContext) {
        context.log(.debug, "[StatLocker][Onboarding] Step \(number) completed: \(details)", metadata: ["step": step])
    }

    static func reviewCompleted(in context: StepContext) {
        context.log(
            .debug,
            "[StatLocker][Onboarding] Step 8: Review complete, saved profile and team for user=\(context.userId)",
            metadata: ["step": StepID.review])
    }
}
