/// The contract's step ids, in flow order. Clients rely on them; they never change.
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
