import PlatformCore

/// The contract's step ids for AFL Fantasy, in flow order (the guide is the branch to
/// `personal_info`). Clients rely on them: never rename.
enum StepID {
    static let splash = "splash"
    static let welcome = "welcome"
    static let teamChoice = "team_choice"
    static let createTeamGuide = "create_team_guide"
    static let personalInfo = "personal_info"
    static let credentials = "credentials"
    static let validation = "validation"
}

/// The contract's field ids for AFL Fantasy, fixed like the step ids.
enum FieldID {
    static let hasExistingTeam = "hasExistingTeam"
    static let completedItems = "completedItems"
    static let firstName = "firstName"
    static let email = "email"
    static let teamId = "teamId"
    static let teamName = "teamName"
}

/// Which way a user came through team choice, as kept in the `account` record.
enum OnboardingPath: String, Codable, Sendable {
    /// Connected a team they already had (or skipped team choice: the seed's original flow).
    case existing
    /// Went through the create-team guide.
    case created

    init(_ context: StepContext) {
        self = context.path.contains(StepID.createTeamGuide) ? .created : .existing
    }
}

extension StepContext {
    /// The name the copy uses: the first name given on `personal_info` once there is one,
    /// before that the contract's display-name rule (plugin default "Coach").
    var coachName: String {
        if let given = value(of: FieldID.firstName)?.stringValue?.split(whereSeparator: \.isWhitespace).first {
            return String(given)
        }
        return displayName
    }
}
