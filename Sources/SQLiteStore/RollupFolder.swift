import Logging
import Synchronization

/// Moves the experiments' rollup a moment after enrolled sessions' commits, on its own task and
/// in its own transactions, so a command's commit writes only its session and events. Commits
/// made meanwhile share one fold: each session's rollup pages are written once for all of them.
/// Results fold whatever is left before they are read, so a reader never sees the rollup behind.
final class RollupFolder: Sendable {
    /// How long after an enrolled session's commit the fold runs. Short, so each fold holds the
    /// one writer briefly (250 ms doubled the p99 of 16 walking connections; 50 ms kept it).
    static let delay: Duration = .milliseconds(50)

    /// Every this many pauses the fold runs anyway, so the events of sessions not enrolled (an
    /// experiment over, its people gone) never pile up past the mark for a read to scan.
    static let sweepEvery = 200
    /// True at first: what a stopped process left is folded once it starts again.
    private let due = Mutex(true)
    private let loop = DetachedLoop()

    /// An enrolled session committed: fold after the next pause.
    func note() {
        due.withLock { $0 = true }
    }

    /// Calls `fold` after each pause in which something was noted, until stopped or until `fold`
    /// answers false (its store is gone without being closed); `fold(false)` only asks that.
    func start(fold: @escaping @Sendable (_ due: Bool) async throws -> Bool, logger: Logger) {
        loop.start { [self] in
            var failing = false
            var pauses = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.delay)
                // Stopping: the store's close folds what is left, outside this cancelled task.
                guard !Task.isCancelled else { return }
                pauses += 1
                let sweep = pauses % Self.sweepEvery == 0
                let now = due.withLock { due in
                    defer { due = false }
                    return due || sweep
                }
                do {
                    guard try await fold(now) else { return }
                    if failing && now { logger.info("experiment rollup folds again") }
                    if now { failing = false }
                } catch {
                    // Left for the next fold or the next read of results, which folds first.
                    if !failing { logger.warning("experiment rollup fold failed, retrying every second: \(error)") }
                    failing = true
                    due.withLock { $0 = true }
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    /// Ends the folds (the store folds what is left as it closes).
    func stop() async {
        await loop.stop()
    }
}
