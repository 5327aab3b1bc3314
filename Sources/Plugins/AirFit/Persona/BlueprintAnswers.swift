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

        let snapshot = answers(.lifeSnapshot)[LifeSnapshotStep.field]?.arrayValue ?? []
        lifeContext = Set(snapshot.compactMap { LifeSnapshotFlag($0) })

        let aspirationAnswers = answers(.coreAspiration)
        guard let preset = AspirationPreset(aspirationAnswers[CoreAspirationStep.presetField]) else {
            // Only reachable if the path skipped the aspiration; the person is sent to answer it.
            throw ValidationFailure([FieldError(
                field: CoreAspirationStep.presetField, code: .required,
                message: "Choose the aspiration that matters most, or describe your own.")])
        }
        aspiration = preset
        aspirationText = preset == .describeOwn ? aspirationAnswers[CoreAspirationStep.textField]?.stringValue : nil
        analysis = preset == .describeOwn ? context.computed(for: AirFitStep.coreAspiration.id) : nil

        let style = answers(.coachingStyle)
        sliders = Dictionary(uniqueKeysWithValues: CoachingStyle.allCases.map { ($0, style[$0.rawValue]?.intValue ?? $0.defaultValue) })

        let engagementAnswers = answers(.engagementPreferences)
        engagementPreset = EngagementPreset(engagementAnswers[EngagementPreferencesStep.presetField]) ?? .default
        engagement = engagementPreset.settings ?? EngagementSettings(
            detailedTracking: engagementAnswers["detailedTracking"]?.boolValue ?? EngagementSettings.customDefaults.detailedTracking,
            dailyInsights: engagementAnswers["dailyInsights"]?.boolValue ?? EngagementSettings.customDefaults.dailyInsights,
            autoRecoveryAdjust: engagementAnswers["autoRecoveryAdjust"]?.boolValue ?? EngagementSettings.customDefaults.autoRecoveryAdjust)

        let blocks = answers(.typicalAvailability)[TypicalAvailabilityStep.field]?.arrayValue ?? []
        availability = blocks.compactMap(AvailabilityBlock.init).sorted()

        let sleepAnswers = answers(.sleepAndBoundaries)
        sleep = SleepAndBoundariesStep.window(sleepAnswers)
        sleepRhythm = SleepRhythm(sleepAnswers[SleepAndBoundariesStep.rhythmField]) ?? .default

        let motivation = answers(.motivationAndCheckins)
        achievement = AchievementStyle(motivation[MotivationAndCheckinsStep.achievementField]) ?? .default
        inactivity = InactivityResponse(motivation[MotivationAndCheckinsStep.inactivityField]) ?? .default
        units = PreferredUnits(motivation[MotivationAndCheckinsStep.unitsField]) ?? .default
    }

    var blend: CoachingBlend { CoachingBlend(sliders) }
}
