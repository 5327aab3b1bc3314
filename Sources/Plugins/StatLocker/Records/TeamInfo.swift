/// The `team` record: seed 000's TeamInfo (D-002). The club keys are always written, `null`
/// without a club.
struct TeamInfo: Codable, Sendable, Hashable {
    static let recordName = "team"

    var hsTeamName: String
    var hsCity: String
    /// A USPS code of the 50 states or DC.
    var hsState: String
    var hasClubTeam: Bool
    var clubTeamName: String?
    var clubCity: String?
    var clubState: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hsTeamName, forKey: .hsTeamName)
        try container.encode(hsCity, forKey: .hsCity)
        try container.encode(hsState, forKey: .hsState)
        try container.encode(hasClubTeam, forKey: .hasClubTeam)
        try container.encode(clubTeamName, forKey: .clubTeamName)
        try container.encode(clubCity, forKey: .clubCity)
        try container.encode(clubState, forKey: .clubState)
    }
}
