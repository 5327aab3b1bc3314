import PlatformStorage
import PostgresNIO
import Synchronization

/// Bounds every store call with one watcher for all of them instead of timers of their own: a
/// call still waiting for a pooled connection after `leaseGrace` is answered unavailable as soon
/// as a probe finds the server refusing, and any call is answered unavailable at the operation
/// timeout. (Each call used to race two sleeping tasks and a probe task against its work: three
/// tasks and two timers a request, a third of the process's context switches under load.)
///
/// The watcher runs only while calls are in flight, waking every `tick`.
final class StoreCallWatch: Sendable {
    /// One store call: when it began, whether it has its connection, and how to stop its work.
    final class Call: Sendable {
        let started = ContinuousClock.now
        let leased = Atomic<Bool>(false)
        private let state = Mutex<(cancel: (@Sendable () -> Void)?, failure: String?, connection: PostgresConnection?)>((nil, nil, nil))

        /// The call has its connection. A call failed from now on closes it: a statement in flight
        /// does not end when its task is cancelled, but it does when its connection closes.
        func hasConnection(_ connection: PostgresConnection) {
            leased.store(true, ordering: .relaxed)
            let failed = state.withLock { state in
                state.connection = connection
                return state.failure != nil
            }
            if failed { Task { try? await connection.close() } }
        }

        /// How to stop the call's work; at once if the call has already failed.
        func attach(_ cancel: @escaping @Sendable () -> Void) {
            let failed = state.withLock { state in
                guard state.failure == nil else { return true }
                state.cancel = cancel
                return false
            }
            if failed { cancel() }
        }

        /// Ends the call as unavailable for `reason` (the first reason given wins).
        func fail(_ reason: String) {
            let (cancel, connection) = state.withLock { state -> ((@Sendable () -> Void)?, PostgresConnection?) in
                guard state.failure == nil else { return (nil, nil) }
                state.failure = reason
                return (state.cancel, state.connection)
            }
            cancel?()
            if let connection { Task { try? await connection.close() } }
        }

        var failure: String? { state.withLock { $0.failure } }
    }

    private let calls = Mutex<(inFlight: [ObjectIdentifier: Call], watching: Bool, peak: Int)>(([:], false, 0))
    private let leaseGrace: Duration
    /// Settable for tests (a short bound on a store that connected and migrated under the usual one).
    var operationTimeout: Duration {
        get { timeout.withLock { $0 } }
        set { timeout.withLock { $0 = newValue } }
    }
    private let timeout: Mutex<Duration>
    private let tick: Duration
    private let reachability: Reachability
    private let target: String

    init(leaseGrace: Duration, operationTimeout: Duration, tick: Duration = .milliseconds(100), reachability: Reachability, target: String) {
        self.leaseGrace = leaseGrace
        self.timeout = Mutex(operationTimeout)
        self.tick = tick
        self.reachability = reachability
        self.target = target
    }

    func begin() -> Call {
        let call = Call()
        let startWatching = calls.withLock { calls in
            calls.inFlight[ObjectIdentifier(call)] = call
            calls.peak = max(calls.peak, calls.inFlight.count)
            defer { calls.watching = true }
            return !calls.watching
        }
        if startWatching { Task { await self.watch() } }
        return call
    }

    func end(_ call: Call) {
        calls.withLock { _ = $0.inFlight.removeValue(forKey: ObjectIdentifier(call)) }
    }

    /// The most calls in flight at once since the last time this was asked (the calls in flight
    /// now, at least): fewer than two, and the pool's second connection may have had no use.
    func takePeak() -> Int {
        calls.withLock { calls in
            defer { calls.peak = calls.inFlight.count }
            return calls.peak
        }
    }

    private func watch() async {
        while true {
            try? await Task.sleep(for: tick)
            let inFlight: [Call]? = calls.withLock { calls in
                guard !calls.inFlight.isEmpty else {
                    calls.watching = false
                    return nil
                }
                return Array(calls.inFlight.values)
            }
            guard let inFlight else { return }
            let now = ContinuousClock.now
            let operationTimeout = self.operationTimeout
            for call in inFlight where now - call.started >= operationTimeout {
                call.fail("PostgreSQL at \(target) did not answer within \(operationTimeout)")
            }
            let waiting = inFlight.filter { !$0.leased.load(ordering: .relaxed) && now - $0.started >= leaseGrace }
            // A probe that times out proves nothing: those calls then wait for the timeout.
            if !waiting.isEmpty, let reason = await reachability.unreachable() {
                for call in waiting where !call.leased.load(ordering: .relaxed) {
                    call.fail("PostgreSQL at \(target) cannot be reached: \(reason)")
                }
            }
        }
    }
}
