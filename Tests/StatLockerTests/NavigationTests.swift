import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import StatLocker

/// Back, resume and the review's edits (flow.goto), and what an edit clears ahead.
@Suite struct BackTests {
    @Test func backKeepsEveryAnswer() async throws {
        let d = try await makeDriver()
        let withClub: [String: [String: JSONValue]] = [
            "team_info": [
                "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
            ]
        ]
        var view = try await d.started(at: "review", overrides: withClub)
        var shown: [String: [String: JSONValue]] = [:]
        while view.stepId != "sport" {
            view = try await d.back(view)
            let fields = view.step?["fields"]?.arrayValue ?? []
            shown[view.stepId ?? ""] = Dictionary(
                uniqueKeysWithValues: fields.compactMap { field in
                    guard let id = field["id"]?.stringValue, let value = field["value"], !value.isNull else { return nil }
                    return (id, value)
                })
        }
        #expect(shown["sport"] == ["sport": "lacrosse"])
        #expect(shown["team_gender"] == ["teamGender": "boys"])
        #expect(shown["profile_details"] == ["gradYear": 2027, "level": "Varsity"])
        #expect(shown["position"] == ["position": "Goalie"])
        #expect(shown["team_info"]?["clubTeamName"] == "Laxachusetts")
        #expect(shown["team_info"]?["hasClubTeam"] == true)
        #expect(shown["season_goals"]?["seasonGoals"]?.arrayValue?.count == 3)
        #expect(shown["tone_quiz"] == ["aiTone": "Hype"])
        #expect(await d.error("flow.back", ["sessionId": .string(view.sessionId), "revision": .int(Int64(view.revision))])?.code == -32005)

        // Walking forward again with the shown answers arrives at the same review.
        let again = try await d.walk(view, to: "review", overrides: withClub)
        #expect(again.content?["sections"]?.arrayValue?.count == 7)
    }

    @Test func backDoesNotClearAnAnswerThatStillFits() async throws {
        let d = try await makeDriver()
        let goals = try await d.started(at: "season_goals")
        let details = try await d.goto(goals, "profile_details")
        // Same answers again: nothing ahead changes.
        let position = try await d.submit(details, ["gradYear": 2027, "level": "Varsity"])
        #expect(position.value("position") == "Goalie")
        let teamInfo = try await d.submit(position, ["position": "Goalie"])
        #expect(teamInfo.value("hsTeamName") == "Duxbury High School")
    }
}

@Suite struct ResumeTests {
    @Test func progressResumesAfterTheStoreIsReopened() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("statlocker-resume-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("sessions.sqlite").path

        let clock = TestClock()
        let firstStore = try await SQLiteSessionStore.open(path: path)
        let first = try await FlowDriver(plugin: StatLockerPlugin(), store: firstStore, clock: clock)
        let left = try await first.started(at: "season_goals")
        try await firstStore.close()

        let secondStore = try await SQLiteSessionStore.open(path: path)
        let second = try await FlowDriver(plugin: StatLockerPlugin(), store: secondStore, clock: clock)
        let resumed = try await second.start("u1", user: alex)
        #expect(resumed.sessionId == left.sessionId)
        #expect(resumed.stepId == "season_goals")
        #expect(resumed.revision == left.revision)
        #expect(resumed.progressLabel == "Step 7 of 11")
        #expect(resumed.optionValues("seasonGoals").first == "gk-var-savepct-60")
        let back = try await second.back(resumed)
        #expect(back.value("hsTeamName") == "Duxbury High School")
        let done = try await second.walk(try await second.submit(back, defaultAnswers["team_info"]!), to: "review")
        let completed = try await second.submit(done)
        #expect(completed.status == .completed)
        try await secondStore.close()
    }

    @Test func startOnASavedSessionStaysOnTheSavedStep() async throws {
        let d = try await makeDriver()
        let left = try await d.started(at: "tone_quiz")
        let back = try await d.back(left)
        let resumed = try await d.start("u1")
        #expect(resumed.stepId == back.stepId)
        #expect(resumed.stepId == "goals_locked_in")
        #expect(resumed.revision == back.revision)
    }
}

