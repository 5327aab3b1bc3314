import Logging
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage
import Synchronization

/// The bytes the server holds for lines not yet whole, over every connection together
/// (`--max-buffered-bytes`). Each connection's decoder reports what its partial line holds (the
/// capacity of the buffer it accumulates in: what the process really keeps); past the limit the
/// connections holding the most are closed, largest first, until the rest fit. A connection
/// whose lines arrive whole holds nothing and is never chosen.
package final class PartialLineBudget: Sendable {
    package static let defaultLimit = 64 << 20

    let limit: Int
    private let logger: Logger

    private struct State {
        var total = 0
        var held: [ObjectIdentifier: (bytes: Int, channel: any Channel)] = [:]
        /// Chosen to be closed: what they report from now on is not counted.
        var closing: Set<ObjectIdentifier> = []
        var closedSinceReport = 0
        var lastReport: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    package init(limit: Int = PartialLineBudget.defaultLimit, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    /// Bytes held now, over all connections.
    var total: Int { state.withLock { $0.total } }

    /// Records that `channel` now holds `bytes` for its partial line; closes the largest holders
    /// when the total is over the limit.
    func hold(_ bytes: Int, on channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let (victims, report) = state.withLock { state -> ([any Channel], (closed: Int, total: Int)?) in
            guard !state.closing.contains(id) else { return ([], nil) }
            state.total += bytes - (state.held[id]?.bytes ?? 0)
            if bytes > 0 { state.held[id] = (bytes, channel) } else { state.held[id] = nil }
            guard state.total > limit else { return ([], nil) }
            var victims: [any Channel] = []
            for (victim, holding) in state.held.sorted(by: { $0.value.bytes > $1.value.bytes }) {
                guard state.total > limit else { break }
                state.total -= holding.bytes
                state.held[victim] = nil
                state.closing.insert(victim)
                victims.append(holding.channel)
            }
            state.closedSinceReport += victims.count
            let now = ContinuousClock.now
            // One line every 10 s at most: a flood must not flood the log too.
            if let last = state.lastReport, now - last < .seconds(10) { return (victims, nil) }
            defer {
                state.closedSinceReport = 0
                state.lastReport = now
            }
            return (victims, (state.closedSinceReport, state.total))
        }
        for victim in victims { victim.close(promise: nil) }
        if let report {
            logger.notice(
                "closed \(report.closed) connection(s) holding the largest partial lines: over --max-buffered-bytes (\(limit) bytes; \(report.total) held now)")
        }
    }

    /// The connection is gone: what it held is free.
    func release(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            state.total -= state.held.removeValue(forKey: id)?.bytes ?? 0
            state.closing.remove(id)
        }
    }
}
