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

        await #expect(throws: SchemaNotMigrated(database: path, pendingMigrations: ["v12-experiment-outcomes"])) {
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
