import PlatformCore

/// The StatLocker app's onboarding, served under tenant `statlocker`.
///
/// Registered, with no flow yet: its flow is built by the StatLocker plugin issue, so until then
/// `flow.start` for this tenant answers "not found".
public struct StatLockerPlugin: OnboardingPlugin {
    public let id = "statlocker"
    public let name = "StatLocker"
    public let version = "0.1.0"
    public let defaultDisplayName = "Athlete"
    public var flows: [Flow] { [] }

    public init() {}
}
