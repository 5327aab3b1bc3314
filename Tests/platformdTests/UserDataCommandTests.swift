import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The person's data through the binary: `platformd users export|erase` and `platformd backup`
/// of a database a server keeps writing to.
@Suite("platformd users and backup")
struct UserDataCommandTests {
    @Test func exportThenEraseFromTheCommandLine() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("users.sqlite").path
            let tenant = Hosted.tenant
            let marker = "Quillon" + String(UUID().uuidString.prefix(6))
            try await PlatformdProcess.with(["serve", "--db", db]) { server in
                _ = try await server.call("flow.start", ["tenant": .string(tenant), "userId": "person", "user": ["firstName": .string(marker)]])
                try server.closeStdin()
                _ = try await server.waitForExit()
            }
            let exported = try await AuthTests.command(["users", "export", tenant, "person", "--db", db])
            #expect(exported.status == 0, "\(exported.stderr)")
            let document = try JSONValue.parse(exported.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(document["sessions"]?[0]?["user"]?["firstName"] == .string(marker))
            #expect(SchemaValidator.served.problems(result: document, of: "user.export").isEmpty)

            let erased = try await AuthTests.command(["users", "erase", tenant, "person", "--db", db])
            #expect(erased.status == 0, "\(erased.stderr)")
            let counts = try JSONValue.parse(erased.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(counts["erased"]?["sessions"] == 1)
            #expect(erased.stderr.contains("user erased") && !erased.stderr.contains(marker), "the audit line has counts, not the person")
            for suffix in ["", "-wal"] {
                let bytes = FileManager.default.contents(atPath: db + suffix) ?? Data()
                #expect(bytes.range(of: Data(marker.utf8)) == nil, "\(marker) is still in \(db)\(suffix)")
            }
            let again = try await AuthTests.command(["users", "erase", tenant, "person", "--db", db])
            #expect(again.stdout.contains(#""sessions":0"#))
            #expect(
                try await AuthTests.command(["users", "export", tenant, "person", "--db", directory.appendingPathComponent("typo.sqlite").path]).status == 66)
            // The plugin's name for the tenant id: one line that says what to write.
            let misnamed = try await AuthTests.command(["users", "export", Hosted.plugin, "person", "--db", db])
            #expect(
                misnamed.status == 64 && misnamed.stderr.contains("is not hosted (tenants: \(Hosted.tenants.joined(separator: ", ")))"), "\(misnamed.stderr)")
        }
    }

    @Test func aBackupUnderWriteLoadIsSoundAndHoldsEveryAcknowledgedWrite() async throws {
        try await withTemporaryDirectory { directory in
            let socket = directory.appendingPathComponent("b.sock").path
            let db = directory.appendingPathComponent("b.sqlite").path
            let copy = directory.appendingPathComponent("copy.sqlite").path
            try await PlatformdProcess.with(["serve", "--db", db, "--unix", socket]) { server in
                _ = try await SocketTests.listeningLine(server)
                let load = try LoadMix(socketPath: socket, tenants: Hosted.tenants, roles: Array(repeating: .walker, count: 6))
                load.start(label: "backup")
                defer { load.stop() }
                // Writes acknowledged just before the backup starts, while the walkers keep writing.
                let client = try SocketClient(unixPath: socket)
                let tenants = Hosted.tenants + Hosted.tenants
                // The blocking client on a thread of its own, never on the test's cooperative pool.
                let replies = try await BlockingWork.run {
                    try tenants.enumerated().map { index, tenant in
                        try client.request(
                            #"{"jsonrpc":"2.0","id":\#(index),"method":"flow.start","params":{"tenant":"\#(tenant)","userId":"acked-\#(index)"}}"#)
                    }
                }
                var acknowledged: [(tenant: String, id: String)] = []
                for (tenant, reply) in zip(tenants, replies) {
                    acknowledged.append((tenant, try #require(reply["result"]?["sessionId"]?.stringValue)))
                }
                let before = load.snapshot.totalAnswered
                let backup = try await AuthTests.command(["backup", "--db", db, "--to", copy])
                #expect(backup.status == 0, "\(backup.stderr)")
                #expect(backup.stdout.contains("integrity_check ok"))
                #expect(load.snapshot.totalAnswered > before, "the server kept answering writes during the backup")
                #expect(try await SQLiteBackup.integrityCheck(copy) == "ok")
                let store = try await SQLiteSessionStore.open(path: copy)
                for written in acknowledged {
                    #expect(try await store.session(tenant: written.tenant, key: .id(written.id)) != nil, "\(written) is missing from the copy")
                }
                try await store.close()
                // --to must not exist; PostgreSQL is pg_dump's.
                #expect(try await AuthTests.command(["backup", "--db", db, "--to", copy]).status == 73)
                let postgres = try await AuthTests.command(["backup", "--db", "postgres://u@127.0.0.1:1/x", "--to", copy + "2"])
                #expect(postgres.status == 64 && postgres.stderr.contains("pg_dump"))
            }
        }
    }
}

/// `platformd sessions sweep --now`: the tenants file's rules applied once, as `serve` does every minute.
@Suite("platformd sessions sweep")
struct SessionsSweepCommandTests {
    @Test func aSweepAtALaterTimeExpiresTheIdleAndSaysSo() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("sweep.sqlite").path
            let tenants = try TenancyTests.write(
                #"""
                { "tenants": [ { "id": "\#(Hosted.tenant)", "plugin": "\#(Hosted.plugin)",
                    "sessions": { "abandonedAfterHours": 1, "expireAfterDays": 2 }, "retention": { "eventsDays": 30 } } ] }
                """#, in: directory)
            let started = try await PlatformdProcess.with(["serve", "--db", db, "--tenants", tenants]) { server in
                let view = try await server.call("flow.start", ["tenant": .string(Hosted.tenant), "userId": "idle", "user": ["firstName": "Ottoline"]])
                try server.closeStdin()
                _ = try await server.waitForExit()
                return try #require(view["result"])
            }
            let soon = try await AuthTests.command(["sessions", "sweep", "--db", db, "--tenants", tenants])
            #expect(soon.status == 0 && soon.stdout.contains("nothing to do"), "\(soon.stdout)\(soon.stderr)")
            let later = Timestamp.string(Date().addingTimeInterval(3 * 86_400))
            let swept = try await AuthTests.command(["sessions", "sweep", "--db", db, "--tenants", tenants, "--now", later])
            #expect(swept.status == 0, "\(swept.stderr)")
            #expect(swept.stdout.contains("\(Hosted.tenant): 0 abandoned, 1 expired"), "\(swept.stdout)")
            try await PlatformdProcess.with(["serve", "--db", db, "--tenants", tenants]) { server in
                let read = try await server.call("flow.get", ["tenant": .string(Hosted.tenant), "sessionId": started["sessionId"]!])
                #expect(read["result"]?["status"] == "expired" && read["result"]?["step"] == .null, "\(read.serialized())")
                let listed = try await server.call("events.list", ["tenant": .string(Hosted.tenant)])
                #expect(listed["result"]?["events"]?.arrayValue?.contains { $0["type"] == "session.expired" } == true)
                try server.closeStdin()
                _ = try await server.waitForExit()
            }
            #expect(try await AuthTests.command(["sessions", "sweep", "--db", db, "--now", "yesterday"]).status == 64)
        }
    }
}