@Suite struct GotoTests {
    /// A boys' Varsity FOGO with a custom goal, and a club when asked.
    func answers(club: Bool = false) -> [String: [String: JSONValue]] {
        var teamInfo = defaultAnswers["team_info"]!
        if club {
            teamInfo["hasClubTeam"] = true
            teamInfo["clubTeamName"] = "Laxachusetts"
            teamInfo["clubCity"] = "Boston"
            teamInfo["clubState"] = "MA"
        }
        return [
            "position": ["position": "FOGO"],
            "team_info": teamInfo,
            "season_goals": ["seasonGoals": ["fogo-var-fopct-60", "fogo-var-fow-150", custom("Win the opening draw")]],
        ]
    }

    func review(_ d: FlowDriver, club: Bool = false) async throws -> SessionView {
        try await d.started(at: "review", overrides: answers(club: club))
    }

    @Test func reviewSectionsNameTheStepThatEditsThem() async throws {
        let d = try await makeDriver()
        let view = try await review(d, club: true)
        let sections = try #require(view.content?["sections"]?.arrayValue)
        let byId = Dictionary(uniqueKeysWithValues: sections.compactMap { s in s["id"]?.stringValue.map { ($0, s) } })
        #expect(sections.compactMap { $0["id"]?.stringValue } == ["name", "position", "level", "hsTeam", "clubTeam", "seasonGoals", "aiTone"])
        #expect(byId["name"]?["lines"] == ["Alex Morgan"])
        #expect(byId["name"]?["edit"] == nil)
        #expect(byId["position"]?["title"] == "Position")
        #expect(byId["position"]?["lines"] == ["FOGO | Class of 2027"])
        #expect(byId["position"]?["edit"] == "position")
        #expect(byId["level"]?["lines"] == ["Varsity"])
        #expect(byId["level"]?["edit"] == "profile_details")
        #expect(byId["hsTeam"]?["title"] == "High School Team")
        #expect(byId["hsTeam"]?["lines"] == ["Duxbury High School – Duxbury, MA"])
        #expect(byId["hsTeam"]?["edit"] == "team_info")
        #expect(byId["clubTeam"]?["title"] == "Club Team")
        #expect(byId["clubTeam"]?["lines"] == ["Laxachusetts – Boston, MA"])
        #expect(byId["seasonGoals"]?["title"] == "Season Goals")
        #expect(byId["seasonGoals"]?["lines"] == ["1. 60%+ faceoff win percentage", "2. 150+ faceoff wins (season)", "3. Win the opening draw"])
        #expect(byId["seasonGoals"]?["edit"] == "season_goals")
        #expect(byId["aiTone"]?["title"] == "AI Coach Tone")
        #expect(byId["aiTone"]?["lines"] == ["Hype"])
        #expect(byId["aiTone"]?["edit"] == "tone_quiz")
        // Every edit target is a step the review can go to.
        for section in sections {
            guard let target = section["edit"]?.stringValue else { continue }
            #expect(try await d.goto(try await d.get(view), target).stepId == target)
            _ = try await d.walk(try await d.get(view), to: "review", overrides: answers(club: true))
        }
    }

