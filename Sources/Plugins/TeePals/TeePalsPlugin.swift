import PlatformCore

/// The TeePals app's onboarding, served under tenant `teepals` (seed 002).
///
/// Tier 1 is a four-step wizard (nickname, birthdate, location, gender) that resumes at the first
/// unanswered step and rejects anyone under 13. Tier 2 is a gate on the social actions until a
/// photo and a skill level are added with `profile.update`. Docs/plugins/teepals.md has the rules.
public struct TeePalsPlugin: OnboardingPlugin {
    public let id = "teepals"
    public let name = "TeePals"
    public let version = "1.0.0"
    public let defaultDisplayName = "Golfer"
    /// The age below which a session is rejected (the `minimumAge` setting, 13-21).
    public let minimumAge: Int

    /// Log lines go through the step context; the host writes them with a Logger labelled `TeePals`.
    public init(minimumAge: Int = AgeCheck.defaultMinimumAge) {
        self.minimumAge = minimumAge
    }

    /// How a host registers TeePals, with the settings a tenants file may give.
    public static let registration = PluginRegistration(
        name: "TeePals", defaultTenant: "teepals",
        settings: [
            SettingDeclaration(
                "minimumAge", .integer(13...21), default: 13,
                help: "the age below which the birthdate step rejects the session and erases its answers")
        ],
        make: { settings in TeePalsPlugin(minimumAge: settings.integer("minimumAge") ?? AgeCheck.defaultMinimumAge) })

    public var flows: [Flow] {
        let steps: [any FlowStep] = [NicknameStep(), BirthdateStep(minimumAge: minimumAge), LocationStep(), GenderStep()]
        return [
            Flow(
                steps: steps, resumePolicy: .firstMissingAnswer,
                progress: .derived(label: { "\($0)/\($1)" }),
                completion: TeePalsCompletion())
        ]
    }

    public var onboardingGate: OnboardingGate {
        OnboardingGate(
            id: "tier1", title: "Finish Setting Up",
            message: "Tell us your nickname, birthday, city and gender to start using TeePals.",
            cta: "Continue Setup")
    }

    public var gates: [any Gate] { [ProfileGate()] }

    public var editableFields: [FieldSpec] { ProfileFields.editable }

    public var searchProviders: [String: any SearchProvider] { [FieldID.location: CitySearch()] }

    /// Opens the gazetteer: it is memory-mapped, so this costs a header check and two small tables.
    public func prepare() {
        _ = Gazetteer.shared
    }

    public var intro: JSONValue? { Intro.posters }

    /// Spanish for every text (Localization/Localizable.xcstrings), read once.
    public var stringCatalogs: [StringCatalog] { [Self.catalog] }
    static let catalog = StringCatalog.bundled(in: .module, owner: "TeePals")

    public func updatedRecords(
        _ profile: Profile, with values: [String: JSONValue], in context: StepContext
    ) throws(ValidationFailure) -> [String: JSONValue] {
        let records = try ProfileFields.updated(profile.records, with: values)
        context.log(.info, "profile updated", metadata: ["tenant": id, "fields": "\(values.keys.sorted())"])
        return records
    }
}
