import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import StatLocker

/// "Enter Your Locker": the re-check, the records, the cleared progress, and what can change later.
@Suite struct CompletionTests {
    @Test func completionWritesProfileAndTeamAndClearsProgress() async throws {
        let d = try await makeDriver()
        let review = try await d.started("athlete-7", at: "review")
        let done = try await d.submit(review)
        #expect(done.status == .completed)
        #expect(done.step == nil)
        #expect(done.completion?["message"] == "Welcome to StatLocker, Alex!")
        #expect(done.completion?["records"] == ["profile", "team"])
        #expect(done.progressLabel == "Step 11 of 11")

        let stored = try await d.profile("athlete-7")
        #expect(stored["userId"] == "athlete-7")
        #expect(stored["completedAt"]?.stringValue == Timestamp.string(d.clock.now))
        let profile = try #require(stored["records"]?["profile"]?.objectValue)
        #expect(
            Set(profile.keys) == [
                "id", "userId", "firstName", "lastName", "email", "sport", "teamGender", "gradYear", "level", "position",
                "aiTone", "seasonGoals", "onboardingCompleted", "createdAt",
            ])
        #expect(UUID(uuidString: profile["id"]?.stringValue ?? "") != nil)
        #expect(profile["userId"] == "athlete-7")
        #expect(profile["firstName"] == "Alex")
        #expect(profile["lastName"] == "Morgan")
        #expect(profile["email"] == "alex@example.com")
        #expect(profile["sport"] == "lacrosse")
        #expect(profile["teamGender"] == "boys")
        #expect(profile["gradYear"] == 2027)
        #expect(profile["level"] == "Varsity")
        #expect(profile["position"] == "Goalie")
        #expect(profile["aiTone"] == "Hype")
        #expect(profile["onboardingCompleted"] == true)
        #expect(profile["createdAt"]?.stringValue == Timestamp.string(d.clock.now))

