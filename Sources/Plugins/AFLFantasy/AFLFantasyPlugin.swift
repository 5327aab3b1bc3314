import PlatformCore

/// The AFL Fantasy app's onboarding (seed 004), served under tenant `aflfantasy`.
///
/// `splash` → `welcome` → `team_choice` → (`personal_info` | `create_team_guide` → `personal_info`)
/// → `credentials` → `validation`, which checks the team through a `TeamValidator` and completes.
/// See Docs/plugins/aflfantasy.md. Its log lines go through the step context; the host writes
/// them with a Logger labelled `AFLFantasy` (its `logLabel`).
public struct AFLFantasyPlugin: OnboardingPlugin {
    public let id = "aflfantasy"
    public let name = "AFL Fantasy"
    public let version = "1.0.0"
    public let defaultDisplayName = "Coach"

    let validator: any TeamValidator
    let validationTimeout: Duration

    /// - Parameters:
    ///   - validator: checks the Team ID on the `validation` step; the default checks its form offline.
    ///   - validationTimeout: how long `validation` waits for the validator before accepting the
    ///     Team ID on its form (the fallback, marked `teamValidation: "fallback"` in the account).
    /// How a host registers AFL Fantasy, with its settings.
    public static let registration = PluginRegistration(
        name: "AFLFantasy", defaultTenant: "aflfantasy",
        settings: [
            SettingDeclaration(
                "validationTimeoutSeconds", .integer(1...60), default: 10,
                help: "how long the Team ID check may take before the offline rule decides")
        ],
        make: { settings in
            AFLFantasyPlugin(validationTimeout: .seconds(settings.integer("validationTimeoutSeconds") ?? 10))
        })

    public init(validator: any TeamValidator = OfflineTeamValidator(), validationTimeout: Duration = .seconds(10)) {
        self.validator = validator
        self.validationTimeout = validationTimeout
    }

    public var flows: [Flow] {
        [
            Flow(
                steps: [
                    SplashStep(), WelcomeStep(), TeamChoiceStep(), PersonalInfoStep(),
                    CredentialsStep(), ValidationStep(validator: validator, timeout: validationTimeout),
                ],
                resumePolicy: .savedStep,
                progress: Self.progress,
                completion: AFLFantasyCompletion())
        ]
    }

    /// "Step N of 6": the guide, a detour from the team choice, shares step 3 with personal info,
    /// and the completed session's screen is step 6 (the seed's `complete`).
    static let progress = ProgressNumbering.derived(countingCompletion: true)

    public var onboardingGate: OnboardingGate {
        OnboardingGate(
            title: "Finish Setting Up",
            message: "Connect your AFL Fantasy team to unlock trade insights, captain advice and cash cow alerts.",
            cta: "Continue Setup")
    }
}
