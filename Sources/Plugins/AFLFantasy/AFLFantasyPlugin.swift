import PlatformCore

/// The AFL Fantasy app's onboarding, served under tenant `aflfantasy`.
///
/// Registered, with no flow yet: its flow is built by the AFL Fantasy plugin issue, so until then
/// `flow.start` for this tenant answers "not found".
public struct AFLFantasyPlugin: OnboardingPlugin {
    public let id = "aflfantasy"
    public let name = "AFL Fantasy"
    public let version = "0.1.0"
    public let defaultDisplayName = "Coach"
    public var flows: [Flow] { [] }

    public init() {}
}
