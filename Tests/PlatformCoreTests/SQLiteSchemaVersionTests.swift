import Foundation
import GRDB
import PlatformStorage
import PlatformTesting
import Synchronization
import Testing

@testable import SQLiteStore

/// GRDB runs the migrations it has and carries on over any it does not know: an older binary
/// on a file a newer one migrated (a rollback without the backup) served from a schema it did
/// not know, and failed part of the time. The store refuses such a file at open, writable or
/// read-only, before it migrates anything.
@Suite struct SQLiteSchemaVersionTests {
    @Test(arguments: [false, true])
    func aFileMigratedByANewerBinaryIsRefusedBeforeAnythingIsWritten(readOnly: Bool) async throws {
        let directory = try TemporaryDirectory.make()
        let path = directory.appendingPathComponent("newer.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try SQLiteSessionStore.migrator.migrate(queue, upTo: "v11-experiment-rollup-mark")
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-b'), ('v98-a')")
        }
        try queue.close()

        await #expect(throws: SchemaFromANewerVersion(database: path, unknownMigrations: ["v98-a", "v99-b"])) {
            try await SQLiteSessionStore.open(path: path, readOnly: readOnly)
        }
        let applied = try await DatabaseQueue(path: path).read { db in try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(!applied.contains("v12-experiment-outcomes"), "nothing was migrated")
    }

    /// A command beside the server (`keys`, `funnel`, …) of a new version does not migrate a file
    /// a server of the older version may be serving from; the new server migrates it.
    @Test func aFileWithMigrationsToComeIsRefusedByACommandAndMigratedByTheServer() async throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("older.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try SQLiteSessionStore.migrator.migrate(queue, upTo: "v11-experiment-rollup-mark")
        try queue.close()

        let toCome = Array(SQLiteSessionStore.migrator.migrations.drop { $0 != "v11-experiment-rollup-mark" }.dropFirst())
        #expect(toCome.first == "v12-experiment-outcomes")
        await #expect(throws: SchemaNotMigrated(database: path, pendingMigrations: toCome)) {
            try await SQLiteSessionStore.open(path: path, migrating: false)
        }
        let before = try await DatabaseQueue(path: path).read { db in try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(!before.contains("v12-experiment-outcomes"), "nothing was migrated")

        try await SQLiteSessionStore.open(path: path).close()
        let store = try await SQLiteSessionStore.open(path: path, migrating: false)
        try await store.close()
    }

    /// A new file's schema is made in a moment, and a current one needs nothing: neither says
    /// anything about migrating.
    @Test func aNewFileAndACurrentOneOpenWithoutAWordOfMigrating() async throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("same.sqlite").path
        let recorder = LogRecorder()
        try await SQLiteSessionStore.open(path: path, logger: recorder.logger("platformd.store")).close()
        let store = try await SQLiteSessionStore.open(path: path, logger: recorder.logger("platformd.store"))
        try await store.close()
        #expect(!recorder.lines.contains { $0.message.contains("migrat") }, "\(recorder.lines.map(\.message))")
    }
}

/// A start that finds the file's write lock held (another process rebuilding a large table)
/// waits for it, past the five busy timeouts it used to give up after, says so once, and says
/// who migrated the file.
@Suite struct SQLiteMigrationWaitTests {
    static let waitingLine = "waiting for the database's write lock: another process holds it, migrating the file or writing"

    /// Opens a store on a file one migration behind (v12), in WAL mode, whose write lock a
    /// connection of "another process" holds (running that last migration, v13, itself inside
    /// its transaction when `migrating`) until the store has said it waits: the lock is held
    /// for longer than the five busy timeouts the start used to give up after, however slow the
    /// machine. `walEmpty`: the WAL as a stopped server leaves it (GRDB then writes as it opens
    /// the pool, and that write waits too); else as a process migrating the file has it.
    static func openBesideAHolder(migrating: Bool, walEmpty: Bool = false) async throws -> (SQLiteSessionStore, [String], String) {
        let path = try TemporaryDirectory.make().appendingPathComponent("v12.sqlite").path
        let pool = try DatabasePool(path: path)
        // The other process plays the last migration: a newer one added means playing that one.
        #expect(SQLiteSessionStore.migrator.migrations.last == "v13-replaced-sessions")
        try SQLiteSessionStore.migrator.migrate(pool, upTo: "v12-experiment-outcomes")
        if walEmpty { try pool.close() }
        var unsafe = Configuration()
        unsafe.allowsUnsafeTransactions = true  // the lock is held across two accesses
        let holder = try DatabaseQueue(path: path, configuration: unsafe)
        // Closed after the holder opened, the pool is not the file's last connection: the WAL
        // keeps its frames.
        if !walEmpty { try pool.close() }
        try holder.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            if migrating {
                try db.execute(sql: SQLiteSessionStore.replacedSessionsTable)
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v13-replaced-sessions')")
            }
        }
        let recorder = LogRecorder()
        let ended = Mutex(false)
        let opening = Task {
            defer { ended.withLock { $0 = true } }
            return try await SQLiteSessionStore.open(path: path, busyTimeout: 0.2, logger: recorder.logger("platformd.store"))
        }
        // No short bound: in a whole `swift test` run on two cores the line came only after
        // 30 s (CI, once), and the lock must still be held when the opening gets to it. An
        // opening that ends without waiting ends the wait too.
        let waited =
            await eventually(300) { recorder.lines.contains { $0.message == waitingLine } || ended.withLock { $0 } }
            && recorder.lines.contains { $0.message == waitingLine }
        // Held six busy timeouts past the line (the start used to give up after five), then given up.
        try await Task.sleep(for: .milliseconds(1_200))
        try holder.inDatabase { db in try db.execute(sql: migrating ? "COMMIT" : "ROLLBACK") }
        try holder.close()
        let store = try await opening.value
        #expect(waited)
        return (store, recorder.lines.filter { $0.level == .notice }.map(\.message), path)
    }

    @Test func aStartWaitsForTheLockThenMigrates() async throws {
        let (store, notices, path) = try await Self.openBesideAHolder(migrating: false)
        #expect(notices == ["migrating the database schema", Self.waitingLine, "database schema migrated"])
        #expect(try SQLiteSessionStore.pendingMigrations(store.writer, path: path).isEmpty)
        try await store.close()
    }

    @Test func aStartWaitsToOpenAFileWhoseWALIsEmpty() async throws {
        let (store, notices, _) = try await Self.openBesideAHolder(migrating: false, walEmpty: true)
        #expect(notices == [Self.waitingLine, "migrating the database schema", "database schema migrated"])
        try await store.close()
    }

    @Test func aStartWhoseMigrationAnotherProcessRanSaysSo() async throws {
        let (store, notices, _) = try await Self.openBesideAHolder(migrating: true)
        #expect(notices == ["migrating the database schema", Self.waitingLine, "database schema migrated by another process"])
        let tables = try await store.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name = 'replaced_sessions'") }
        #expect(tables == ["replaced_sessions"])
        try await store.close()
    }
}
