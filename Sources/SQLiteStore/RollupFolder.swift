import Logging
import PlatformStorage
import Synchronization

/// Moves the experiments' rollup a moment after enrolled sessions' commits, on its own task and
/// in its own transactions, so a command's commit writes only its session and events. Commits
/// made meanwhile share one fold: each session's rollup pages are written once for all of them.
/// Results fold whatever is left before they are read, so a reader never sees the rollup behind.
final class RollupFolder: Sendable {
    /// How long after an enrolled session's commit the fold runs. Short, so each fold holds the
    /// one writer briefly (250 ms doubled the p99 of 16 walking connections; 50 ms kept it).
    static let delay: Duration = .milliseconds(50)

    /// The fold runs at least this often, so the events of sessions not enrolled (an experiment
    /// over, its people gone) never pile up past the mark for a read to scan.
    static let sweepPeriod: Duration = .seconds(10)
    /// Rung at first: what a stopped process left is folded once it starts again.
    private let due = Wakeup(rung: true)
    private let loop = DetachedLoop()
    /// Times the loop woke, for tests (an idle store's loops sleep).
    let wakes = Atomic<Int>(0)

    /// An enrolled session committed: fold after a pause. (An idle store's folder sleeps until
    /// then, or until the sweep.)
    func note() {
        due.ring()
    }

    /// Calls `fold` after each pause that follows a note, and at least every `sweepPeriod`,
    /// until stopped or until `fold` answers false (its store is gone without being closed).
    func start(fold: @escaping @Sendable () async throws -> Bool, logger: Logger) {
        loop.start { [self] in
            var failing = false
            while !Task.isCancelled {
                // Noted: the commits of the next moment share this fold.
                if await due.wait(upTo: Self.sweepPeriod) { try? await Task.sleep(for: Self.delay) }
                wakes.add(1, ordering: .relaxed)
                // Stopping: the store's close folds what is left, outside this cancelled task.
                guard !Task.isCancelled else { return }
                do {
                    guard try await fold() else { return }
                    if failing { logger.info("experiment rollup folds again") }
                    failing = false
                } catch {
                    // Left for the next fold or the next read of results, which folds first.
                    if !failing { logger.warning("experiment rollup fold failed, retrying every second: \(error)") }
                    failing = true
                    try? await Task.sleep(for: .seconds(1))
                    due.ring()
                }
            }
        }
    }

    /// Ends the folds (the store folds what is left as it closes).
    func stop() async {
        await loop.stop()
    }
}
