import GRDB
import Synchronization

/// Group commit: writes that arrive while a transaction is committing wait for the next one, and
/// each transaction carries every write waiting then, each in a savepoint of its own. One fsync
/// makes many requests durable; a write that fails rolls back its savepoint only. Every caller is
/// answered only after the commit that holds its write has returned (is durable), and all of
/// them fail if that commit fails.
final class GroupCommitter: Sendable {
    /// One caller's write: runs inside the shared transaction and returns what to do once the
    /// transaction is durable (resume the caller with its result).
    struct Job: Sendable {
        let run: @Sendable (Database) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    let writer: any DatabaseWriter
    /// At most this many writes share one transaction, so one batch cannot grow without bound.
    let maxBatch: Int
    private let state = Mutex<(pending: [Job], draining: Bool)>(([], false))
    /// Transactions committed and writes they carried, for tests and `platformd bench`.
    let counts = Mutex<(transactions: Int, writes: Int)>((0, 0))

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
            if startDrain { Task { await self.drain() } }
        }
    }

    private func drain() async {
        while true {
            let batch: [Job] = state.withLock { state in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    return []
                }
                let taken = Array(state.pending.prefix(maxBatch))
                state.pending.removeFirst(taken.count)
                return taken
            }
            guard !batch.isEmpty else { return }
            await commit(batch)
        }
    }

    private func commit(_ batch: [Job]) async {
        do {
            let outcomes: [Outcome] = try await writer.write { db in
                batch.map { job in
                    do {
                        var finish: (@Sendable () -> Void)?
                        try db.inSavepoint {
                            finish = try job.run(db)
                            return .commit
                        }
                        return .succeeded(finish ?? {})
                    } catch {
                        return .failed(error)
                    }
                }
            }
            counts.withLock { $0.transactions += 1; $0.writes += batch.count }
            // Durable now: answer everyone, in arrival order.
            for (job, outcome) in zip(batch, outcomes) {
                switch outcome {
                case .succeeded(let finish): finish()
                case .failed(let error): job.fail(error)
                }
            }
        } catch {
            // The commit itself failed: nothing of this batch is saved.
            for job in batch { job.fail(error) }
        }
    }

    enum Outcome: Sendable {
        case succeeded(@Sendable () -> Void)
        case failed(any Error)
    }
}
