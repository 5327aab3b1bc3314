import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AFLFantasy

/// The seed's two flows end to end, the skips, back along the path taken, and progress.
@Suite struct PathTests {
    @Test func existingTeamPathEndToEnd() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(), clock: clock)
        var view = try await d.start("u1")
        #expect(view.stepId == "splash")
        #expect(view.step?["kind"] == "content")
        view = try await d.submit(view)
        #expect(view.stepId == "welcome")
        #expect(view.title == "Welcome to AFL Fantasy, Coach!")
        view = try await d.submit(view)
        #expect(view.stepId == "team_choice")
        view = try await d.submit(view, Answers.existingTeam)
        #expect(view.stepId == "personal_info")
        view = try await d.submit(view, Answers.personal)
        #expect(view.stepId == "credentials")
        #expect(view.title == "Connect your team, Jordan")
        view = try await d.submit(view, Answers.credentials)
        #expect(view.stepId == "validation")
        #expect(view.step?["kind"] == "processing")
        #expect(view.step?["content"]?["teamId"] == "123456")
        let done = try await d.submit(view)
        #expect(done.status == .completed)
        #expect(done.step == nil)
        #expect(done.completion?["message"] == "Welcome to AFL Fantasy, Jordan!")
        #expect(done.completion?["records"] == ["account"])
        #expect(
            done.completion?["screen"] == [
                "title": "You're All Set, Jordan!",
                "body": "Bont's Bandits is connected. Your trade insights, captain advice and cash cow alerts are ready.",
                "summary": [
                    ["label": "Coach", "value": "Jordan"],
                    ["label": "Team", "value": "Bont's Bandits"],
                    ["label": "Team ID", "value": "123456"],
                ],
                "actions": [["id": "open_dashboard", "label": "Go to My Team"]],
            ])
        let profile = try await d.profile("u1")
        #expect(
            profile["records"] == [
                "account": [
                    "firstName": "Jordan Lee", "email": "jordan@example.com.au", "teamId": "123456",
                    "teamName": "Bont's Bandits", "hasExistingTeam": true, "teamChoiceSkipped": false,
                    "path": "existing", "teamValidation": "passed",
                ]
            ])
        #expect(profile["completedAt"]?.stringValue.flatMap(Timestamp.date) == clock.now)
    }

    @Test func createTeamPathEndToEnd() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(), clock: clock)
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.newTeam)
        #expect(view.stepId == "create_team_guide")
        #expect(view.step?["kind"] == "checklist")
        clock.advance(seconds: 95)
        view = try await d.submit(view, Answers.fourItems)
        #expect(view.stepId == "personal_info")
        view = try await d.submit(view, Answers.personal)
        #expect(view.stepId == "credentials")
        #expect(view.step?["subtitle"] == "Enter the Team ID you just found on the AFL Fantasy website.")
        view = try await d.submit(view, Answers.team("98765"))
        #expect(view.stepId == "validation")
        let done = try await d.submit(view)
        #expect(done.status == .completed)
        #expect(
            done.completion?["screen"]?["body"]
                == "Your new team, Team 98765, is connected. Your trade insights, captain advice and cash cow alerts are ready.")
        let account = try await d.profile("u1")["records"]?["account"]
        #expect(
            account == [
                "firstName": "Jordan Lee", "email": "jordan@example.com.au", "teamId": "98765", "teamName": .null,
                "hasExistingTeam": false, "teamChoiceSkipped": false, "path": "created", "teamValidation": "passed",
                "guide": [
                    "completedItems": ["visit_website", "sign_in", "pick_squad", "find_team_id"],
                    "skipped": false, "secondsSpent": 95,
                ],
            ])
    }

    @Test func skipOnTeamChoiceTakesTheOriginalFlowAsAnExistingTeam() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        #expect(view.actions == ["continue", "skip", "back"])
        // skip ignores values: even "I need to create one" does not open the guide.
        view = try await d.submit(view, Answers.newTeam, action: "skip")
        #expect(view.stepId == "personal_info")
        #expect(view.progressLabel == "Step 3 of 6")
        view = try await d.walk(view, [Answers.personal, Answers.credentials, [:]])
        #expect(view.status == .completed)
        let account = try await d.profile("u1")["records"]?["account"]
        #expect(account?["path"] == "existing")
        #expect(account?["hasExistingTeam"] == true)
        #expect(account?["teamChoiceSkipped"] == true)
        #expect(account?["guide"] == nil)
    }

    @Test func skipOnTheGuideContinuesAndRecordsTheSkip() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(), clock: clock)
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.newTeam)
        #expect(view.actions == ["continue", "skip", "back"])
        #expect(view.step?["actions"]?.arrayValue?[1] == ["id": "skip", "label": "Skip for Now"])
        clock.advance(seconds: 12)
        // Two ticks would be refused on continue; skip ignores them.
        view = try await d.submit(view, ["completedItems": ["visit_website", "sign_in"]], action: "skip")
        #expect(view.stepId == "personal_info")
        view = try await d.walk(view, [Answers.personal, Answers.credentials, [:]])
        #expect(view.status == .completed)
        let account = try await d.profile("u1")["records"]?["account"]
        #expect(account?["path"] == "created")
        #expect(account?["guide"] == ["completedItems": [], "skipped": true, "secondsSpent": 12])
    }

    @Test func backFromPersonalInfoOnTheExistingPathGoesToTeamChoice() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.existingTeam)
        #expect(view.stepId == "personal_info")
        view = try await d.back(view)
        #expect(view.stepId == "team_choice")
        #expect(view.value("hasExistingTeam") == true)
        #expect(view.progressLabel == "Step 2 of 6")
        // Changing the answer now opens the guide, with back leading to team choice again.
        view = try await d.submit(view, Answers.newTeam)
        #expect(view.stepId == "create_team_guide")
        view = try await d.back(view)
        #expect(view.stepId == "team_choice")
    }

    @Test func backFromPersonalInfoOnTheCreatePathGoesToTheGuide() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(), clock: clock)
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.newTeam)
        clock.advance(seconds: 40)
        view = try await d.submit(view, Answers.fourItems)
        view = try await d.submit(view, Answers.personal)
        #expect(view.stepId == "credentials")
        view = try await d.back(view)
        #expect(view.stepId == "personal_info")
        #expect(view.value("firstName") == "Jordan Lee")
        view = try await d.back(view)
        #expect(view.stepId == "create_team_guide")
        #expect(view.value("completedItems") == Answers.fourItems["completedItems"])
        #expect(view.progressLabel == "Step 3 of 6")
        view = try await d.back(view)
        #expect(view.stepId == "team_choice")
        #expect(view.value("hasExistingTeam") == false)
        // Forward again: the guide is revisited and its time adds up over both visits.
        view = try await d.submit(view, Answers.newTeam)
        clock.advance(seconds: 5)
        view = try await d.submit(view, Answers.allItems)
        view = try await d.walk(view, [Answers.personal, Answers.credentials, [:]])
        #expect(view.status == .completed)
        let guide = try await d.profile("u1")["records"]?["account"]?["guide"]
        #expect(guide?["secondsSpent"] == 45)
        #expect(guide?["completedItems"] == Answers.allItems["completedItems"])
    }

    /// The contract records the guide "when the guide was shown", even if the user then went
    /// back and connected an existing team instead.
    @Test func aGuideShownThenLeftBehindIsStillRecorded() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(), clock: clock)
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.newTeam)
        clock.advance(seconds: 30)
        view = try await d.submit(view, Answers.fourItems)
        view = try await d.back(view)
        clock.advance(seconds: 5)
        view = try await d.back(view)
        #expect(view.stepId == "team_choice")
        view = try await d.walk(view, [Answers.existingTeam, Answers.personal, Answers.credentials, [:]])
        #expect(view.status == .completed)
        let account = try await d.profile("u1")["records"]?["account"]
        #expect(account?["path"] == "existing")
        #expect(
            account?["guide"] == [
                "completedItems": Answers.fourItems["completedItems"] ?? .null, "skipped": false, "secondsSpent": 35,
            ])
    }

    @Test func aGuideNeverShownIsNotRecorded() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.walk(view, [Answers.existingTeam, Answers.personal, Answers.credentials, [:]])
        #expect(view.status == .completed)
        #expect(try await d.profile("u1")["records"]?["account"]?["guide"] == nil)
    }

    /// The contract's table: splash 0 (no label), welcome 1, team choice 2, guide and personal
    /// info 3, credentials 4, validation 5, completed 6.
    @Test(arguments: [true, false])
    func progressOnEveryStep(hasExistingTeam: Bool) async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var seen: [String: (Int, String, Double)] = [:]
        func note(_ view: SessionView) {
            let fraction = view.json["progress"]?["fraction"]?.doubleValue ?? -1
            #expect(view.json["progress"]?["total"] == 6)
            seen[view.stepId ?? view.status.rawValue] = (view.progressIndex ?? -1, view.progressLabel ?? "?", fraction)
        }
        var view = try await d.start("u1")
        note(view)
        view = try await d.submit(view)
        note(view)
        view = try await d.submit(view)
        note(view)
        view = try await d.submit(view, ["hasExistingTeam": .bool(hasExistingTeam)])
        note(view)
        if !hasExistingTeam {
            view = try await d.submit(view, Answers.fourItems)
            note(view)
        }
        view = try await d.submit(view, Answers.personal)
        note(view)
        view = try await d.submit(view, Answers.credentials)
        note(view)
        view = try await d.submit(view)
        note(view)

        var expected: [String: (Int, String, Double)] = [
            "splash": (0, "", 0), "welcome": (1, "Step 1 of 6", 0.1667), "team_choice": (2, "Step 2 of 6", 0.3333),
            "personal_info": (3, "Step 3 of 6", 0.5), "credentials": (4, "Step 4 of 6", 0.6667),
            "validation": (5, "Step 5 of 6", 0.8333), "completed": (6, "Step 6 of 6", 1),
        ]
        if !hasExistingTeam { expected["create_team_guide"] = (3, "Step 3 of 6", 0.5) }
        #expect(seen.keys.sorted() == expected.keys.sorted())
        for (step, progress) in expected {
            #expect(seen[step]?.0 == progress.0, "index on \(step)")
            #expect(seen[step]?.1 == progress.1, "label on \(step)")
            #expect(seen[step]?.2 == progress.2, "fraction on \(step)")
        }
    }

    @Test func resumeReturnsToTheSavedStep() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.newTeam)
        let resumed = try await d.start("u1")
        #expect(resumed.sessionId == view.sessionId)
        #expect(resumed.stepId == "create_team_guide")
        #expect(resumed.revision == view.revision)
    }

    @Test func backOnSplashIsRefused() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        let view = try await d.start("u1")
        #expect(view.actions == ["continue"])
        let error = await d.error("flow.back", ["sessionId": .string(view.sessionId), "revision": .int(Int64(view.revision))])
        #expect(error?.code == -32005)
    }
}