    @Test func noClubSectionWithoutAClub() async throws {
        let d = try await makeDriver()
        let view = try await review(d)
        let ids = view.content?["sections"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        #expect(ids == ["name", "position", "level", "hsTeam", "seasonGoals", "aiTone"])
    }

    @Test func gotoOnlyToAVisitedStep() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "position")
        #expect(
            await d.error(
                "flow.goto",
                [
                    "sessionId": .string(view.sessionId), "stepId": "tone_quiz", "revision": .int(Int64(view.revision)),
                ])?.code == -32005)
        #expect(
            await d.error(
                "flow.goto",
                [
                    "sessionId": .string(view.sessionId), "stepId": "sport", "revision": .int(Int64(view.revision - 1)),
                ])?.code == -32003)
        let sport = try await d.goto(view, "sport")
        #expect(sport.stepId == "sport")
        #expect(sport.value("sport") == "lacrosse")
        #expect(sport.progressLabel == "Step 1 of 11")
    }

    @Test func changingGenderClearsAPositionTheOtherTeamLacksAndItsLibraryGoals() async throws {
        let d = try await makeDriver()
        let edit = try await d.goto(try await review(d), "team_gender")
        #expect(edit.value("teamGender") == "boys")
        let details = try await d.submit(edit, ["teamGender": "girls"])
        #expect(details.value("gradYear") == 2027)
        #expect(details.value("level") == "Varsity")
        let position = try await d.submit(details, ["gradYear": 2027, "level": "Varsity"])
        #expect(position.stepId == "position")
        #expect(position.value("position") == nil, "girls' teams have no FOGO")
        #expect(position.optionValues("position") == ["Goalie", "Attack", "Midfield", "Defense"])
        let teamInfo = try await d.submit(position, ["position": "Midfield"])
        #expect(teamInfo.value("hsTeamName") == "Duxbury High School")
        let goals = try await d.submit(teamInfo, defaultAnswers["team_info"]!)
        #expect(goals.stepId == "season_goals")
        // The boys' FOGO goals are gone; the custom goal stays.
        #expect(goals.value("seasonGoals") == [["title": "Win the opening draw"]])
        #expect(goals.optionValues("seasonGoals").allSatisfy { $0.hasPrefix("g-mid-var-") })
        let tone = try await d.walk(
            goals, to: "tone_quiz",
            overrides: [
                "season_goals": ["seasonGoals": ["g-mid-var-dc-60", "g-mid-var-goals-35", custom("Win the opening draw")]]
            ])
        #expect(tone.value("aiTone") == "Hype")
    }

    @Test func changingLevelKeepsThePositionAndCustomGoalsButNotTheOldLevelsGoals() async throws {
        let d = try await makeDriver()
        let edit = try await d.goto(try await review(d), "profile_details")
        let position = try await d.submit(edit, ["gradYear": 2028, "level": "JV"])
        #expect(position.value("position") == "FOGO")
        let teamInfo = try await d.submit(position, ["position": "FOGO"])
        let goals = try await d.submit(teamInfo, defaultAnswers["team_info"]!)
        #expect(goals.value("seasonGoals") == [["title": "Win the opening draw"]])
        #expect(goals.optionValues("seasonGoals").contains("fogo-jv-fopct-55"))
        // Three again, with the new level's goals, and the session completes at JV.
        let review = try await d.walk(
            goals, to: "review",
            overrides: [
                "season_goals": ["seasonGoals": ["fogo-jv-fopct-55", "fogo-jv-fow-120", custom("Win the opening draw")]]
            ])
        let done = try await d.submit(review)
        let profile = try await d.profile("u1")["records"]?["profile"]
        #expect(done.status == .completed)
        #expect(profile?["level"] == "JV")
        #expect(profile?["gradYear"] == 2028)
        #expect(profile?["seasonGoals"]?.arrayValue?.compactMap { $0["id"]?.stringValue }.prefix(2) == ["fogo-jv-fopct-55", "fogo-jv-fow-120"])
    }

    @Test func changingPositionKeepsGoalsTheNewPositionAlsoOffersNone() async throws {
        let d = try await makeDriver()
        let edit = try await d.goto(try await review(d), "position")
        let teamInfo = try await d.submit(edit, ["position": "LSM"])
        let goals = try await d.submit(teamInfo, defaultAnswers["team_info"]!)
        #expect(goals.value("seasonGoals") == [["title": "Win the opening draw"]])
    }

    @Test func turningTheClubOffDropsTheClubAnswers() async throws {
        let d = try await makeDriver()
        let edit = try await d.goto(try await review(d, club: true), "team_info")
        #expect(edit.value("clubTeamName") == "Laxachusetts")
        var off = defaultAnswers["team_info"]!
        off["clubTeamName"] = "Laxachusetts"
        let goals = try await d.submit(edit, off)
        #expect(goals.value("seasonGoals")?.arrayValue?.count == 3, "team info does not touch goals")
        let back = try await d.back(goals)
        #expect(back.value("hasClubTeam") == false)
        #expect(back.value("clubTeamName") == nil)
        let review = try await d.walk(back, to: "review", overrides: answers(club: false))
        #expect(review.content?["sections"]?.arrayValue?.contains { $0["id"] == "clubTeam" } == false)
        _ = try await d.submit(review)
        #expect(try await d.profile("u1")["records"]?["team"]?["clubTeamName"] == .null)
    }

    @Test func reviewStaysIncompleteWhileAnEditIsUnfinished() async throws {
        let d = try await makeDriver()
        // After an edit, the steps ahead must be walked again: there is no jumping back to the review.
        let edit = try await d.goto(try await review(d), "position")
        #expect(
            await d.error(
                "flow.goto",
                [
                    "sessionId": .string(edit.sessionId), "stepId": "review", "revision": .int(Int64(edit.revision)),
                ])?.code == -32005)
    }
}
