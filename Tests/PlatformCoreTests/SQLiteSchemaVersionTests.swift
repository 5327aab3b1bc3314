import Foundation
import GRDB
import PlatformStorage
import PlatformTesting
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
    /// A file one migration behind (v12) in WAL mode, and a connection of "another process" that
    /// has taken its write lock (running that last migration, v13, itself inside that
    /// transaction when `migrating`) and gives it up two seconds later: ten times the busy
    /// timeout of the store opened beside it, which used to give up after five.
    /// `walEmpty`: the WAL as a stopped server leaves it (GRDB then writes as it opens the pool,
    /// and that write waits too); else as a process migrating the file has it, with frames.
    static func heldFile(migrating: Bool, walEmpty: Bool = false) throws -> (path: String, release: Task<Void, any Error>) {
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
        let release = Task {
            try await Task.sleep(for: .seconds(2))
            try holder.inDatabase { db in try db.execute(sql: migrating ? "COMMIT" : "ROLLBACK") }
            try holder.close()
        }
        return (path, release)
    }

    static func notices(_ recorder: LogRecorder) -> [String] {
        recorder.lines.filter { $0.level == .notice }.map(\.message)
    }

    @Test func aStartWaitsForTheLockThenMigrates() async throws {
        let (path, release) = try Self.heldFile(migrating: false)
        let recorder = LogRecorder()
        let store = try await SQLiteSessionStore.open(path: path, busyTimeout: 0.2, logger: recorder.logger("platformd.store"))
        try await release.value
        #expect(
            Self.notices(recorder) == [
                "migrating the database schema",
                "waiting for the database's write lock: another process holds it, migrating the file or writing",
                "database schema migrated",
            ])
        #expect(try await SQLiteSessionStore.pendingMigrations(store.writer, path: path).isEmpty)
        try await store.close()
    }

    @Test func aStartWaitsToOpenAFileWhoseWALIsEmpty() async throws {
        let (path, release) = try Self.heldFile(migrating: false, walEmpty: true)
        let recorder = LogRecorder()
        let store = try await SQLiteSessionStore.open(path: path, busyTimeout: 0.2, logger: recorder.logger("platformd.store"))
        try await release.value
        #expect(
            Self.notices(recorder) == [
                "waiting for the database's write lock: another process holds it, migrating the file or writing",
                "migrating the database schema",
                "database schema migrated",
            ])
        try await store.close()
    }

    @Test func aStartWhoseMigrationAnotherProcessRanSaysSo() async throws {
        let (path, release) = try Self.heldFile(migrating: true)
        let recorder = LogRecorder()
        let store = try await SQLiteSessionStore.open(path: path, busyTimeout: 0.2, logger: recorder.logger("platformd.store"))
        try await release.value
        #expect(
            Self.notices(recorder) == [
                "migrating the database schema",
                "waiting for the database's write lock: another process holds it, migrating the file or writing",
                "database schema migrated by another process",
            ])
        let tables = try await store.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name = 'replaced_sessions'") }
        #expect(tables == ["replaced_sessions"])
        try await store.close()
    }
}
