import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// The StatLocker onboarding walked end to end over stdio against the real binary, with the
/// JSON lines a client sends.
@Suite("platformd statlocker walk")
struct StatLockerWalkTests {
    /// Sends `flow.submit` for the session's current step and returns the result (or the whole reply on error).
    static func submit(
        _ server: PlatformdProcess, _ view: JSONValue, _ values: JSONValue, id: Int
    ) async throws -> JSONValue {
        let params: JSONValue = [
            "tenant": "statlocker", "sessionId": view["sessionId"] ?? .null, "stepId": view["step"]?["id"] ?? .null,
            "revision": view["revision"] ?? .null, "values": values,
        ]
        let reply = try await server.call("flow.submit", params, id: .int(Int64(id)))
        #expect(reply["id"] == .int(Int64(id)))
        return reply
    }

    @Test func wholeFlowOverStdio() async throws {
        try await PlatformdProcess.withServer { server in
            let started = try await server.call(
                "flow.start",
                [
                    "tenant": "statlocker", "userId": "walker",
                    "user": ["firstName": "Alex", "lastName": "Morgan", "email": "alex@example.com"],
                ])
            var view = try #require(started["result"], "flow.start failed: \(started.serialized())")
            #expect(view["step"]?["id"] == "sport")
            #expect(view["step"]?["title"] == "Hey Alex 👋 What sport do you play?")
            #expect(view["progress"]?["label"] == "Step 1 of 11")

            // A locked sport is refused with its friendly message; nothing moves.
            let locked = try await Self.submit(server, view, ["sport": "basketball"], id: 2)
            #expect(locked["error"]?["code"] == -32004)
            #expect(locked["error"]?["data"]?["errors"]?.arrayValue?.first?["code"] == "locked")
            #expect(locked["error"]?["data"]?["session"]?["revision"] == view["revision"])

            let answers = WalkAnswers.lacrosseMidfielder.map { (step: $0.step, values: JSONValue.object($0.values)) }
            var requestId = 10
            for (index, answer) in answers.enumerated() {
                #expect(view["step"]?["id"] == .string(answer.step))
                #expect(view["progress"]?["label"] == .string("Step \(index + 1) of 11"))
                let reply = try await Self.submit(server, view, answer.values, id: requestId)
                requestId += 1
                view = try #require(reply["result"], "submit on \(answer.step) failed: \(reply.serialized())")
            }
            #expect(view["step"]?["id"] == "review")
            #expect(view["step"]?["title"] == "Review your profile, Alex")
            let sections = view["step"]?["content"]?["sections"]?.arrayValue ?? []
            #expect(sections.first { $0["id"] == "position" }?["lines"] == ["Midfield | Class of 2026"])
            #expect(sections.first { $0["id"] == "clubTeam" }?["lines"] == ["Laxachusetts – Boston, MA"])

            // Edit: back to the goals and forward again, with the answers pre-filled.
            let edit = try await server.call(
                "flow.goto",
                [
                    "tenant": "statlocker", "sessionId": view["sessionId"] ?? .null, "stepId": "season_goals",
                    "revision": view["revision"] ?? .null,
                ], id: 50)
            view = try #require(edit["result"], "goto failed: \(edit.serialized())")
            let goals = view["step"]?["fields"]?.arrayValue?.first?["value"]
            #expect(goals?.arrayValue?.count == 3)
            for values in [["seasonGoals": goals ?? .null], [:], ["aiTone": "Analyst"], [:]] as [JSONValue] {
                let reply = try await Self.submit(server, view, values, id: requestId)
                requestId += 1
                view = try #require(reply["result"], "submit failed: \(reply.serialized())")
            }
            #expect(view["step"]?["id"] == "review")
            #expect(view["step"]?["actions"]?.arrayValue?.first == ["id": "continue", "label": "Enter Your Locker"])

            let done = try await Self.submit(server, view, [:], id: requestId)
            let completed = try #require(done["result"], "review submit failed: \(done.serialized())")
            #expect(completed["status"] == "completed")
            #expect(completed["step"] == .null)
            #expect(completed["completion"]?["message"] == "Welcome to StatLocker, Alex!")
            #expect(completed["completion"]?["records"] == ["profile", "team"])
            #expect(completed["progress"]?["label"] == "Step 11 of 11")

            let fetched = try await server.call("profile.get", ["tenant": "statlocker", "userId": "walker"], id: 90)
            let records = try #require(fetched["result"]?["records"], "profile.get failed: \(fetched.serialized())")
            let profile = try #require(records["profile"])
            #expect(profile["userId"] == "walker")
            #expect(profile["firstName"] == "Alex")
            #expect(profile["teamGender"] == "girls")
            #expect(profile["gradYear"] == 2026)
            #expect(profile["level"] == "JV")
            #expect(profile["position"] == "Midfield")
            #expect(profile["aiTone"] == "Analyst")
            #expect(profile["onboardingCompleted"] == true)
            let seasonGoals = profile["seasonGoals"]?.arrayValue ?? []
            #expect(seasonGoals.map { $0["isCustom"] } == [false, false, true])
            #expect(seasonGoals.first?["id"] == "g-mid-jv-dc-50")
            #expect(seasonGoals.first?["trackingKey"] == "draw_controls")
            #expect(seasonGoals.last?["title"] == "Win 60% of draws")
            #expect(
                records["team"] == [
                    "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                    "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
                ])

            let updated = try await server.call(
                "profile.update",
                [
                    "tenant": "statlocker", "userId": "walker", "values": ["aiTone": "Captain"],
                ], id: 91)
            #expect(updated["result"]?["records"]?["profile"]?["aiTone"] == "Captain")

            try server.closeStdin()
            #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
        }
    }
}
