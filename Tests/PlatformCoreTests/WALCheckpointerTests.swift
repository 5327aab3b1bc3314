import Foundation
import GRDB
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Synchronization
import Testing

@testable import SQLiteStore

/// Committed pages reach the database file soon after a write, copied by the store's own
/// checkpointing connection: the writer no longer does it in its commit, and far fewer pages
/// than SQLite's automatic threshold (a thousand) are enough.
@Suite struct WALCheckpointerTests {
    /// Whether the database file alone (without its WAL) holds the session.
    func mainFileHolds(_ path: String, sessionId: String, copyTo directory: URL) throws -> Bool {
        let copy = directory.appendingPathComponent("copy-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy.path)
        let queue = try DatabaseQueue(path: copy.path)
        defer { try? queue.close() }
        return try queue.read { db in
            try db.tableExists("sessions")
                && (Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)", arguments: [sessionId]) ?? false)
        }
    }

    @Test func aCommittedSessionReachesTheDatabaseFileWithoutACheckpointByTheWriter() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("checkpoint.sqlite").path
            let store = try await SQLiteSessionStore.open(path: path)
            let state = sampleState(id: "s-checkpointed")
            try await store.updateSession(tenant: state.tenant, key: .id(state.id)) { _ in (SessionCommit(state: state, events: []), ()) }
            let copied = try await eventually {
                try mainFileHolds(path, sessionId: state.id, copyTo: directory)
            }
            #expect(copied, "the session is still only in the WAL")
            try await store.close()
        }
    }

    /// A commit made before the loop's task first ran is already in the count the loop starts
    /// from; its ring, kept for the first wait, is what says it is there. (The loop compared
    /// counts only, and left such a commit in the WAL until the next write or its idle minute:
    /// a crowded test run showed it.)
    @Test func aCommitMadeBeforeTheLoopFirstRanIsCheckpointed() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("early.sqlite").path
            // A WAL file nobody else checkpoints, holding one committed row.
            var configuration = GRDB.Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            let pool = try DatabasePool(path: path, configuration: configuration)
            try await pool.write { db in
                try db.execute(sql: "CREATE TABLE t (v TEXT NOT NULL)")
                try db.execute(sql: "INSERT INTO t (v) VALUES ('early')")
            }
            // Started after that commit: its count never moves, and its doorbell was rung before it began.
            let checkpointer = try WALCheckpointer(path: path, configuration: GRDB.Configuration())
            let logs = LogRecorder()
            checkpointer.start(writes: { 1 }, committed: Wakeup(rung: true), logger: logs.logger("test"))
            let ran = await eventually { checkpointer.checkpoints.load(ordering: .relaxed) > 0 }
            #expect(ran, "the commit's ring was taken as no change; logged: \(logs.lines.map(\.message))")
            await checkpointer.stop()
            checkpointer.close()
            try pool.close()
        }
    }
}
