import Foundation
import GRDB
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// How the one-shot commands say no: a bad flag shows that command's usage; a command that
/// cannot do what it was given says why in one line, exit 64, with no usage text (which was the
/// top-level command's, saying nothing useful).
@Suite("platformd: command errors")
struct CommandErrorTests {
    @Test func revokingAKeyThatDoesNotExistIsOneLineWithoutUsage() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("keys.sqlite").path
            try await PlatformdProcess.createDatabase(db)
            let result = try await AuthTests.command(["keys", "revoke", "key_nope", "--db", db])
            #expect(result.status == 64)
            #expect(result.stderr.contains("Error: no active key has the id key_nope"), "\(result.stderr)")
            #expect(!result.stderr.contains("Usage:"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func aFlowTheTenantDoesNotHaveIsOneLineWithoutUsage() async throws {
        let result = try await AuthTests.command(["describe", Hosted.tenant, "--flow", "no-such-flow"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Error: "), "\(result.stderr)")
        #expect(result.stderr.contains("no-such-flow"), "\(result.stderr)")
        #expect(!result.stderr.contains("Usage:"), "\(result.stderr)")
    }

    @Test func aBadTimeFlagShowsTheFunnelCommandsOwnUsage() async throws {
        let result = try await AuthTests.command(["funnel", Hosted.tenant, "--since", "yesterday", "--db", ":memory:"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--since must be an ISO 8601 time"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: platformd funnel"), "\(result.stderr)")
    }

    /// It exited 0 with a funnel of zeros, as if no one had entered it.
    @Test func aWindowThatEndsBeforeItStartsIsAUsageError() async throws {
        let result = try await AuthTests.command(
            ["funnel", Hosted.tenant, "--since", "2026-05-02T00:00:00Z", "--until", "2026-05-01T00:00:00Z", "--db", ":memory:"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--since must be before --until"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}

/// A command that reads a database refuses a SQLite path that does not exist (exit 66, the path
/// named) instead of creating an empty one and reporting zeros; only `serve` and `mcp` create one.
@Suite("platformd: a database path that does not exist")
struct MissingDatabaseTests {
    static let readers: [[String]] = [
        ["funnel", Hosted.tenant], ["funnel", Hosted.tenant, "--json"], ["keys", "list"], ["keys", "create", "--tenant", Hosted.tenant],
        ["keys", "revoke", "key_nope"], ["events", Hosted.tenant], ["events", "retry", "evt_nope"],
    ]

    @Test(arguments: readers)
    func aCommandThatReadsADatabaseRefusesAMissingPath(command: [String]) async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("typo.sqlite").path
            let result = try await AuthTests.command(command + ["--db", db])
            #expect(result.status == 66, "\(command): \(result.stderr)")
            #expect(result.stderr.contains(db), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: db), "\(command) created \(db)")
        }
    }

    /// Commands given as many kinds of path as possible: the two that create a database and one
    /// that reads it.
    static let everyKind: [[String]] = [["serve"], ["mcp", "--tenant", Hosted.tenant, "--user-id", "u_1"], ["keys", "list"]]

    /// It used to be `Error: SQLite error 14: unable to open database file`, exit 1, naming no path.
    @Test(arguments: everyKind)
    func aDirectoryIsRefusedInOneLineNamingIt(command: [String]) async throws {
        try await withTemporaryDirectory { directory in
            let result = try await AuthTests.command(command + ["--db", directory.path])
            #expect(result.status == 66, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("--db \(directory.path) is a directory"), "\(result.stderr)")
            #expect(result.stderr.contains(directory.appendingPathComponent("platformd.sqlite").path), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    /// It used to be `Error: SQLite error 26: file is not a database - while executing ...`, exit 1.
    @Test(arguments: everyKind)
    func aFileThatIsNotADatabaseIsRefusedAndLeftAsItWas(command: [String]) async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("notes.txt").path
            let text = Data(String(repeating: "the operator's notes, not a database\n", count: 200).utf8)
            try text.write(to: URL(fileURLWithPath: db))
            let result = try await AuthTests.command(command + ["--db", db])
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("\(db) is not a platformd database"), "\(result.stderr)")
            #expect(result.stderr.contains("SQLite error 26"), "\(result.stderr)")
            #expect(!result.stderr.contains("Error:"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(FileManager.default.contents(atPath: db) == text)
        }
    }

    @Test func serveCreatesTheDatabaseAndThenTheOthersReadIt() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("new.sqlite").path
            try await PlatformdProcess.createDatabase(db)
            #expect(FileManager.default.fileExists(atPath: db))
            let listed = try await AuthTests.command(["keys", "list", "--db", db])
            #expect(listed.status == 0, "\(listed.stderr)")
        }
    }
}

