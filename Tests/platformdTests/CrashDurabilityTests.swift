import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every acknowledged write survives `kill -9` mid-load, and the database stays sound.
@Suite("Crash durability")
struct CrashDurabilityTests {
    @Test func acknowledgedWritesSurviveKillNine() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("crash.sqlite").path
            var acknowledged: [String] = []
            for round in 0..<3 {
                try await PlatformdProcess.with(["serve", "--db", db]) { server in
                    // A pipeline of submits and starts far longer than what is read before the kill.
                    let users = (0..<400).map { "r\(round)-u\($0)" }
                    var lines = ""
                    for (index, user) in users.enumerated() {
                        lines += #"{"jsonrpc":"2.0","id":\#(index),"method":"flow.start","params":{"tenant":"\#(Hosted.tenant)","userId":"\#(user)"}}"#
                        lines += "\n"
                    }
                    try server.send(lines, terminator: "")
                    // Read some replies, then kill without warning while the rest are in flight.
                    for _ in 0..<(50 + round * 40) {
                        let reply = try await server.readReply()
                        let index = try #require(reply["id"]?.intValue)
                        #expect(reply["result"]?["userId"] == .string(users[index]))
                        acknowledged.append(users[index])
                    }
                    server.send(signal: SIGKILL)
                    let exit = try await server.waitForExit()
                    #expect(exit.signaled)
                }
            }
            // A fresh server on the same file finds every acknowledged session.
            try await PlatformdProcess.with(["serve", "--db", db]) { server in
                var id: Int64 = 1000
                for user in acknowledged {
                    id += 1
                    let found = try await server.call("flow.get", ["tenant": .string(Hosted.tenant), "userId": .string(user)], id: .int(id))
                    #expect(found["result"]?["userId"] == .string(user), "lost \(user)")
                }
            }
            #expect(acknowledged.count == 50 + 90 + 130)
            // SQLite's own check of the file (GRDB, through the backup's checker).
            #expect(try await SQLiteBackup.integrityCheck(db) == "ok")
        }
    }
}
