import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import StatLocker

/// The typed records (`AthleteProfile`, `SeasonGoal`, `TeamInfo`) read and write exactly the JSON
/// a real completion puts on the wire.
@Suite struct RecordTests {
    /// Decodes a record from `profile.get` and encodes it again: the same JSON, byte for byte.
    func roundTrip<Record: Codable>(_ type: Record.Type, _ wire: JSONValue?) throws -> Record {
        let wire = try #require(wire)
        let record = try wire.decode(Record.self)
        #expect(try JSONValue(encoding: record).serialized() == wire.serialized())
        return record
    }

    @Test func recordsOfTheDefaultWalkRoundTrip() async throws {
        let d = try await makeDriver()
        _ = try await d.completed("athlete-7")
        let records = try await d.profile("athlete-7")["records"]

        let athlete = try roundTrip(AthleteProfile.self, records?["profile"])
        #expect(athlete.userId == "athlete-7")
        #expect(athlete.gradYear == 2027)
        #expect(athlete.createdAt == d.clock.now)
        #expect(athlete.seasonGoals.map(\.id).prefix(2) == ["gk-var-savepct-60", "gk-var-saves-200"])
        #expect(athlete.seasonGoals[0].targetValue == 0.6)
        #expect(athlete.seasonGoals[2].isCustom)
        #expect(athlete.seasonGoals[2].targetValue == 10)

        // Without a club the club keys are present and null.
        let team = try roundTrip(TeamInfo.self, records?["team"])
        #expect(
            team
                == TeamInfo(
                    hsTeamName: "Duxbury High School", hsCity: "Duxbury", hsState: "MA", hasClubTeam: false,
                    clubTeamName: nil, clubCity: nil, clubState: nil))
        #expect(records?["team"]?["clubTeamName"] == .null)
    }

    @Test func aClubAndGoalsWithoutTargetsRoundTrip() async throws {
        let d = try await makeDriver()
        _ = try await d.completed(overrides: [
            "team_info": [
                "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
            ],
            "season_goals": ["seasonGoals": [custom("Be a vocal leader"), custom("Win 70% of ground balls", target: 70, unit: "%"), "gk-var-ga-8"]],
        ])
        let records = try await d.profile("u1")["records"]

        let goals = try roundTrip(AthleteProfile.self, records?["profile"]).seasonGoals
        #expect(goals[0].targetValue == nil)
        #expect(records?["profile"]?["seasonGoals"]?.arrayValue?.first?["targetValue"] == .null)
        #expect(goals[1].targetValue == 0.7)
        #expect(goals[1].metricType == "percent")
        #expect(goals[2].targetValue == 8)

        #expect(try roundTrip(TeamInfo.self, records?["team"]).clubCity == "Boston")
    }

    @Test func profileUpdateRewritesTheTypedRecord() async throws {
        let d = try await makeDriver()
        _ = try await d.completed()
        let before = try await d.profile("u1")["records"]?["profile"]?.decode(AthleteProfile.self)
        let updated = try await d.call("profile.update", ["userId": "u1", "values": ["aiTone": "Mentor"]])
        var expected = try #require(before)
        expected.aiTone = "Mentor"
        #expect(try roundTrip(AthleteProfile.self, updated["records"]?["profile"]) == expected)
    }
}
