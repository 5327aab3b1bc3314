/// The contract's step ids for AirFit, in flow order. Clients rely on them; they never change.
enum AirFitStep: String, CaseIterable, Sendable {
    case openingScreen = "opening_screen"
    case lifeSnapshot = "life_snapshot"
    case coreAspiration = "core_aspiration"
    case coachingStyle = "coaching_style"
    case engagementPreferences = "engagement_preferences"
    case typicalAvailability = "typical_availability"
    case sleepAndBoundaries = "sleep_and_boundaries"
    case motivationAndCheckins = "motivation_and_checkins"
    case generatingCoach = "generating_coach"

    var id: String { rawValue }
}

/// The contract's field ids for AirFit, and `profile.update`'s. Two groups are named by their
/// cases instead: the `coaching_style` sliders (`CoachingStyle`) and the custom engagement
/// switches (`EngagementSettings.Switch`).
enum FieldID {
    static let lifeSnapshot = "lifeSnapshot"
    static let aspirationPreset = "aspirationPreset"
    static let aspirationText = "aspirationText"
    static let engagementPreset = "engagementPreset"
    static let availability = "availability"
    static let sleepBedtime = "sleepBedtime"
    static let sleepWakeTime = "sleepWakeTime"
    static let sleepRhythm = "sleepRhythm"
    static let achievementAcknowledgement = "achievementAcknowledgement"
    static let inactivityResponse = "inactivityResponse"
    static let preferredUnits = "preferredUnits"
    static let establishBaseline = "establishBaseline"
}
