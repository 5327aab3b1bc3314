import PlatformStorage
import Synchronization

/// Group commit for the optimistic writes: the writes that arrive while a statement runs go
/// together in the next one, so one round trip and one commit (one WAL flush) carry many
/// requests. Each caller still learns whether its own write applied: the statement returns the
/// ids it updated.
///
/// - At most `lanes` statements run at once (each on its own pooled connection), so the pool
///   keeps connections for the locked path and reads.
/// - A statement never carries two writes of one session (the second stays queued for the next
///   one, where the write count it was decided on no longer matches and the locked path decides:
///   one `UPDATE … FROM` row per target, or both would be told they applied), nor two
///   completions of one user's profile (an upsert cannot touch one row twice in a statement).
/// - A statement runs in a task of its own, not in any caller's: one request cancelled does not
///   fail the others' writes. Every caller is answered once its statement has returned, or with
///   its error; none is left waiting (a statement is bounded by the store's operation timeout:
///   past it the watch closes the statement's connection).
final class OptimisticWriteBatcher: Sendable {
    private struct Pending: Sendable {
        let write: SessionWrite
        let continuation: CheckedContinuation<Bool, any Error>
    }

    private let state = Mutex<(pending: [Pending], running: Int)>(([], 0))
    private let lanes: Int
    private let maxBatch: Int
    /// Statements sent and the writes they carried, for tests.
    let counts = Mutex<(statements: Int, writes: Int)>((0, 0))

    init(lanes: Int, maxBatch: Int = 64) {
        self.lanes = max(1, lanes)
        self.maxBatch = max(1, maxBatch)
    }

    /// Sends writes and answers, for each in order, whether it applied or why it failed.
    typealias Send = @Sendable ([SessionWrite]) async -> [Result<Bool, any Error>]

    /// Whether `write` applied (its row's write count was still the one it was decided on),
    /// once the statement carrying it has committed. `send` sends the writes given (any caller's
    /// does: they are alike).
    func apply(_ write: SessionWrite, send: @escaping Send) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            let startLane = state.withLock { state in
                state.pending.append(Pending(write: write, continuation: continuation))
                guard state.running < lanes else { return false }
                state.running += 1
                return true
            }
            if startLane { Task { await self.drain(send) } }
        }
    }

    private func drain(_ send: Send) async {
        while let batch = nextBatch() {
            let outcomes = await send(batch.map(\.write))
            counts.withLock {
                $0.statements += 1
                $0.writes += batch.count
            }
            for (index, pending) in batch.enumerated() {
                pending.continuation.resume(with: index < outcomes.count ? outcomes[index] : .failure(MissingOutcome()))
            }
        }
    }

    /// A sender that answered for fewer writes than it was given: a defect, never left waiting.
    struct MissingOutcome: Error {}

    /// The next statement's writes in arrival order, none sharing an exclusive key; nil (and the
    /// lane given back) when nothing waits.
    private func nextBatch() -> [Pending]? {
        state.withLock { state in
            guard !state.pending.isEmpty else {
                state.running -= 1
                return nil
            }
            var batch: [Pending] = []
            var taken = Set<String>()
            var left: [Pending] = []
            for pending in state.pending {
                let keys = pending.write.exclusiveKeys
                if batch.count < maxBatch, taken.isDisjoint(with: keys) {
                    taken.formUnion(keys)
                    batch.append(pending)
                } else {
                    left.append(pending)
                }
            }
            state.pending = left
            return batch
        }
    }
}
