import Dispatch
import Logging
import PlatformServer
import PlatformStorage
import SQLiteStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGTERM and SIGINT seen while `serve` or `mcp` starts. The stop signals are trapped first thing
/// (`Serve.run`, `MCP.run`), and the service group acts on one only once the store is open and its
/// services started; a
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

extension StoreOptions {
    /// Opens the database for a long-running command (`serve`, `mcp`: created and migrated if
    /// need be), giving up a wait for another process's write lock when `stops` has seen a stop
    /// signal: then it logs that and answers nil, and the command ends, exit 0, the file as it
    /// was. Either way `stops` ends here: the service group has the signals from here on.
    func openPlatform(tenants: [HostedTenant], logger: Logger, unlessStopped stops: StopWhileStarting) async throws -> (
        Platform, any PlatformStore
    )? {
        defer { stops.end() }
        do {
            return try await openPlatform(tenants: tenants, logger: logger, access: .createIfMissing, abandonWait: { stops.asked })
        } catch let abandoned as SQLiteSessionStore.LockWaitAbandoned {
            logger.notice(
                "a stop signal came while waiting for the database's write lock: stopped before serving",
                metadata: ["database": "\(abandoned.database)"])
            return nil
        }
    }
}
