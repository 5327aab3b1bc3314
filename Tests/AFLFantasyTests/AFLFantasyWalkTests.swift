import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// The AFL Fantasy create-team path through the real binary, one JSON line at a time, as an iOS
/// client would send it.
@Suite("platformd aflfantasy walk")
struct AFLFantasyWalkTests {
    /// Sends `line`, expects a result (not an error) with the same id, and returns it.
    static func result(_ server: PlatformdProcess, _ line: String, id: Int) async throws -> JSONValue {
        let reply = try await server.request(line)
        #expect(reply["jsonrpc"] == "2.0")
        #expect(reply["id"] == .int(Int64(id)))
        return try #require(reply["result"], "no result for \(line): \(reply.serialized())")
    }

    static func submit(
        _ server: PlatformdProcess, id: Int, session: String, step: String, revision: Int, values: String = "{}",
        action: String = "continue"
    ) async throws -> JSONValue {
        let line =
            #"{"jsonrpc":"2.0","id":\#(id),"method":"flow.submit","params":{"tenant":"aflfantasy","sessionId":"\#(session)","stepId":"\#(step)","revision":\#(revision),"action":"\#(action)","values":\#(values)}}"#
        return try await result(server, line, id: id)
    }

    @Test func createTeamPathCompletesWithTheCompleteScreenAndAProfile() async throws {
        try await PlatformdProcess.withServer { server in
            var view = try await Self.result(
                server,
                #"""
                {"jsonrpc":"2.0","id":1,"method":"flow.start","params":{"tenant":"aflfantasy","userId":"ios-42","user":{"email":"riley@example.com"}}}
                """#, id: 1)
            let session = try #require(view["sessionId"]?.stringValue)
            #expect(view["step"]?["id"] == "splash")
            #expect(view["progress"]?["index"] == 0)
            #expect(view["progress"]?["label"] == "")

            view = try await Self.submit(server, id: 2, session: session, step: "splash", revision: 0)
            #expect(view["step"]?["id"] == "welcome")
            #expect(view["step"]?["title"] == "Welcome to AFL Fantasy, riley!")
            view = try await Self.submit(server, id: 3, session: session, step: "welcome", revision: 1)
            #expect(view["step"]?["id"] == "team_choice")
            #expect(view["step"]?["content"]?["carousel"]?["autoAdvanceSeconds"] == 3)

            view = try await Self.submit(
                server, id: 4, session: session, step: "team_choice", revision: 2, values: #"{"hasExistingTeam":false}"#)
            #expect(view["step"]?["id"] == "create_team_guide")
            #expect(view["progress"]?["label"] == "Step 3 of 6")

            // Three of five is refused with the items still to do; nothing moves.
            let refused = try await server.request(
                #"""
                {"jsonrpc":"2.0","id":5,"method":"flow.submit","params":{"tenant":"aflfantasy","sessionId":"\#(session)","stepId":"create_team_guide","revision":3,"values":{"completedItems":["visit_website","sign_in","pick_squad"]}}}
                """#)
            expectError(refused, code: -32004, id: 5)
            let errors = try #require(refused["error"]?["data"]?["errors"]?.arrayValue)
            #expect(errors.count == 1)
            #expect(errors.first?["code"] == "count")
            #expect(errors.first?["message"]?.stringValue?.hasSuffix("Still to do: Name and save your team and Find your Team ID.") == true)
            #expect(refused["error"]?["data"]?["session"]?["revision"] == 3)

            view = try await Self.submit(
                server, id: 6, session: session, step: "create_team_guide", revision: 3,
                values: #"{"completedItems":["visit_website","sign_in","pick_squad","save_team","find_team_id"]}"#)
            #expect(view["step"]?["id"] == "personal_info")
            #expect(view["step"]?["fields"]?.arrayValue?.last?["default"] == "riley@example.com")
            view = try await Self.submit(
                server, id: 7, session: session, step: "personal_info", revision: 4,
                values: #"{"firstName":"Riley","email":"riley@example.com"}"#)
            #expect(view["step"]?["id"] == "credentials")
            view = try await Self.submit(
                server, id: 8, session: session, step: "credentials", revision: 5,
                values: #"{"teamId":"4815162342","teamName":"Riley's Roos"}"#)
            #expect(view["step"]?["id"] == "validation")
            #expect(view["step"]?["kind"] == "processing")
            #expect(view["progress"]?["label"] == "Step 5 of 6")

            let done = try await Self.submit(server, id: 9, session: session, step: "validation", revision: 6)
            #expect(done["status"] == "completed")
            #expect(done["step"] == .null)
            #expect(done["progress"]?["label"] == "Step 6 of 6")
            #expect(done["progress"]?["fraction"] == 1)
            #expect(done["completion"]?["message"] == "Welcome to AFL Fantasy, Riley!")
            #expect(done["completion"]?["records"] == ["account"])
            let screen = try #require(done["completion"]?["screen"])
            #expect(screen["title"] == "You're All Set, Riley!")
            #expect(screen["body"] == "Your new team, Riley's Roos, is connected. Your trade insights, captain advice and cash cow alerts are ready.")
            #expect(screen["summary"]?.arrayValue?.count == 3)
            #expect(screen["actions"] == [["id": "open_dashboard", "label": "Go to My Team"]])

            let profile = try await Self.result(
                server,
                #"""
                {"jsonrpc":"2.0","id":10,"method":"profile.get","params":{"tenant":"aflfantasy","userId":"ios-42"}}
                """#, id: 10)
            #expect(profile["tenant"] == "aflfantasy")
            #expect(profile["userId"] == "ios-42")
            #expect(profile["completedAt"]?.stringValue.flatMap(Timestamp.date) != nil)
            let account = try #require(profile["records"]?["account"])
            #expect(account["firstName"] == "Riley")
            #expect(account["email"] == "riley@example.com")
            #expect(account["teamId"] == "4815162342")
            #expect(account["teamName"] == "Riley's Roos")
            #expect(account["hasExistingTeam"] == false)
            #expect(account["path"] == "created")
            #expect(account["teamValidation"] == "passed")
            let guide = try #require(account["guide"])
            #expect(guide["completedItems"]?.arrayValue?.count == 5)
            #expect(guide["skipped"] == false)
            // Real time passed, so only its type and sign are certain.
            #expect((guide["secondsSpent"]?.doubleValue ?? -1) >= 0)
        }
    }
}
