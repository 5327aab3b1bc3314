import PlatformCore
import PlatformStorage
import Synchronization

/// At most one log line per `interval` for a kind of failure that every request meets at once
/// (the database away: thousands of -32008 a second would bury the log). The first is logged at
/// once; the ones after it within the interval are counted, and the next line says how many.
final class LogThrottle: Sendable {
    private let interval: Duration
    private let state = Mutex<(last: ContinuousClock.Instant?, suppressed: Int)>((nil, 0))

    init(interval: Duration) {
        self.interval = interval
    }

    /// How many were held back since the last line, when this one is to be logged; nil when it is
    /// to be held back.
    func admit(at now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            if let last = state.last, now - last < interval {
                state.suppressed += 1
                return nil
            }
            defer { state = (now, 0) }
            return state.suppressed
        }
    }
}
