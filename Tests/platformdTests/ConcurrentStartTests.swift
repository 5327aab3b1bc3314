import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Hosts starting together on one new SQLite file migrate its schema once, and both serve.
@Suite("platformd: concurrent start on one new database")
struct ConcurrentStartTests {
    /// Two `serve` processes launched at the same moment on a file that does not exist yet, ten
    /// times over: each must come up (no "table sessions already exists", no "database is
    /// locked") and answer, and a session one starts is seen by the other.
    @Test func twoServersOnOneNewFileBothAnswer() async throws {
        try await withTemporaryDirectory { directory in
            for round in 1...10 {
                let db = directory.appendingPathComponent("round-\(round).sqlite").path
                let first = try PlatformdProcess(["serve", "--db", db])
                let second = try PlatformdProcess(["serve", "--db", db])
                defer {
                    first.kill()
                    second.kill()
                }
                for (index, server) in [first, second].enumerated() {
                    let info = try await server.call("platform.info", id: .int(Int64(index)))
                    #expect(info["result"]?["protocol"] == 4, "round \(round), server \(index + 1): \(info.serialized())")
                }
                let started = try await first.call("flow.start", ["tenant": .string(Hosted.tenant), "userId": .string("u\(round)")], id: 10)
                let sessionId = try #require(started["result"]?["sessionId"], "round \(round): \(started.serialized())")
                let fetched = try await second.call("flow.get", ["tenant": .string(Hosted.tenant), "sessionId": sessionId], id: 11)
                #expect(fetched["result"]?["sessionId"] == sessionId, "round \(round): \(fetched.serialized())")
                for server in [first, second] {
                    try server.closeStdin()
                    #expect(try await server.waitForExit() == .init(status: 0, signaled: false), "round \(round): \(server.stderrText)")
                }
            }
        }
    }
}