/// A request naming a tenant that is not hosted is -32002 with `data.tenants`, the hosted ids, so
/// a client that wrote the plugin's name for its tenant id is told what to write.
@Suite("An unknown tenant names the hosted ones")
struct UnknownTenantTests {
    @Test(arguments: ["flow.start", "flow.get", "flow.describe", "analytics.funnel", "events.list", "profile.get"])
    func anUnknownTenantIsNotFoundWithTheHostedIDs(method: String) async throws {
        try await PlatformdProcess.withServer { server in
            let params: JSONValue = ["tenant": .string(Hosted.plugin), "userId": "u1", "sessionId": "s1"]
            let reply = try await server.call(method, params)
            #expect(reply["error"]?["code"] == -32002, "\(reply.serialized())")
            #expect(reply["error"]?["data"]?["tenants"] == .array(Hosted.tenants.map(JSONValue.string)), "\(reply.serialized())")
        }
    }
}

/// A SQLite file a newer `platformd` migrated is refused by every command that opens it, with
/// one line naming what this binary does not know, before anything is read or written.
@Suite("platformd: a database from a newer version")
struct NewerDatabaseTests {
    @Test(arguments: [["keys", "list"], ["flows", "check"], ["serve", "--unix", "SOCKET"]])
    func aDatabaseMigratedByANewerBinaryIsRefusedInOneLine(command: [String]) async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("newer.sqlite").path
            try await PlatformdProcess.createDatabase(db)
            let queue = try DatabaseQueue(path: db)
            try await queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-a-newer-platformd')") }
            try queue.close()
            let socket = directory.appendingPathComponent("s.sock").path
            let result = try await AuthTests.command(command.map { $0 == "SOCKET" ? socket : $0 } + ["--db", db])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.contains("migrated by a newer platformd (v99-from-a-newer-platformd)") == true, "\(result.stderr)")
            #expect(lines.first?.contains(db) == true, "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: socket), "nothing was served")
        }
    }
}

/// A command beside the server of a new version leaves a file it would have to migrate alone:
/// a server of the older version may be serving from it.
@Suite("platformd: a database not migrated to this version")
struct UnmigratedDatabaseTests {
    @Test(arguments: [["keys", "list"], ["funnel", Hosted.tenant]])
    func aCommandRefusesAFileWithMigrationsToComeInOneLine(command: [String]) async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("older.sqlite").path
            try await PlatformdProcess.createDatabase(db)
            // The newest migration marked as not applied: as a file an older server made.
            let queue = try DatabaseQueue(path: db)
            let newest = try await queue.write { db in
                let newest = try String.fetchOne(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid DESC LIMIT 1") ?? ""
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [newest])
                return newest
            }
            try queue.close()
            let result = try await AuthTests.command(command + ["--db", db])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.contains("is not migrated to this version of platformd (\(newest))") == true, "\(result.stderr)")
            #expect(lines.first?.contains("start this version's platformd serve") == true, "\(result.stderr)")
            let applied = try await DatabaseQueue(path: db).read { db in try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations") }
            #expect(!applied.contains(newest), "the command migrated nothing")
        }
    }
}
