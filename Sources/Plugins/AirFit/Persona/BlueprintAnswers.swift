import PlatformCore

/// Every answer of a completed walk, read once, with the defaults a client showed filled in.
struct BlueprintAnswers: Sendable {
    var lifeContext: Set<LifeSnapshotFlag>
    var aspiration: AspirationPreset
    var aspirationText: String?
    /// The core_aspiration step's work result (`GoalAnalysisWork.result`), for `describe_own`.
    var analysis: JSONValue?
    var sliders: [CoachingStyle: Int]
    var engagementPreset: EngagementPreset
    var engagement: EngagementSettings
    var availability: [AvailabilityBlock]
    var sleep: SleepWindow
    var sleepRhythm: SleepRhythm
    var achievement: AchievementStyle
    var inactivity: InactivityResponse
    var units: PreferredUnits

    init(_ context: StepContext) throws(ValidationFailure) {
        func answers(_ step: AirFitStep) -> [String: JSONValue] { context.answers(of: step.id) ?? [:] }

        let snapshot = answers(.lifeSnapshot)[FieldID.lifeSnapshot]?.arrayValue ?? []
        lifeContext = Set(snapshot.compactMap { LifeSnapshotFlag($0) })

        let aspirationAnswers = answers(.coreAspiration)
        guard let preset = AspirationPreset(aspirationAnswers[FieldID.aspirationPreset]) else {
            // Only reachable if the path skipped the aspiration; the person is sent to answer it.
            throw ValidationFailure([
                FieldError(
                    field: FieldID.aspirationPreset, code: .required,
                    message: "Choose the aspiration that matters most, or describe your own.")
            ])
        }
        aspiration = preset
        aspirationText = preset == .describeOwn ? aspirationAnswers[FieldID.aspirationText]?.stringValue : nil
        analysis = preset == .describeOwn ? context.computed(for: AirFitStep.coreAspiration.id) : nil

        let style = answers(.coachingStyle)
        sliders = Dictionary(uniqueKeysWithValues: CoachingStyle.allCases.map { ($0, style[$0.rawValue]?.intValue ?? $0.defaultValue) })

        let engagementAnswers = answers(.engagementPreferences)
        engagementPreset = EngagementPreset(engagementAnswers[FieldID.engagementPreset]) ?? .default
        func answered(_ key: EngagementSettings.Switch) -> Bool {
            engagementAnswers[key.rawValue]?.boolValue ?? key.value(in: EngagementSettings.customDefaults)
        }
        engagement =
            engagementPreset.settings
            ?? EngagementSettings(
                detailedTracking: answered(.detailedTracking), dailyInsights: answered(.dailyInsights),
                autoRecoveryAdjust: answered(.autoRecoveryAdjust))

        let blocks = answers(.typicalAvailability)[FieldID.availability]?.arrayValue ?? []
        availability = blocks.compactMap(AvailabilityBlock.init).sorted()

        let sleepAnswers = answers(.sleepAndBoundaries)
        sleep = SleepAndBoundariesStep.window(sleepAnswers)
        sleepRhythm = SleepRhythm(sleepAnswers[FieldID.sleepRhythm]) ?? .default

        let motivation = answers(.motivationAndCheckins)
        achievement = AchievementStyle(motivation[FieldID.achievementAcknowledgement]) ?? .default
        inactivity = InactivityResponse(motivation[FieldID.inactivityResponse]) ?? .default
        units = PreferredUnits(motivation[FieldID.preferredUnits]) ?? .default
    }

    var blend: CoachingBlend { CoachingBlend(sliders) }
}
