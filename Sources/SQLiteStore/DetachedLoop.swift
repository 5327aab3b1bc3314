import Synchronization

/// A store's background task (the WAL's checkpoints, the rollup's folds): started once, and
/// stopped by cancelling it and waiting until it has returned.
final class DetachedLoop: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    func start(_ body: @escaping @Sendable () async -> Void) {
        task.withLock { $0 = Task.detached(operation: body) }
    }

    func stop() async {
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }
}
