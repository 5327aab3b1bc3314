import Logging
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage
import Synchronization

/// The HTTP connections open at once (`--max-connections`). A new connection past the limit is
/// made room for by closing the oldest connections that have not logged in (no request of theirs
/// carried a bearer the server accepted), so clients that never finish a request cannot lock
/// everyone else out; when every open connection has logged in, the new one is closed instead.
package final class HTTPConnectionTable: Sendable {
    let limit: Int
    private let logger: Logger

    private struct Entry {
        let channel: any Channel
        let order: UInt64
        var loggedIn = false
        /// Its WebSocket upgrade was refused for a wrong bearer (answered 401, not 400).
        var refusedUpgrade = false
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        var next: UInt64 = 0
    }

    private let state = Mutex(State())
    /// One line per 10 s for each kind of closing, with how many there were.
    private let evictions = CountedLog(interval: .seconds(10))
    private let refusals = CountedLog(interval: .seconds(10))
    let headerTimeouts = CountedLog(interval: .seconds(10))
    let idleTimeouts = CountedLog(interval: .seconds(10))

    package init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    var count: Int { state.withLock { $0.entries.count } }

    /// Registers a new connection; false when it must be closed (every slot holds a logged-in
    /// connection). Closes the connections it evicts.
    func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let (admitted, victims) = state.withLock { state -> (Bool, [any Channel]) in
            var victims: [any Channel] = []
            if state.entries.count >= limit {
                let excess = state.entries.count - limit + 1
                let oldest = state.entries.filter { !$0.value.loggedIn }.sorted { $0.value.order < $1.value.order }.prefix(excess)
                for (victim, entry) in oldest {
                    state.entries[victim] = nil
                    victims.append(entry.channel)
                }
                if state.entries.count >= limit { return (false, victims) }
            }
            state.entries[id] = Entry(channel: channel, order: state.next)
            state.next += 1
            return (true, victims)
        }
        for victim in victims { victim.close(promise: nil) }
        if !victims.isEmpty, let more = evictions.admit(victims.count) {
            logger.notice("closed \(more) HTTP connection(s) that had not logged in, the oldest first, to make room for new ones (--max-connections \(limit))")
        }
        if !admitted, let more = refusals.admit() {
            logger.warning("refused \(more) HTTP connection(s): all \(limit) open connections have logged in (--max-connections)")
        }
        return admitted
    }

    /// A request on the connection carried a bearer (or cookie) the server accepted.
    func loggedIn(_ channel: any Channel) {
        state.withLock { state in state.entries[ObjectIdentifier(channel)]?.loggedIn = true }
    }

    /// The connection's upgrade is being refused for its bearer.
    func refusedUpgrade(_ channel: any Channel) {
        state.withLock { state in state.entries[ObjectIdentifier(channel)]?.refusedUpgrade = true }
    }

    func takeRefusedUpgrade(_ channel: any Channel) -> Bool {
        state.withLock { state in
            let id = ObjectIdentifier(channel)
            guard state.entries[id]?.refusedUpgrade == true else { return false }
            state.entries[id]?.refusedUpgrade = false
            return true
        }
    }

    func remove(_ channel: any Channel) {
        _ = state.withLock { state in state.entries.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Logs a connection closed for a timeout, at most one line per 10 s.
    func closedForTimeout(header: Bool, seconds: Int64) {
        if header, let more = headerTimeouts.admit() {
            logger.notice("closed \(more) HTTP connection(s) whose request head did not arrive within \(seconds) s (--header-timeout)")
        } else if !header, let more = idleTimeouts.admit() {
            logger.info("closed \(more) HTTP connection(s) without a whole request for \(seconds) s (--idle-timeout)")
        }
    }
}

/// Counts events and says, at most once per interval, how many there were since it last said.
final class CountedLog: Sendable {
    let interval: Duration
    private let state = Mutex<(count: Int, last: ContinuousClock.Instant?)>((0, nil))

    init(interval: Duration) {
        self.interval = interval
    }

    /// Adds `events`; the count to log now (this call's and those held back), or nil to stay quiet.
    func admit(_ events: Int = 1, now: ContinuousClock.Instant = .now) -> Int? {
        state.withLock { state in
            state.count += events
            if let last = state.last, now - last < interval { return nil }
            defer {
                state.count = 0
                state.last = now
            }
            return state.count
        }
    }
}
