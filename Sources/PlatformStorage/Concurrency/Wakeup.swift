import Synchronization

/// What a background loop waits on instead of polling (the webhooks' delivery worker, a SQLite
/// store's checkpointer and rollup folder): `ring()` from the path that makes work for it (a
/// lock and a flag; a resume only when the loop is parked), `wait(upTo:)` parks the loop until it
/// is rung, the period passes or its task is cancelled. A ring while the loop is busy is kept
/// (once) for its next wait, so none is lost. One waiter at a time. (The store's loops polled
/// every 50 ms: an idle server made ~120 thread switches a second.)
public final class Wakeup: Sendable {
    private struct State {
        var rung: Bool
        var waiter: CheckedContinuation<Void, Never>?
        /// Which wait a timer or a cancellation belongs to: a late one must not end a later wait.
        var generation = 0
        /// The last wait a timer or a cancellation ended, even before it had parked.
        var woken = 0
    }

    private let state: Mutex<State>

    /// - Parameter rung: whether the first wait returns at once (work left from before).
    public init(rung: Bool = false) {
        state = Mutex(State(rung: rung))
    }

    public func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.rung = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns true once rung since the previous wait returned (at once if it was already),
    /// false when `period` passed or the task was cancelled first.
    @discardableResult
    public func wait(upTo period: Duration) async -> Bool {
        let generation = state.withLock { state -> Int? in
            guard !state.rung else { return nil }
            state.generation += 1
            return state.generation
        }
        if let generation {
            let timer = Task { [weak self] in
                try? await Task.sleep(for: period)
                self?.wake(generation)
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state -> Bool in
                        // A timer or a cancellation before this point found no waiter: seen here.
                        guard !state.rung, state.woken != generation, !Task.isCancelled else { return true }
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                wake(generation)
            }
            timer.cancel()
        }
        return state.withLock { state in
            defer { state.rung = false }
            return state.rung
        }
    }

    private func wake(_ generation: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.generation == generation else { return nil }
            state.woken = generation
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}
