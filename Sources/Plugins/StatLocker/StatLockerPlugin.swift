import PlatformCore

/// The StatLocker app's onboarding, served under tenant `statlocker`: seed 000 (B-003) in the
/// revamp's 11 steps (seed 001), to the ids of the wire contract. Docs/plugins/statlocker.md
/// describes every step, field, rule and record.
public struct StatLockerPlugin: OnboardingPlugin {
    public let id = "statlocker"
    public let name = "StatLocker"
    public let version = "1.0.0"
    public let defaultDisplayName = "Athlete"
    let rules: SeasonGoalRules

    /// How a host registers StatLocker. It has no settings: clubs differ by tenant id only.
    public static let registration = PluginRegistration(
        name: "StatLocker", defaultTenant: "statlocker", make: { _ in StatLockerPlugin() })

    /// The seed's `[StatLocker][Onboarding]` debug lines go through the step context
    /// (`OnboardingLog`); the host writes them with a Logger labelled `StatLocker`.
    public init() {
        self.init(library: .shared)
    }

    /// A plugin over another goals library (tests: a library that changed under a saved session).
    init(library: GoalsLibrary) {
        self.rules = SeasonGoalRules(library: library)
    }

    public var flows: [Flow] {
        let questions: [any FlowStep] = [
            SportStep(),
            MotivationalStep.welcomeJourney,
            TeamGenderStep(),
            ProfileDetailsStep(),
            PositionStep(),
            TeamInfoStep(),
            SeasonGoalsStep(rules: rules),
            MotivationalStep.goalsLockedIn,
            ToneQuizStep(),
            MotivationalStep.almostThere,
        ]
        let steps = questions + [LockerReviewStep(earlierSteps: questions, rules: rules)]
        return [
            Flow(
                steps: steps, resumePolicy: .savedStep,
                completion: StatLockerCompletion(rules: rules)),
            classicFlow,
        ]
    }

    /// Seed 000 as written, beside the revamp so the two can be measured against each other: its
    /// 8 steps, copy and grad years, with the revamp's field ids, rules, records and message.
    var classicFlow: Flow {
        let questions: [any FlowStep] = [
            SportStep(edition: .classic),
            TeamGenderStep(edition: .classic),
            ProfileDetailsStep(edition: .classic),
            PositionStep(edition: .classic),
            TeamInfoStep(edition: .classic),
            SeasonGoalsStep(rules: rules, edition: .classic),
            ToneQuizStep(edition: .classic),
        ]
        return Flow(
            id: FlowID.classic, steps: questions + [LockerReviewStep(earlierSteps: questions, rules: rules, edition: .classic)],
            resumePolicy: .savedStep, completion: StatLockerCompletion(rules: rules))
    }

    /// Spanish for every text (Localization/Localizable.xcstrings), read once.
    public var stringCatalogs: [StringCatalog] { [Self.catalog] }
    static let catalog = StringCatalog.bundled(in: .module, owner: "StatLocker")

    public var onboardingGate: OnboardingGate {
        OnboardingGate(
            title: "Finish building your Locker", message: "Complete onboarding to start tracking your stats.",
            cta: "Continue Setup")
    }

    /// The seed's "You can change these anytime in Settings": tone and goals.
    public var editableFields: [FieldSpec] {
        [AITones.field, rules.field(offering: rules.library.goals)]
    }

    /// Applies a tone or a new set of goals to the `profile` record (an `AthleteProfile`). Goals
    /// are checked against the player's own gender, position and level, and become SeasonGoal
    /// objects; a goal kept from before keeps its id and progress, a new custom goal takes
    /// `context.newID()`.
    public func updatedRecords(
        _ profile: Profile, with values: [String: JSONValue], in context: StepContext
    ) throws(ValidationFailure) -> [String: JSONValue] {
        let noProfile = ValidationFailure([FieldError(field: nil, code: .notEditable, message: Messages.noAthleteProfile)])
        guard var athlete = try? profile.records[AthleteProfile.recordName]?.decode(AthleteProfile.self) else {
            throw noProfile
        }
        if let tone = values[FieldID.aiTone]?.stringValue {
            athlete.aiTone = tone
        }
        if let items = values[FieldID.seasonGoals]?.arrayValue {
            let offered = Set(
                rules.library.goals(
                    sport: athlete.sport, gender: athlete.teamGender, position: athlete.position, level: athlete.level
                ).map(\.id))
            if items.contains(where: { $0.stringValue.map { !offered.contains($0) } ?? false }) {
                throw ValidationFailure([
                    FieldError(
                        field: FieldID.seasonGoals, code: .notAnOption, message: Messages.goalNotOffered)
                ])
            }
            let errors = rules.errors(in: items)
            guard errors.isEmpty else { throw ValidationFailure(errors) }
            athlete.seasonGoals = rules.seasonGoals(items, existing: athlete.seasonGoals, newID: context.newID)
        }
        var records = profile.records
        // Cannot fail for a record that decoded: it holds strings, booleans and finite numbers.
        guard let json = try? JSONValue(encoding: athlete) else { throw noProfile }
        records[AthleteProfile.recordName] = json
        return records
    }
}
