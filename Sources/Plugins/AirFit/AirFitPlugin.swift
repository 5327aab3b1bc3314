import Foundation
import Logging
import PlatformCore

/// The AirFit app's onboarding, the seed's "Persona Blueprint Flow", served under tenant `airfit`:
/// eight screens that design the person's AI coach, then `generating_coach`, whose submit
/// builds persona_profile.json and completes the session.
public struct AirFitPlugin: OnboardingPlugin {
    public let id = "airfit"
    public let name = "AirFit"
    public let version = "1.0.0"
    public let defaultDisplayName = "there"
    public let flows: [Flow]

    /// How long goal analysis may take before the offline result is used.
    public static let defaultAnalysisTimeout: Duration = .seconds(8)

    /// The server's set-up: the analyzer the environment configures (see `GoalAnalyzerSetup`),
    /// the offline one when it configures none.
    public init() {
        self.init(environment: ProcessInfo.processInfo.environment)
    }

    /// How a host registers AirFit. The goal analyzer is set per tenant; its API key is read from
    /// the environment variable the file names, never from the file. Without `analyzerUrl` the
    /// process environment's `AIRFIT_ANALYZER_*` variables apply, as in version 1.
    public static let registration = PluginRegistration(
        name: "AirFit", defaultTenant: "airfit",
        settings: [
            SettingDeclaration("analyzerUrl", .url, help: "base URL of an OpenAI-compatible chat completions API for goal analysis"),
            SettingDeclaration("analyzerModel", .string(maxLength: 200), help: "the model name sent to analyzerUrl (required with it)"),
            SettingDeclaration("analyzerApiKeyEnv", .environmentVariable, help: "the environment variable that holds analyzerUrl's API key"),
            SettingDeclaration(
                "analysisTimeoutSeconds", .integer(1...60), default: 8, help: "how long goal analysis may take before the offline analyzer's result is used"),
        ],
        check: { settings in
            settings.string("analyzerUrl") != nil && settings.string("analyzerModel") == nil
                ? SettingProblem(key: "analyzerModel", reason: "is required when analyzerUrl is set") : nil
        },
        make: { settings in
            guard let url = settings.string("analyzerUrl") else {
                var environment = settings.environment
                if environment[GoalAnalyzerSetup.timeoutVariable] == nil, let seconds = settings.integer("analysisTimeoutSeconds") {
                    environment[GoalAnalyzerSetup.timeoutVariable] = String(seconds)
                }
                return AirFitPlugin(environment: environment, outbound: settings.outbound)
            }
            var environment: [String: String] = [
                GoalAnalyzerSetup.urlVariable: url,
                GoalAnalyzerSetup.modelVariable: settings.string("analyzerModel") ?? "",
                GoalAnalyzerSetup.timeoutVariable: String(settings.integer("analysisTimeoutSeconds") ?? 8),
            ]
            environment[GoalAnalyzerSetup.apiKeyVariable] = settings.secret(named: "analyzerApiKeyEnv")
            return AirFitPlugin(environment: environment, outbound: settings.outbound)
        })

    /// - Parameter outbound: the host's HTTP client the remote analyzer sends through (nil:
    ///   Foundation's `URLSession`).
    public init(environment: [String: String], outbound: (any OutboundHTTP)? = nil, logger: Logger = Logger(label: "AirFit")) {
        let setup = GoalAnalyzerSetup(environment: environment, outbound: outbound)
        if let problem = setup.problem {
            logger.warning("goal analyzer configuration ignored", metadata: ["problem": "\(problem)"])
        }
        self.init(analyzer: setup.analyzer, analysisTimeout: setup.timeout)
    }

    /// - Parameters:
    ///   - analyzer: turns a `describe_own` aspiration into a structured goal.
    ///   - analysisTimeout: after this, the offline analyzer's result is used instead.
    /// A fallback is logged once, by the host that ran the work (its name and the reason, never
    /// the person's text), as every plugin's step work is.
    public init(analyzer: any GoalAnalyzer, analysisTimeout: Duration = AirFitPlugin.defaultAnalysisTimeout) {
        let analysis = GoalAnalysisWork(analyzer: analyzer, timeout: analysisTimeout)
        let steps: [any FlowStep] = [
            OpeningScreenStep(),
            LifeSnapshotStep(),
            CoreAspirationStep(analysis: analysis),
            CoachingStyleStep(),
            EngagementPreferencesStep(),
            TypicalAvailabilityStep(),
            SleepAndBoundariesStep(),
            MotivationAndCheckinsStep(),
            GeneratingCoachStep(),
        ]
        flows = [Flow(steps: steps, resumePolicy: .savedStep, progress: .derived(label: { "\($0) of \($1)" }), completion: AirFitCompletion())]
    }

    /// Spanish for every text (Localization/Localizable.xcstrings), read once.
    public var stringCatalogs: [StringCatalog] { [Self.catalog] }
    static let catalog = StringCatalog.bundled(in: .module, owner: "AirFit")

    public var onboardingGate: OnboardingGate {
        OnboardingGate(
            title: "Finish designing your coach",
            message: "Complete your Persona Blueprint to meet your AirFit Coach.",
            cta: "Continue Setup")
    }

    public var editableFields: [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.establishBaseline, type: .boolean, label: "Establish baseline",
                messages: [
                    .required: "Choose whether your coach starts by establishing your baseline.",
                    .invalidType: "Establish baseline is either on (true) or off (false).",
                ])
        ]
    }

    /// Sets `establishBaseline` in the `onboarding_profile` record (an `OnboardingProfile`).
    public func updatedRecords(
        _ profile: Profile, with values: [String: JSONValue], in context: StepContext
    ) throws(ValidationFailure) -> [String: JSONValue] {
        var records = profile.records
        guard let baseline = values[FieldID.establishBaseline]?.boolValue else { return records }
        let noProfile = ValidationFailure([
            FieldError(
                field: nil, code: .notEditable, message: "This profile has no coach settings to change.")
        ])
        guard var onboarding = try? records[OnboardingProfile.recordName]?.decode(OnboardingProfile.self) else {
            throw noProfile
        }
        onboarding.establishBaseline = baseline
        // Cannot fail for a record that decoded: it holds strings, booleans and finite numbers.
        guard let json = try? JSONValue(encoding: onboarding) else { throw noProfile }
        records[OnboardingProfile.recordName] = json
        return records
    }
}
