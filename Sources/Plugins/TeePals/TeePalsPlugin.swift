import PlatformCore

/// The TeePals app's onboarding, served under tenant `teepals`.
///
/// Registered, with no flow yet: its flow is built by the TeePals plugin issue, so until then
/// `flow.start` for this tenant answers "not found".
public struct TeePalsPlugin: OnboardingPlugin {
    public let id = "teepals"
    public let name = "TeePals"
    public let version = "0.1.0"
    public let defaultDisplayName = "Golfer"
    public var flows: [Flow] { [] }

    public init() {}
}
