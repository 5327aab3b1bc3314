import GRDB
import PlatformCore
import PlatformStorage
import Synchronization

/// Group commit: writes that arrive while a transaction is committing wait for the next one, and
/// each transaction carries every write waiting then. One fsync makes many requests durable; a
/// write that fails fails alone (its batch runs again with a savepoint each, see `commit`). Every
/// caller is answered only after the commit that holds its write has returned (is durable), and
/// all of them fail if that commit fails.
final class GroupCommitter: Sendable {
    /// One caller's write: runs inside the shared transaction and returns what to do once the
    /// transaction is durable (resume the caller with its result). It may run twice (the first
    /// attempt rolled back when another job of its batch threw), so it only reads and writes
    /// the database; a refusal decided before it writes is better returned than thrown, as a
    /// throw costs its whole batch a second run.
    struct Job: Sendable {
        let run: @Sendable (Database) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    let writer: any DatabaseWriter
    /// At most this many writes share one transaction, so one batch cannot grow without bound.
    let maxBatch: Int
    private let state = Mutex<(pending: [Job], draining: Bool)>(([], false))
    /// Transactions committed, writes they carried (and lone writes that failed), and batches run
    /// a second time with savepoints (a job threw), for tests and `platformd bench`.
    let counts = Mutex<(transactions: Int, writes: Int, retried: Int)>((0, 0, 0))
    /// Writes waiting for the next batch, for tests.
    var waiting: Int { state.withLock { $0.pending.count } }
    /// Rung after each committed transaction (the WAL's checkpointer waits on it).
    let committed = Wakeup()

    init(writer: any DatabaseWriter, maxBatch: Int = 256) {
        self.writer = writer
        self.maxBatch = maxBatch
    }

    /// Runs `body` in the next group transaction; returns its result once that transaction is durable.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job = Job(
                run: { db in
                    let value = try body(db)
                    return { continuation.resume(returning: value) }
                },
                fail: { continuation.resume(throwing: $0) })
            let startDrain = state.withLock { state in
                state.pending.append(job)
                defer { state.draining = true }
                return !state.draining
            }
            if startDrain { self.scheduleNextBatch() }
        }
    }

    /// Runs the next batch on the writer's queue, and from there the one after it: consecutive
    /// batches run back to back on the writer's thread, with no hop to Swift's pool between
    /// them (a drain task there waited behind the requests the last commit had just resumed,
    /// while the writer stood idle). One batch per queue item, so the writer's other work
    /// (reads of the writer connection, checkpoints, writes outside group commit) takes its
    /// turn between batches in the order it was queued.
    private func scheduleNextBatch() {
        writer.asyncWriteWithoutTransaction { db in
            let batch: [Job] = self.state.withLock { state in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    return []
                }
                let taken = Array(state.pending.prefix(self.maxBatch))
                state.pending.removeFirst(taken.count)
                return taken
            }
            guard !batch.isEmpty else { return }
            self.commit(batch, db)
            // Nothing waiting: the drain ends here rather than in one more queue item, so a lone
            // write (a quiet server's) costs one pass through the writer's queue.
            let more = self.state.withLock { state in
                if state.pending.isEmpty { state.draining = false }
                return state.draining
            }
            if more { self.scheduleNextBatch() }
        }
    }

    private func commit(_ batch: [Job], _ db: Database) {
        do {
            let started = ContinuousClock.now
            var outcomes: [Outcome] = []
            do {
                // First with no savepoints: a savepoint copies the original of every page its
                // job touches into the statement journal, and costs two more statements a job,
                // for a failure that is rare (a job refuses without writing: see `Job`). When a
                // job does fail, nothing of this attempt is kept and the batch runs again with a
                // savepoint each, so only that job fails.
                try db.inTransaction {
                    outcomes = try batch.map { job in
                        do {
                            return Outcome.succeeded(try job.run(db))
                        } catch {
                            throw JobThrew(error: error)
                        }
                    }
                    return .commit
                }
            } catch let threw as JobThrew {
                // Only a job's own failure runs the batch again: a lock another process held
                // past the busy timeout, or a failed commit, is not waited out twice.
                guard batch.count > 1 else {
                    // A lone write that threw: its transaction rolled back, as its savepoint would have.
                    counts.withLock { $0.writes += 1 }
                    throw threw.error
                }
                counts.withLock { $0.retried += 1 }
                try db.inTransaction {
                    outcomes = try batch.map { job in try Self.inSavepoint(db, job) }
                    return .commit
                }
            }
            StoreMetrics.commit(duration: .now - started, batchSize: batch.count)
            counts.withLock {
                $0.transactions += 1
                $0.writes += batch.count
            }
            committed.ring()
            // Durable now: answer everyone, in arrival order.
            for (job, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .succeeded(let finish): finish()
                case .failed(let error): job.fail(error)
                }
            }
        } catch {
            // The transaction failed (its begin or its commit), or a lone write threw: nothing
            // of this batch is saved.
            for job in batch { job.fail(error) }
        }
    }

    /// Runs one job in a savepoint of its own. The three statements are prepared once
    /// (`Database.inSavepoint` compiles its SQL on every call, through the parser and GRDB's
    /// authorizer, twice per write). Throws only when the transaction itself is lost (SQLite
    /// rolled it back after an I/O error or a full disk): then nothing of the batch can commit.
    static func inSavepoint(_ db: Database, _ job: Job) throws -> Outcome {
        try db.cachedStatement(sql: "SAVEPOINT job").execute()
        do {
            let finish = try job.run(db)
            try db.cachedStatement(sql: "RELEASE SAVEPOINT job").execute()
            return .succeeded(finish)
        } catch {
            guard db.isInsideTransaction else { throw error }
            try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT job").execute()
            try db.cachedStatement(sql: "RELEASE SAVEPOINT job").execute()
            return .failed(error)
        }
    }

    /// A job's own error, told apart from the transaction's (its begin or its commit).
    struct JobThrew: Error {
        let error: any Error
    }

    enum Outcome: Sendable {
        case succeeded(@Sendable () -> Void)
        case failed(any Error)
    }
}
