import PlatformCore
import PlatformServer
import PlatformStorage

/// One girls' JV midfielder's answers to every step before the review, as the walks through the
/// binary (stdio and the Swift client) send them: untrimmed text, a club team, two library goals
/// and a custom one.
enum WalkAnswers {
    static let lacrosseMidfielder: [(step: String, values: [String: JSONValue])] = [
        ("sport", ["sport": "lacrosse"]),
        ("welcome_journey", [:]),
        ("team_gender", ["teamGender": "girls"]),
        ("profile_details", ["gradYear": 2026, "level": "JV"]),
        ("position", ["position": "Midfield"]),
        (
            "team_info",
            [
                "hsTeamName": " Duxbury High School ", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
            ]
        ),
        ("season_goals", ["seasonGoals": ["g-mid-jv-dc-50", "g-mid-jv-goals-28", ["title": "Win 60% of draws", "targetValue": 60, "unit": "%"]]]),
        ("goals_locked_in", [:]),
        ("tone_quiz", ["aiTone": "Analyst"]),
        ("almost_there", [:]),
    ]
}
