import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AFLFantasy

/// The seed's "UX Metrics to Track", read from `analytics.funnel` after nine simulated users:
/// team-choice distribution, guide time and skips, completion by path, drop-off by step.
@Suite struct UXMetricsTests {
    let clock = TestClock()
    let validator = ScriptedValidator(refused: ["111111": "We couldn't find that team."])

    /// Spends `seconds` on the current step, then submits it.
    func after(
        _ seconds: Double, _ d: FlowDriver, _ view: SessionView, _ values: [String: JSONValue] = [:],
        action: String = "continue"
    ) async throws -> SessionView {
        clock.advance(seconds: seconds)
        return try await d.submit(view, values, action: action)
    }

    /// Starts `user` and spends 1 s on the splash and `welcome` s on the welcome screen.
    func toTeamChoice(_ d: FlowDriver, _ user: String, welcome: Double = 2) async throws -> SessionView {
        let view = try await d.start(user)
        return try await after(welcome, d, try await after(1, d, view))
    }

    /// u1-u9, their seconds per step in the comments' order.
    func populate(_ d: FlowDriver) async throws {
        // u1 existing, completes: team choice 5, personal 20, credentials 10, validation 1.
        var v = try await toTeamChoice(d, "u1")
        v = try await after(5, d, v, Answers.existingTeam)
        v = try await after(20, d, v, Answers.personal)
        v = try await after(10, d, v, Answers.credentials)
        v = try await after(1, d, v)
        #expect(v.status == .completed)
        // u2 creates, completes: team choice 8, guide 120, personal 15, credentials 12, validation 1.
        v = try await toTeamChoice(d, "u2")
        v = try await after(8, d, v, Answers.newTeam)
        v = try await after(120, d, v, Answers.fourItems)
        v = try await after(15, d, v, Answers.personal)
        v = try await after(12, d, v, Answers.credentials)
        v = try await after(1, d, v)
        #expect(v.status == .completed)
        // u3 creates, skips the guide after 30 s, completes: team choice 6, personal 20, credentials 10.
        v = try await toTeamChoice(d, "u3")
        v = try await after(6, d, v, Answers.newTeam)
        v = try await after(30, d, v, action: "skip")
        v = try await after(20, d, v, Answers.personal)
        v = try await after(10, d, v, Answers.credentials)
        v = try await after(1, d, v)
        #expect(v.status == .completed)
        // u4 skips team choice (welcome 3, team choice 4), completes: personal 18, credentials 9.
        v = try await toTeamChoice(d, "u4", welcome: 3)
        v = try await after(4, d, v, action: "skip")
        v = try await after(18, d, v, Answers.personal)
        v = try await after(9, d, v, Answers.credentials)
        v = try await after(1, d, v)
        #expect(v.status == .completed)
        // u5 creates (team choice 9), ticks two items, is refused and leaves on the guide.
        v = try await toTeamChoice(d, "u5")
        v = try await after(9, d, v, Answers.newTeam)
        clock.advance(seconds: 50)
        #expect(await d.refuse(v, ["completedItems": ["visit_website", "sign_in"]])?.code == -32004)
        // u6 existing (team choice 3, personal 25), leaves on credentials.
        v = try await toTeamChoice(d, "u6")
        v = try await after(3, d, v, Answers.existingTeam)
        v = try await after(25, d, v, Answers.personal)
        #expect(v.stepId == "credentials")
        // u7 leaves on team choice.
        v = try await toTeamChoice(d, "u7")
        clock.advance(seconds: 15)
        // u8 creates (team choice 7), goes back from the guide after 10 s, picks existing
        // (team choice 4 more) and leaves on personal info.
        v = try await toTeamChoice(d, "u8")
        v = try await after(7, d, v, Answers.newTeam)
        clock.advance(seconds: 10)
        v = try await d.back(v)
        v = try await after(4, d, v, Answers.existingTeam)
        #expect(v.stepId == "personal_info")
        // u9 creates (team choice 5, guide 60, personal 10), is refused once (credentials 8,
        // validation 1), fixes the Team ID (credentials 5, validation 1) and completes.
        v = try await toTeamChoice(d, "u9")
        v = try await after(5, d, v, Answers.newTeam)
        v = try await after(60, d, v, Answers.allItems)
        v = try await after(10, d, v, Answers.personal)
        v = try await after(8, d, v, Answers.team("111111"))
        v = try await after(1, d, v)
        #expect(v.stepId == "credentials")
        v = try await after(5, d, v, Answers.team("222222"))
        v = try await after(1, d, v)
        #expect(v.status == .completed)
    }

