import Foundation
import GRDB
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

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
            let copied = try await eventually(5) {
                try mainFileHolds(path, sessionId: state.id, copyTo: directory)
            }
            #expect(copied, "the session is still only in the WAL")
            try await store.close()
        }
    }
}
