import Synchronization

/// The checks of credentials (one on every request of a logged-in connection: a key's activity, a
/// token's row, which is how what was revoked on any host is refused from its next request on)
/// that arrive while one read runs go together in the next read: one round trip answers many
/// requests, and a backend's requests, all carrying its one key, share one row. Alone, each
/// check was a pooled connection and a round trip of its own: ~150 µs of a host's CPU a request
/// (Docs/performance.md).
///
/// A check joins only a read not yet sent. One already sent may have been answered from before a
/// revocation committed after it left, which a check arriving after that commit must see.
///
/// The read runs in a task of its own, not in any caller's: one request cancelled does not fail
/// the others' checks (nor is its own check stopped). Every caller is answered once its read has
/// returned, or with its error; a read is bounded by the store's operation timeout, so a check
/// that arrives just after a hung read was sent waits for that one, then for its own.
final class CredentialCheckBatcher<Found: Sendable>: Sendable {
    private struct Pending: Sendable {
        let id: String
        let continuation: CheckedContinuation<Found?, any Error>
    }

    private let state = Mutex<(pending: [Pending], reading: Bool)>(([], false))
    /// Reads sent and the checks they answered, for tests.
    let counts = Mutex<(reads: Int, checks: Int)>((0, 0))

    /// Reads what there is of `ids` (distinct); an id not in the answer was not found.
    typealias Read = @Sendable ([String]) async throws -> [String: Found]

    /// Checks waiting for a read not yet sent, for tests.
    var waiting: Int { state.withLock { $0.pending.count } }

    /// What a read sent after this call began found of `id`. The `read` of the caller that
    /// starts reading serves the checks that join it: every caller passes the same one.
    func check(_ id: String, read: @escaping Read) async throws -> Found? {
        try await withCheckedThrowingContinuation { continuation in
            let startReading = state.withLock { state in
                state.pending.append(Pending(id: id, continuation: continuation))
                guard !state.reading else { return false }
                state.reading = true
                return true
            }
            if startReading { Task { await self.drain(read) } }
        }
    }

    private func drain(_ read: Read) async {
        var next = nextBatch()
        while let batch = next {
            let ids = Array(Set(batch.map(\.id)))
            let outcome = await Result(catching: { try await read(ids) })
            counts.withLock {
                $0.reads += 1
                $0.checks += batch.count
            }
            // Taken, or the reading over, before these are answered: a check made after an
            // answer then joins the next read, or starts one with its own `read`.
            next = nextBatch()
            for pending in batch {
                pending.continuation.resume(with: outcome.map { $0[pending.id] })
            }
        }
    }

    /// Every check waiting now; nil (and reading over) when none waits.
    private func nextBatch() -> [Pending]? {
        state.withLock { state in
            guard !state.pending.isEmpty else {
                state.reading = false
                return nil
            }
            defer { state.pending = [] }
            return state.pending
        }
    }
}

extension Result where Failure == any Error {
    /// The outcome of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