    func funnel() async throws -> (FlowDriver, JSONValue) {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: validator), clock: clock)
        try await populate(d)
        return (d, try await d.call("analytics.funnel", [:]))
    }

    func step(_ funnel: JSONValue, _ id: String) -> JSONValue? {
        funnel["steps"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    func branch(_ funnel: JSONValue, to target: String) -> JSONValue? {
        funnel["branches"]?.arrayValue?.first { $0["from"] == "team_choice" && $0["to"]?.stringValue == target }
    }

    func skips(_ funnel: JSONValue, _ id: String) -> Int {
        funnel["skips"]?.arrayValue?.first { $0["step"]?.stringValue == id }?["count"]?.intValue ?? 0
    }

    @Test func everyFigureOfTheFunnel() async throws {
        let (_, funnel) = try await funnel()
        #expect(funnel["started"] == 9)
        #expect(funnel["completed"] == 5)
        #expect(funnel["deferred"] == 0)
        #expect(funnel["rejected"] == 0)
        #expect(funnel["completionRate"] == 0.5556)
        #expect(
            funnel["steps"] == [
                ["id": "splash", "reached": 9, "left": 9, "dropped": 0, "medianSeconds": 1],
                ["id": "welcome", "reached": 9, "left": 9, "dropped": 0, "medianSeconds": 2],
                ["id": "team_choice", "reached": 9, "left": 8, "dropped": 1, "medianSeconds": 5.5],
                ["id": "create_team_guide", "reached": 5, "left": 4, "dropped": 1, "medianSeconds": 45],
                ["id": "personal_info", "reached": 7, "left": 6, "dropped": 1, "medianSeconds": 19],
                ["id": "credentials", "reached": 6, "left": 5, "dropped": 1, "medianSeconds": 10],
                ["id": "validation", "reached": 5, "left": 5, "dropped": 0, "medianSeconds": 1],
            ])
        #expect(
            funnel["branches"] == [
                ["from": "team_choice", "to": "personal_info", "count": 4, "completed": 2],
                ["from": "team_choice", "to": "create_team_guide", "count": 5, "completed": 3],
            ])
        #expect(funnel["skips"] == [["step": "team_choice", "count": 1], ["step": "create_team_guide", "count": 1]])
    }

    /// Metric 1: % choosing "Connect Existing Team" vs "I Need to Create One". A skip counts with
    /// the existing-team branch (it takes that flow); `skips` tells it apart.
    @Test func teamChoiceDistribution() async throws {
        let (_, funnel) = try await funnel()
        let existing = try #require(branch(funnel, to: "personal_info")?["count"]?.intValue)
        let create = try #require(branch(funnel, to: "create_team_guide")?["count"]?.intValue)
        let skipped = skips(funnel, "team_choice")
        #expect((existing, create, skipped) == (4, 5, 1))
        // u8 tried both ways, so the branches overlap by one session out of the 8 that chose.
        let chose = try #require(step(funnel, "team_choice")?["left"]?.intValue)
        #expect(chose == 8)
        #expect(Double(create) / Double(existing + create) == 5.0 / 9.0)
    }

    /// Metric 2: CreateGuide engagement, its time (median of each session's summed seconds,
    /// u2 120, u3 30, u8 10, u9 60) and skip frequency (u3 of the 5 who reached it).
    @Test func guideTimeAndSkipRate() async throws {
        let (d, funnel) = try await funnel()
        let guide = try #require(step(funnel, "create_team_guide"))
        #expect(guide["medianSeconds"] == 45)
        let reached = try #require(guide["reached"]?.intValue)
        #expect(Double(skips(funnel, "create_team_guide")) / Double(reached) == 0.2)
        // The same seconds the account records for a session that completed through the guide.
        #expect(try await d.profile("u2")["records"]?["account"]?["guide"]?["secondsSpent"] == 120)
        #expect(try await d.profile("u3")["records"]?["account"]?["guide"]?["secondsSpent"] == 30)
        #expect(try await d.profile("u9")["records"]?["account"]?["guide"]?["secondsSpent"] == 60)
        // Team choice's skip rate, for comparison: u4 of 9.
        let teamChoiceReached = try #require(step(funnel, "team_choice")?["reached"]?.intValue)
        #expect(Double(skips(funnel, "team_choice")) / Double(teamChoiceReached) == 1.0 / 9.0)
    }

    /// Metric 3: flow completion by path, from each branch's `completed`.
    @Test func completionByPath() async throws {
        let (_, funnel) = try await funnel()
        let existing = try #require(branch(funnel, to: "personal_info"))
        let created = try #require(branch(funnel, to: "create_team_guide"))
        // Existing: u1 and u4 of u1, u4, u6, u8. Created: u2, u3 and u9 of u2, u3, u5, u8, u9.
        #expect(existing["completed"] == 2)
        #expect(existing["count"] == 4)
        #expect(created["completed"] == 3)
        #expect(created["count"] == 5)
        #expect(funnel["completionRate"] == 0.5556)
    }

    /// Metric 4: where users abandon the flow: the step each unfinished session last arrived on.
    @Test func dropOffByStep() async throws {
        let (_, funnel) = try await funnel()
        let dropped = Dictionary(
            uniqueKeysWithValues: try #require(funnel["steps"]?.arrayValue).compactMap { step in
                step["id"]?.stringValue.map { ($0, step["dropped"]?.intValue ?? -1) }
            })
        #expect(
            dropped == [
                "splash": 0, "welcome": 0, "team_choice": 1, "create_team_guide": 1, "personal_info": 1,
                "credentials": 1, "validation": 0,
            ])
        let started = try #require(funnel["started"]?.intValue)
        let completed = try #require(funnel["completed"]?.intValue)
        #expect(dropped.values.reduce(0, +) == started - completed)
    }
}