        let goals = try #require(profile["seasonGoals"]?.arrayValue)
        #expect(goals.count == 3)
        #expect(
            goals[0] == [
                "id": "gk-var-savepct-60", "title": "60%+ save percentage", "targetValue": 0.6, "currentValue": 0,
                "unit": "%", "metricType": "percent", "trackingKey": "save_pct", "isCustom": false,
            ])
        #expect(
            goals[1] == [
                "id": "gk-var-saves-200", "title": "200+ saves (season)", "targetValue": 200, "currentValue": 0,
                "unit": "saves", "metricType": "count", "trackingKey": "saves", "isCustom": false,
            ])
        let customGoal = goals[2]
        #expect(UUID(uuidString: customGoal["id"]?.stringValue ?? "") != nil)
        #expect(customGoal["title"] == "Improve weak-side coverage")
        #expect(customGoal["targetValue"] == 10)
        #expect(customGoal["unit"] == "games")
        #expect(customGoal["currentValue"] == 0)
        #expect(customGoal["isCustom"] == true)
        #expect(customGoal["metricType"] == "count")
        #expect(customGoal["trackingKey"] == "custom")

        #expect(
            stored["records"]?["team"] == [
                "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": false,
                "clubTeamName": nil, "clubCity": nil, "clubState": nil,
            ])

        // The saved progress is gone: the session has no step, no path to go back on, nothing to resubmit.
        let again = try await d.start("athlete-7", user: alex)
        #expect(again.status == .completed)
        #expect(again.step == nil)
        #expect(await d.error("flow.back", ["sessionId": .string(again.sessionId), "revision": .int(Int64(again.revision))])?.code == -32005)
        #expect(
            await d.error(
                "flow.goto",
                [
                    "sessionId": .string(again.sessionId), "stepId": "tone_quiz", "revision": .int(Int64(again.revision)),
                ])?.code == -32005)
        // A lost reply can be fetched by resending the last submit.
        #expect(try await d.submit(review).status == .completed)
    }

    @Test func teamRecordWithAClub() async throws {
        let d = try await makeDriver()
        _ = try await d.completed(overrides: [
            "team_info": [
                "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
            ]
        ])
        #expect(
            try await d.profile("u1")["records"]?["team"] == [
                "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
            ])
    }

    @Test func qualitativeCustomGoalHasNoTarget() async throws {
        let d = try await makeDriver()
        _ = try await d.completed(overrides: [
            "season_goals": ["seasonGoals": [custom("Be a vocal leader"), custom("Own the crease", unit: "games"), "gk-var-ga-8"]]
        ])
        let goals = try await d.profile("u1")["records"]?["profile"]?["seasonGoals"]?.arrayValue ?? []
        #expect(goals.map { $0["isCustom"] } == [true, true, false])
        #expect(goals[0]["targetValue"] == .null)
        #expect(goals[0]["unit"] == "")
        #expect(goals[1]["unit"] == "games")
        #expect(goals[0]["id"] != goals[1]["id"])
        #expect(goals[2]["targetValue"] == 8)
        #expect(goals[2]["metricType"] == "max")
    }

    @Test func customPercentGoalsAreKeptAsFractions() async throws {
        let d = try await makeDriver()
        _ = try await d.completed(overrides: [
            "season_goals": [
                "seasonGoals": [custom("Win 70% of ground balls", target: 70, unit: "%"), custom("Clear rate", target: 0.85, unit: "%"), "gk-var-ga-8"]
            ]
        ])
        let goals = try await d.profile("u1")["records"]?["profile"]?["seasonGoals"]?.arrayValue ?? []
        #expect(goals[0]["targetValue"] == 0.7)
        #expect(goals[0]["metricType"] == "percent")
        #expect(goals[1]["targetValue"] == 0.85)
        #expect(goals[1]["metricType"] == "percent")
    }

    @Test func accountDetailsMissingAreEmptyAndTheMessageUsesTheNameRule() async throws {
        let d = try await makeDriver()
        let done = try await d.completed(user: UserDetails(email: "jordan.lee@example.com"))
        #expect(done.completion?["message"] == "Welcome to StatLocker, jordan.lee!")
        let profile = try await d.profile("u1")["records"]?["profile"]
        #expect(profile?["firstName"] == "")
        #expect(profile?["lastName"] == "")
        #expect(profile?["email"] == "jordan.lee@example.com")

        let anonymous = try await d.completed("u2", user: nil)
        #expect(anonymous.completion?["message"] == "Welcome to StatLocker, Athlete!")
    }

    @Test func profileIsNotFoundBeforeCompletionAndGatesOpenAfter() async throws {
        let d = try await makeDriver()
        let review = try await d.started(at: "review")
        #expect(await d.error("profile.get", ["userId": "u1"])?.code == -32002)
        let blocked = try await d.expectBlocked("u1", "log_game", by: "onboarding")
        #expect(blocked.title == "Finish building your Locker")
        _ = try await d.submit(review)
        try await d.expectAllowed("u1", "log_game")
    }

    @Test func reviewRechecksTheWholeFlow() async throws {
        // A session saved under a library that has since dropped one of its picks.
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let clock = TestClock()
        let before = try await FlowDriver(plugin: StatLockerPlugin(), store: store, clock: clock)
        let review = try await before.started(at: "review")

        let trimmed = try GoalsLibrary(goals: GoalsLibrary.shared.goals.filter { $0.id != "gk-var-saves-200" })
        let after = try await FlowDriver(plugin: StatLockerPlugin(library: trimmed), store: store, clock: clock)
        let error = await after.refuse(review)
        expectFieldError(error, field: "seasonGoals", code: .notAnOption)
        #expect(error?.session?.stepId == "review")
        #expect(error?.session?.status == .active)
        #expect(await after.error("profile.get", ["userId": "u1"])?.code == -32002)

        // Editing the goals fixes it.
        let goals = try await after.goto(try await after.get(review), "season_goals")
        let fixed = try await after.walk(
            goals, to: "review",
            overrides: [
                "season_goals": ["seasonGoals": ["gk-var-savepct-60", "gk-var-ga-8", custom("Improve weak-side coverage")]]
            ])
        #expect(try await after.submit(fixed).status == .completed)
    }

    /// Record ids come from the server's generator through the step context: known in advance
    /// here. A custom goal kept by `profile.update` keeps its id; a new one takes the next.
    @Test func idsComeFromTheServersGenerator() async throws {
        let d = try await FlowDriver(plugin: StatLockerPlugin(), newID: SequentialIDs().next)
        let review = try await d.started("athlete-7", at: "review")
        #expect(review.sessionId == "id-1")
        #expect(try await d.submit(review).status == .completed)
        let profile = try #require(try await d.profile("athlete-7")["records"]?["profile"])
        #expect(profile["id"] == "id-2")
        #expect(
            profile["seasonGoals"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [
                "gk-var-savepct-60", "gk-var-saves-200", "id-3",
            ])

        let goals: JSONValue = ["gk-var-savepct-60", custom("Improve weak-side coverage"), custom("Lead the defense")]
        let updated = try await d.call("profile.update", ["userId": "athlete-7", "values": ["seasonGoals": goals]])
        #expect(
            updated["records"]?["profile"]?["seasonGoals"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [
                "gk-var-savepct-60", "id-3", "id-4",
            ])
    }

    @Test func reviewReportsEveryMissingOrInvalidAnswer() throws {
        let plugin = StatLockerPlugin()
        let flow = try #require(plugin.flow("onboarding"))
        let review = try #require(flow.step("review") as? LockerReviewStep)
        var context = StepContext(tenant: "statlocker", userId: "u1", displayName: "Alex", now: Date())
        let empty = review.validate([:], in: context)
        #expect(
            Set(empty.compactMap(\.field)) == [
                "sport", "teamGender", "gradYear", "level", "position", "hsTeamName", "hsCity", "hsState", "seasonGoals", "aiTone",
            ])
        #expect(empty.allSatisfy { $0.code == .required || $0.code == .notAnOption })

        context.answers = [
            "sport": ["sport": "basketball"],
            "team_gender": ["teamGender": "girls"],
            "profile_details": ["gradYear": 2031, "level": "Varsity"],
            "position": ["position": "FOGO"],
            "team_info": ["hsTeamName": "Duxbury", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true],
            "season_goals": ["seasonGoals": ["gk-var-savepct-60", "gk-var-ga-8", custom("OK")]],
            "tone_quiz": ["aiTone": "Hype"],
        ]
        let codes = Dictionary(review.validate([:], in: context).map { ($0.field ?? "", $0.code) }, uniquingKeysWith: { a, _ in a })
        #expect(codes["sport"] == .locked)
        #expect(codes["gradYear"] == .outOfRange)
        #expect(codes["position"] == .notAnOption)
        #expect(codes["clubTeamName"] == .required)
        #expect(codes["clubCity"] == .required)
        #expect(codes["clubState"] == .required)
        #expect(codes["seasonGoals"] == .notAnOption)
        #expect(codes["aiTone"] == nil)
        #expect(codes["level"] == nil)
    }
}

