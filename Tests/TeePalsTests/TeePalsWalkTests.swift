import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// The TeePals wizard walked against the real binary, one JSON line at a time, as an app would.
@Suite("platformd: TeePals over stdio")
struct TeePalsWalkTests {
    static let adultBirthdate = "1991-08-17"
    static let childBirthdate = "2019-03-04"

    /// Sends `line`, reads the reply, keeps its text for the privacy check, and returns its result.
    final class Client {
        let server: PlatformdProcess
        private(set) var replies: [String] = []
        private var nextId = 1

        init(_ server: PlatformdProcess) {
            self.server = server
        }

        func send(_ method: String, _ params: String) async throws -> JSONValue {
            let id = nextId
            nextId += 1
            let line = #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#
            try server.send(line)
            let text = try await server.readLine()
            replies.append(text)
            let reply = try JSONValue.parse(text)
            #expect(reply["id"] == .int(Int64(id)), "reply out of order: \(text)")
            return reply
        }

        func result(_ method: String, _ params: String) async throws -> JSONValue {
            let reply = try await send(method, params)
            return try #require(reply["result"], "\(method) failed: \(reply.serialized())")
        }
    }

    @Test func walksTheWizardToTheSecondGate() async throws {
        try await PlatformdProcess.withServer(["--log-level", "trace"]) { server in
            let client = Client(server)

            let intro = try await client.result("flow.describe", #"{"tenant":"teepals"}"#)
            #expect(intro["intro"]?.arrayValue?.count == 3)

            var view = try await client.result(
                "flow.start", #"{"tenant":"teepals","userId":"walker","user":{"firstName":"Sam"}}"#)
            let session = try #require(view["sessionId"]?.stringValue)
            #expect(view["step"]?["id"] == "nickname")
            #expect(view["progress"]?["label"] == "1/4")

            view = try await client.result(
                "flow.submit",
                #"""
                {"tenant":"teepals","sessionId":"\#(session)","stepId":"nickname","revision":0,"values":{"nickname":"  Sam   the Slicer "}}
                """#)
            #expect(view["step"]?["id"] == "birthdate")
            #expect(view["progress"]?["label"] == "2/4")

            view = try await client.result(
                "flow.submit",
                #"""
                {"tenant":"teepals","sessionId":"\#(session)","stepId":"birthdate","revision":1,"values":{"birthdate":"\#(Self.adultBirthdate)"}}
                """#)
            #expect(view["step"]?["id"] == "location")

            let search = try await client.result(
                "flow.search",
                #"""
                {"tenant":"teepals","sessionId":"\#(session)","field":"location","query":"Portland, ME","limit":5}
                """#)
            let city = try #require(search["results"]?.arrayValue?.first)
            #expect(city["value"] == "4975802")
            #expect(city["label"] == "Portland, ME, United States")
            #expect(city["latitude"] == 43.65737)
            #expect(city["longitude"] == -70.2589)
            let empty = try await client.result(
                "flow.search",
                #"""
                {"tenant":"teepals","sessionId":"\#(session)","field":"location","query":"Qwxzzy"}
                """#)
            #expect(empty == ["results": [], "message": "No results found"])

            let freeText = try await client.send(
                "flow.submit",
                #"""
                {"tenant":"teepals","sessionId":"\#(session)","stepId":"location","revision":2,"values":{"location":"Portland, ME"}}
                """#)
            #expect(freeText["error"]?["code"] == -32004)
            #expect(freeText["error"]?["data"]?["errors"]?.arrayValue?.first?["code"] == "unknown_city")

            view = try await client.result(
                "flow.submit",
                #"""
                {"tenant":"teepals","sessionId":"\#(session)","stepId":"location","revision":2,"values":{"location":"4975802"}}
                """#)
            #expect(view["step"]?["id"] == "gender")
            #expect(view["step"]?["actions"]?.arrayValue?.first == ["id": "continue", "label": "Complete Setup"])

            view = try await client.result(
                "flow.submit",
                #"""
                {"tenant":"teepals","sessionId":"\#(session)","stepId":"gender","revision":3,"values":{"gender":"prefer_not_to_say"}}
                """#)
            #expect(view["status"] == "completed")
            #expect(view["completion"]?["message"] == "Welcome to TeePals, Sam the Slicer!")

            let profile = try await client.result("profile.get", #"{"tenant":"teepals","userId":"walker"}"#)
            #expect(
                profile["records"]?["profile_public"] == [
                    "nickname": "Sam the Slicer", "cityId": "4975802", "label": "Portland, ME, United States",
                    "latitude": 43.65737, "longitude": -70.2589, "countryCode": "US",
                    "gender": "prefer_not_to_say", "photoUrl": nil, "skillLevel": nil,
                ])
            #expect(profile["records"]?["profile_private"]?["ageVerified"] == true)

            let gated = try await client.result("gate.check", #"{"tenant":"teepals","userId":"walker","action":"join_round"}"#)
            #expect(gated["allowed"] == false)
            #expect(gated["gate"] == "tier2")
            _ = try await client.result(
                "profile.update",
                #"""
                {"tenant":"teepals","userId":"walker","values":{"photoUrl":"https://img.example/sam.jpg","skillLevel":"advanced"}}
                """#)
            let open = try await client.result("gate.check", #"{"tenant":"teepals","userId":"walker","action":"join_round"}"#)
            #expect(open["allowed"] == true)

            // A child is turned away and stays turned away.
            let child = try await client.result("flow.start", #"{"tenant":"teepals","userId":"kid"}"#)
            let childSession = try #require(child["sessionId"]?.stringValue)
            _ = try await client.result(
                "flow.submit",
                #"""
                {"tenant":"teepals","sessionId":"\#(childSession)","stepId":"nickname","revision":0,"values":{"nickname":"Kiddo"}}
                """#)
            let rejected = try await client.result(
                "flow.submit",
                #"""
                {"tenant":"teepals","sessionId":"\#(childSession)","stepId":"birthdate","revision":1,"values":{"birthdate":"\#(Self.childBirthdate)"}}
                """#)
            #expect(rejected["status"] == "rejected")
            #expect(rejected["rejection"] == ["code": "underage", "message": "You must be 13+ to use TeePals"])
            let again = try await client.result("flow.start", #"{"tenant":"teepals","userId":"kid"}"#)
            #expect(again["status"] == "rejected")
            let refused = try await client.send(
                "flow.submit",
                #"""
                {"tenant":"teepals","sessionId":"\#(childSession)","stepId":"birthdate","revision":\#(rejected["revision"]?.intValue ?? -1),"values":{"birthdate":"1990-01-01"}}
                """#)
            #expect(refused["error"]?["code"] == -32005)

            try server.closeStdin()
            #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
            #expect(client.replies.count == 18)
            for birthdate in [Self.adultBirthdate, Self.childBirthdate] {
                for reply in client.replies {
                    #expect(!reply.contains(birthdate), "a reply holds a birthdate: \(reply)")
                }
                #expect(!server.stderrText.contains(birthdate), "the log holds a birthdate")
            }
            // The log did record the checks, so the scan above looked at real lines.
            #expect(server.stderrText.contains("age verified"))
            #expect(server.stderrText.contains("session rejected"))
            // Written by the server after the commit, with the plugin's label and source as before.
            #expect(server.stderrText.contains(" info TeePals: tenant=teepals [TeePals] age verified\n"))
        }
    }
}
