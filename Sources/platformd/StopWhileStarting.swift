import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGTERM and SIGINT seen while `serve` starts. The stop signals are trapped first thing (`Serve.run`),
/// and the service group acts on one only once the store is open and its services started; a
/// start waiting for another process's write lock (up to two minutes) would hold the stop that
/// long, past a service manager's patience. The store's open asks `asked` while it waits and
/// gives the wait up. Watched beside the group's own trap (a signal reaches every dispatch
/// source that watches it), until `end()`.
final class StopWhileStarting: Sendable {
    private final class Seen: Sendable {
        let value = Atomic(false)
    }

    private let seen = Seen()
    private let sources: Mutex<[any DispatchSourceSignal]>

    init() {
        let seen = seen
        let watched = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { seen.value.store(true, ordering: .relaxed) }
            source.resume()
            return source
        }
        sources = Mutex(watched)
    }

    /// Whether a stop signal has come since the watch began.
    var asked: Bool { seen.value.load(ordering: .relaxed) }

    /// Stops watching: the service group has the signals from here on.
    func end() {
        sources.withLock { sources in
            for source in sources { source.cancel() }
            sources = []
        }
    }
}
