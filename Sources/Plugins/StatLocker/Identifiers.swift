/// Which of StatLocker's two onboardings a step is drawn for: the revamp (seed 001, flow
/// `onboarding`) or seed 000 as written (flow `classic`). Same steps' fields and records; the
/// classic one has seed 000's copy and grad years.
enum Edition: Sendable {
    case revamp
    case classic
}

/// The contract's flow ids for StatLocker.
enum FlowID {
    static let onboarding = "onboarding"
    static let classic = "classic"
}

/// The contract's step ids for StatLocker, in flow order. Clients rely on them: never rename.
enum StepID {
    static let sport = "sport"
    static let welcomeJourney = "welcome_journey"
    static let teamGender = "team_gender"
    static let profileDetails = "profile_details"
    static let position = "position"
    static let teamInfo = "team_info"
    static let seasonGoals = "season_goals"
    static let goalsLockedIn = "goals_locked_in"
    static let toneQuiz = "tone_quiz"
    static let almostThere = "almost_there"
    static let review = "review"
}

/// The contract's field ids for StatLocker, fixed like the step ids.
enum FieldID {
    static let sport = "sport"
    static let teamGender = "teamGender"
    static let gradYear = "gradYear"
    static let level = "level"
    static let position = "position"
    static let hsTeamName = "hsTeamName"
    static let hsCity = "hsCity"
    static let hsState = "hsState"
    static let hasClubTeam = "hasClubTeam"
    static let clubTeamName = "clubTeamName"
    static let clubCity = "clubCity"
    static let clubState = "clubState"
    static let seasonGoals = "seasonGoals"
    static let aiTone = "aiTone"
}
