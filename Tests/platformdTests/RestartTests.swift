import Foundation
import PlatformCore
import Testing

/// Sessions live in the `--db` file, not in the process.
@Suite("platformd restart")
struct RestartTests {
    @Test func sessionSurvivesARestartOnTheSameDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("restart.sqlite").path
            let moved = try await PlatformdProcess.with(["serve", "--db", db]) { server in
                let reply = try await server.call("flow.start", ["tenant": "statlocker", "userId": "restart-user", "user": ["firstName": "Alex"]])
                let view = try #require(reply["result"], "flow.start failed: \(reply.serialized())")
                let sessionId = try #require(view["sessionId"])
                let submitted = try await server.call("flow.submit", [
                    "tenant": "statlocker", "sessionId": sessionId, "stepId": "sport", "revision": 0,
                    "values": ["sport": "lacrosse"],
                ], id: 2)
                let next = try #require(submitted["result"], "flow.submit failed: \(submitted.serialized())")
                #expect(next["step"]?["id"] == "welcome_journey")
                try server.closeStdin()
                #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
                return next
            }
            #expect(FileManager.default.fileExists(atPath: db))
            let sessionId = try #require(moved["sessionId"]?.stringValue)

            try await PlatformdProcess.with(["serve", "--db", db]) { server in
                let reply = try await server.call("flow.get", ["tenant": "statlocker", "sessionId": .string(sessionId)])
                let view = try #require(reply["result"], "flow.get after restart failed: \(reply.serialized())")
                #expect(view == moved)
                let resumed = try await server.call("flow.start", ["tenant": "statlocker", "userId": "restart-user"], id: 2)
                #expect(resumed["result"]?["sessionId"]?.stringValue == sessionId)
                #expect(resumed["result"]?["step"]?["id"] == "welcome_journey")
                #expect(resumed["result"]?["revision"] == 1)
                let back = try await server.call("flow.back", ["tenant": "statlocker", "sessionId": .string(sessionId), "revision": 1], id: 3)
                #expect(back["result"]?["step"]?["fields"]?.arrayValue?.first?["value"] == "lacrosse")
                try server.closeStdin()
                #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
            }
        }
    }
}
