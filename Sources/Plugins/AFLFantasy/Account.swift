import PlatformCore

/// The `account` record: who connected which team, which way they came, how the team was
/// checked, and the create-team guide when it was shown.
struct Account: Codable, Sendable, Hashable {
    static let recordName = "account"

    var firstName: String
    var email: String
    /// 4-10 digits.
    var teamId: String
    /// The user's answer, else the validator's name for the team; nil (written as `null`) when neither.
    var teamName: String?
    /// True on the existing path (a skipped team choice counts as existing), false after the guide.
    var hasExistingTeam: Bool
    var teamChoiceSkipped: Bool
    var path: OnboardingPath
    var teamValidation: TeamValidationOutcome
    /// Present whenever the guide was shown, on the final path or on a branch left by going back.
    var guide: Guide?

    /// What the user did on `create_team_guide`.
    struct Guide: Codable, Sendable, Hashable {
        /// The ticked item ids; empty when skipped.
        var completedItems: [String]
        var skipped: Bool
        /// Seconds on the guide, summed over every visit (from the server's events).
        var secondsSpent: Double
    }

    /// `teamName` is always written (`null` when unknown); `guide` only when it was shown.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(firstName, forKey: .firstName)
        try container.encode(email, forKey: .email)
        try container.encode(teamId, forKey: .teamId)
        try container.encode(teamName, forKey: .teamName)
        try container.encode(hasExistingTeam, forKey: .hasExistingTeam)
        try container.encode(teamChoiceSkipped, forKey: .teamChoiceSkipped)
        try container.encode(path, forKey: .path)
        try container.encode(teamValidation, forKey: .teamValidation)
        try container.encodeIfPresent(guide, forKey: .guide)
    }
}

/// How the team was checked on `validation`, as kept in the `account` record.
enum TeamValidationOutcome: String, Codable, Sendable {
    /// The configured validator accepted the team (the default offline one checks only its form).
    case passed
    /// The validator failed or timed out; the team was accepted on its form.
    case fallback
}
