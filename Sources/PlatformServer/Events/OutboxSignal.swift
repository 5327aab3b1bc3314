import PlatformCore
import PlatformStorage
import Synchronization

/// Wakes the delivery worker: the platform signals after a commit that wrote an event, and a
/// finished delivery signals that a slot is free. A signal given while the worker is busy is
/// kept (once) for its next wait, so none is lost. One waiter at a time.
public final class OutboxSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    public func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next signal (at once if one came since the last wait), after `timeout`, or
    /// when the task is cancelled.
    public func wait(timeout: Duration) async {
        let signalled = state.withLock { state in
            defer { state.pending = false }
            return state.pending
        }
        if signalled || Task.isCancelled { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.nextSignal() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func nextSignal() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
