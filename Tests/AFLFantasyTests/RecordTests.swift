import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AFLFantasy

/// The typed `account` record (`Account`) reads and writes exactly the JSON a real completion
/// puts on the wire.
@Suite struct RecordTests {
    /// Decodes a record from `profile.get` and encodes it again: the same JSON, byte for byte.
    func roundTrip<Record: Codable>(_ type: Record.Type, _ wire: JSONValue?) throws -> Record {
        let wire = try #require(wire)
        let record = try wire.decode(Record.self)
        #expect(try JSONValue(encoding: record).serialized() == wire.serialized())
        return record
    }

    @Test func theExistingPathRoundTripsWithoutAGuide() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        let view = try await d.walk(try await atTeamChoice(d), [Answers.existingTeam, Answers.personal, Answers.credentials, [:]])
        #expect(view.status == .completed)
        let wire = try await d.profile("u1")["records"]?["account"]
        #expect(
            try roundTrip(Account.self, wire)
                == Account(
                    firstName: "Jordan Lee", email: "jordan@example.com.au", teamId: "123456", teamName: "Bont's Bandits",
                    hasExistingTeam: true, teamChoiceSkipped: false, path: .existing, teamValidation: .passed))
        #expect(wire?.objectValue?["guide"] == nil)
    }

    @Test func theCreatedPathRoundTripsWithItsGuideAndANullTeamName() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: UnreachableValidator()), clock: clock)
        var view = try await d.submit(try await atTeamChoice(d), Answers.newTeam)
        clock.advance(seconds: 42.5)
        view = try await d.walk(view, [Answers.allItems, Answers.personal, Answers.team("98765"), [:]])
        #expect(view.status == .completed)
        let wire = try await d.profile("u1")["records"]?["account"]
        let account = try roundTrip(Account.self, wire)
        #expect(account.teamName == nil)
        #expect(wire?.objectValue?["teamName"] == .null)
        #expect(account.path == .created)
        #expect(account.teamValidation == .fallback)
        #expect(
            account.guide
                == Account.Guide(
                    completedItems: ["visit_website", "sign_in", "pick_squad", "save_team", "find_team_id"],
                    skipped: false, secondsSpent: 42.5))
    }
}
