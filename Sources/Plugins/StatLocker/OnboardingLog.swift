import Logging

/// The seed's `[StatLocker][Onboarding]` debug lines. Steps call it from their `transition`
/// hook, which runs once per accepted submit (inside the store's transaction: it only logs).
struct OnboardingLog: Sendable {
    let logger: Logger

    /// "Step 3 completed: gradYear=2027, level=Varsity". Steps are numbered as seed 000 numbers its
    /// eight functional steps, so the lines read as the seed wrote them.
    func stepCompleted(_ number: Int, step: String, _ details: String) {
        logger.debug(
            "[StatLocker][Onboarding] Step \(number) completed: \(details)",
            metadata: ["step": .string(step)])
    }

    func reviewCompleted(userId: String) {
        logger.debug(
            "[StatLocker][Onboarding] Step 8: Review complete, saved profile and team for user=\(userId)",
            metadata: ["step": .string(StepID.review)])
    }
}
