import PlatformCore

/// The AirFit app's onboarding, served under tenant `airfit`.
///
/// Registered, with no flow yet: its flow is built by the AirFit plugin issue, so until then
/// `flow.start` for this tenant answers "not found".
public struct AirFitPlugin: OnboardingPlugin {
    public let id = "airfit"
    public let name = "AirFit"
    public let version = "0.1.0"
    public let defaultDisplayName = "there"
    public var flows: [Flow] { [] }

    public init() {}
}
