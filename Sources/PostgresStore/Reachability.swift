import PlatformStorage
import Synchronization

/// A session start that found no session and then lost the insert to another host's start: it is
/// decided again on the row that host inserted.
struct StartRaced: Error {}

/// A write the database refused for a reason that is a bug, not a passing condition.
struct StoreDefect: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Whether the server can be reached now: one direct connection attempt at a time, its answer
/// kept for half a second, so a burst of waiting requests makes one probe, not one each.
actor Reachability {
    let probe: @Sendable () async -> String?
    private var last: (at: ContinuousClock.Instant, reason: String?)?
    private var running: Task<String?, Never>?

    init(probe: @escaping @Sendable () async -> String?) {
        self.probe = probe
    }

    /// What `work` gives, or nil (nothing learnt) if it has not answered within `limit`; the work
    /// is left to finish on its own, and nobody waits for it.
    static func first(within limit: Duration, _ work: @escaping @Sendable () async -> String?) async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let once = Once()
            Task {
                let reason = await work()
                if once.take() { continuation.resume(returning: reason) }
            }
            Task {
                try? await Task.sleep(for: limit)
                if once.take() { continuation.resume(returning: nil) }
            }
        }
    }

    /// True for the first caller only.
    final class Once: Sendable {
        private let taken = Atomic<Bool>(false)
        func take() -> Bool { !taken.exchange(true, ordering: .relaxed) }
    }

    /// When a probe last found the server refusing; read without a hop onto the actor by every
    /// store call.
    private nonisolated let refusedAt = Mutex<ContinuousClock.Instant?>(nil)

    /// Whether the last probe found the server refusing less than 5 s ago: while it is down, a
    /// call asks at once (the answer is kept 500 ms, then probed again) instead of first waiting
    /// the lease grace, which on a loaded host put sequential refusals at 2 s and more.
    nonisolated func recentlyRefused() -> Bool {
        guard let refused = refusedAt.withLock({ $0 }) else { return false }
        return ContinuousClock.now - refused < .seconds(5)
    }

    /// Why the server cannot be reached, or nil when it can.
    func unreachable() async -> String? {
        if let last, ContinuousClock.now - last.at < .milliseconds(500) { return last.reason }
        if let running { return await running.value }
        let task = Task { await probe() }
        running = task
        let reason = await task.value
        let now = ContinuousClock.now
        last = (now, reason)
        refusedAt.withLock { $0 = reason == nil ? nil : now }
        running = nil
        return reason
    }
}