/// `profile.update`: tone and goals after onboarding, with the flow's rules.
@Suite struct ProfileUpdateTests {
    func update(_ d: FlowDriver, _ values: [String: JSONValue]) async throws -> JSONValue {
        try await d.call("profile.update", ["userId": "u1", "values": .object(values)])
    }

    func refusal(_ d: FlowDriver, _ values: [String: JSONValue]) async -> RPCError? {
        await d.error("profile.update", ["userId": "u1", "values": .object(values)])
    }

    @Test func notBeforeCompletion() async throws {
        let d = try await makeDriver()
        _ = try await d.started(at: "review")
        #expect(await refusal(d, ["aiTone": "Mentor"])?.code == -32002)
    }

    @Test func toneCanChange() async throws {
        let d = try await makeDriver()
        _ = try await d.completed()
        let updated = try await update(d, ["aiTone": "Analyst"])
        #expect(updated["records"]?["profile"]?["aiTone"] == "Analyst")
        #expect(try await d.profile("u1")["records"]?["profile"]?["aiTone"] == "Analyst")
        expectFieldError(await refusal(d, ["aiTone": "Chill"]), field: "aiTone", code: .notAnOption)
    }

    @Test func onlyToneAndGoalsAreEditable() async throws {
        let d = try await makeDriver()
        _ = try await d.completed()
        for key in ["position", "level", "hsTeamName", "firstName", "onboardingCompleted"] {
            expectFieldError(await refusal(d, [key: "x"]), field: key, code: .notEditable)
        }
        let editable = StatLockerPlugin().editableFields.map(\.id)
        #expect(editable == ["aiTone", "seasonGoals"])
    }

