import GRDB
import Logging
import PlatformCore
import PlatformStorage
import Synchronization

/// Copies committed pages from the WAL back into the database file on a connection of its own,
/// a short while after writes, so the writer never does it. SQLite's automatic checkpoint runs
/// in the connection that commits, after the commit: every write waiting for group commit then
/// also waited for a thousand pages to be read back, written and synced. A passive checkpoint
/// takes no lock a writer or reader needs; once it has copied everything, the next write starts
/// the WAL again from its beginning. The writer keeps a far higher automatic threshold as a
/// safety net, should this fall behind.
final class WALCheckpointer: Sendable {
    /// How long after a write the pages are copied; writes meanwhile share one checkpoint, so a
    /// page written by many of them is copied once.
    static let delay: Duration = .milliseconds(50)
    /// The writer's own automatic checkpoint threshold, in pages.
    static let writerThreshold = 20_000

    private let connection: DatabaseQueue
    private let loop = DetachedLoop()
    /// Times the loop woke, for tests (an idle store's loops sleep).
    let wakes = Atomic<Int>(0)
    /// Passive checkpoints run, for tests.
    let checkpoints = Atomic<Int>(0)

    init(path: String, configuration: Configuration) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// How often an idle checkpointer looks whether its store is still there.
    static let idlePeriod: Duration = .seconds(60)

    /// Checkpoints after each commit (`committed` is rung with each; `writes` counts the
    /// transactions committed) until stopped, or until `writes` answers nil (its store is gone
    /// without being closed). Idle, it sleeps until the next commit.
    func start(writes: @escaping @Sendable () -> Int?, committed: Wakeup, logger: Logger) {
        let connection = connection
        loop.start {
            var checkpointed = writes()
            var failing = false
            while !Task.isCancelled {
                // After a commit, a pause: the commits of the moment share one checkpoint.
                let rung = await committed.wait(upTo: Self.idlePeriod)
                if rung { try? await Task.sleep(for: Self.delay) }
                self.wakes.add(1, ordering: .relaxed)
                guard !Task.isCancelled, let now = writes() else { return }
                // A ring is a commit to copy even when the count has not moved since the loop
                // first read it: a commit made before this task first ran is counted in that
                // first read, and its ring, kept for the first wait, is all that says it is there.
                guard rung || now != checkpointed else { continue }
                do {
                    _ = try await connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
                    self.checkpoints.add(1, ordering: .relaxed)
                    checkpointed = now
                    if failing { logger.info("WAL checkpoints run again") }
                    failing = false
                } catch  where Task.isCancelled || error is CancellationError {
                    // Stopping (the store closes): not a failure; close() truncates the WAL.
                    return
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                    // Another connection (another process on the same file) is checkpointing
                    // or recovering the WAL: the pages get copied either way.
                    checkpointed = now
                } catch {
                    if !failing { logger.warning("WAL checkpoint failed, retrying after the next write: \(error)") }
                    failing = true
                }
            }
        }
    }

    /// A truncating checkpoint (an erasure's old page versions must leave the WAL), on this
    /// connection so that it never runs beside a passive one. It waits at most 200 ms for readers
    /// of old snapshots, then fails; the store retries it later.
    func truncate() throws {
        _ = try connection.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = 200")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = 10000") }
            return try db.checkpoint(.truncate)
        }
    }

    /// Ends the checkpoints after writes; `truncate()` still works until `close()`.
    func stop() async {
        await loop.stop()
    }

    func close() {
        try? connection.close()
    }
}
