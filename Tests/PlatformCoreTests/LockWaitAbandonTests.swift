import Foundation
import GRDB
import PlatformStorage
import PlatformTesting
import Synchronization
import Testing

@testable import SQLiteStore

/// An open waiting for the write lock another process holds gives the wait up when asked
/// (`serve` got a stop signal): whether it waits to open the pool (a WAL the other process left
/// empty) or to migrate, it throws `LockWaitAbandoned` soon after it is asked (each attempt waits
/// a quarter of a second inside SQLite), while the lock is still held. The pool's set-up used to
/// wait a whole busy timeout an attempt (10 s in `serve`; two minutes here, past the bound).
@Suite struct LockWaitAbandonTests {
    @Test(arguments: [false, true])
    func anOpenWaitingForTheLockGivesUpWhenAsked(walEmpty: Bool) async throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("held.sqlite").path
        let migrations = SQLiteSessionStore.migrator.migrations
        // Synchronous GRDB work, off the cooperative pool the other tests share.
        let holder = try await BlockingWork.run { () throws -> DatabaseQueue in
            let pool = try DatabasePool(path: path)
            try SQLiteSessionStore.migrator.migrate(pool, upTo: migrations[migrations.count - 2])
            if walEmpty { try pool.close() }
            var unsafe = Configuration()
            unsafe.allowsUnsafeTransactions = true  // the lock is held across two accesses
            let holder = try DatabaseQueue(path: path, configuration: unsafe)
            if !walEmpty { try pool.close() }
            try holder.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
            return holder
        }
        defer {
            try? holder.inDatabase { db in try db.execute(sql: "ROLLBACK") }
            try? holder.close()
        }

        let recorder = LogRecorder()
        let stop = Atomic(false)
        let ended = Atomic(false)
        let opening = Task {
            defer { ended.store(true, ordering: .relaxed) }
            return try await SQLiteSessionStore.open(
                path: path, busyTimeout: 120, logger: recorder.logger("platformd.store"), abandonWait: { stop.load(ordering: .relaxed) })
        }
        let waited = await eventually(300) { recorder.lines.contains { $0.message == SQLiteMigrationWaitTests.waitingLine } }
        #expect(waited)
        stop.store(true, ordering: .relaxed)
        // Generous for a loaded test run; the attempts are 0.25 s, the busy timeout 120 s.
        let gaveUp = await eventually(30) { ended.load(ordering: .relaxed) }
        #expect(gaveUp, "the open still waited 30 s after it was asked to stop")
        // The lock is still held: only giving up ends the open.
        await #expect(throws: SQLiteSessionStore.LockWaitAbandoned.self) { try await opening.value }
    }
}