    @Test func goalsAreCheckedAgainstThePlayersPositionAndLevel() async throws {
        let d = try await makeDriver()
        _ = try await d.completed()
        let before = try await d.profile("u1")["records"]?["profile"]?["seasonGoals"]?.arrayValue ?? []
        let customId = before[2]["id"]

        let updated = try await update(
            d,
            [
                "seasonGoals": [
                    "gk-var-ga-8", "gk-var-saves-200", custom("improve WEAK-side coverage", target: 12, unit: "games"),
                ]
            ])
        let goals = updated["records"]?["profile"]?["seasonGoals"]?.arrayValue ?? []
        #expect(goals.map { $0["id"] } == ["gk-var-ga-8", "gk-var-saves-200", customId ?? nil])
        #expect(goals[2]["targetValue"] == 12)
        #expect(goals[2]["title"] == "improve WEAK-side coverage")
        #expect(goals[0]["targetValue"] == 8)
        #expect(goals[0]["metricType"] == "max")

        expectFieldError(
            await refusal(d, ["seasonGoals": ["gk-var-ga-8", "gk-var-saves-200", "gk-jv-ga-10"]]),
            field: "seasonGoals", code: .notAnOption)
        expectFieldError(
            await refusal(d, ["seasonGoals": ["gk-var-ga-8", "gk-var-saves-200", "no-such-goal"]]),
            field: "seasonGoals", code: .notAnOption)
        expectFieldError(
            await refusal(d, ["seasonGoals": ["gk-var-ga-8", "gk-var-saves-200"]]),
            field: "seasonGoals", code: .count)
        expectFieldError(
            await refusal(d, ["seasonGoals": ["gk-var-ga-8", "gk-var-ga-8", "gk-var-saves-200"]]),
            field: "seasonGoals", code: .duplicate)
        expectFieldError(
            await refusal(d, ["seasonGoals": ["gk-var-ga-8", "gk-var-saves-200", custom("No")]]),
            field: "seasonGoals", code: .tooShort)
        expectFieldError(
            await refusal(d, ["seasonGoals": ["gk-var-ga-8", "gk-var-saves-200", custom("200+ SAVES (season)")]]),
            field: "seasonGoals", code: .duplicate)
        // Nothing was written by the refused updates.
        let after = try await d.profile("u1")["records"]?["profile"]?["seasonGoals"]?.arrayValue ?? []
        #expect(after.map { $0["id"] } == ["gk-var-ga-8", "gk-var-saves-200", customId ?? nil])
    }

    @Test func girlsGoalsForAGirlsPlayer() async throws {
        let d = try await makeDriver()
        _ = try await d.completed(overrides: [
            "team_gender": ["teamGender": "girls"],
            "profile_details": ["gradYear": 2026, "level": "JV"],
            "position": ["position": "Attack"],
            "season_goals": ["seasonGoals": ["g-att-jv-goals-40", "g-att-jv-dc-12", "g-att-jv-gb-16"]],
        ])
        let updated = try await update(d, ["seasonGoals": ["g-att-jv-shotpct-40", "g-att-jv-dc-12", custom("Draw control wins")]])
        let goals = updated["records"]?["profile"]?["seasonGoals"]?.arrayValue ?? []
        #expect(goals.first?["targetValue"] == 0.4)
        #expect(goals.first?["unit"] == "%")
        expectFieldError(
            await refusal(d, ["seasonGoals": ["g-att-jv-shotpct-40", "g-att-jv-dc-12", "att-jv-goals-32"]]),
            field: "seasonGoals", code: .notAnOption)
    }
}
