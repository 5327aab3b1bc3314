/// The contract's step ids for AirFit, in flow order. Clients rely on them; they never change.
/// (An enum rather than the other plugins' `StepID` strings: the steps are counted and numbered
/// by case.)
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

    /// "N of 8": the eight screens before the coach is generated are numbered 1-8, and
    /// generating_coach repeats 8 because it is the moment the last answer turns into a coach.
    var progressIndex: Int {
        switch self {
        case .openingScreen: 1
        case .lifeSnapshot: 2
        case .coreAspiration: 3
        case .coachingStyle: 4
        case .engagementPreferences: 5
        case .typicalAvailability: 6
        case .sleepAndBoundaries: 7
        case .motivationAndCheckins, .generatingCoach: 8
        }
    }
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
