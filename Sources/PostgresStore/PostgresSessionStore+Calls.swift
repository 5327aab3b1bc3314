import Foundation
import NIOSSL
import PlatformStorage
import PostgresNIO
import Synchronization

/// How a call reaches the database: a pooled connection under the call watch, a transaction, and
/// the failures that are passing (the database away) rather than defects.
extension PostgresSessionStore {
    /// Runs `body` on a pooled connection inside BEGIN … COMMIT; any error rolls back and is
    /// rethrown as it was (a passing failure as `StoreUnavailable`).
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await connection { connection in
            try await Self.run(connection, "BEGIN", self.logger)
            do {
                let value = try await body(connection)
                // Past the operation timeout the caller has been told nothing was saved: roll back.
                try Task.checkCancellation()
                try await Self.run(connection, "COMMIT", self.logger)
                return value
            } catch {
                do {
                    try await Self.run(connection, "ROLLBACK", self.logger)
                } catch {
                    // A connection that cannot roll back must not go back to the pool mid-transaction.
                    try? await connection.close()
                }
                throw error
            }
        }
    }

    /// Runs `body` on a pooled connection within the operation timeout; passing failures become
    /// `StoreUnavailable` with the detail. While the server is known to refuse (a probe less than
    /// 5 s ago found it refusing), a call asks again at once and is refused without waiting; a
    /// call that waits for a connection longer than the lease grace is refused as soon as a probe
    /// finds the server gone (`StoreCallWatch`).
    func connection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        if reachability.recentlyRefused(), let reason = await reachability.unreachable() {
            throw StoreUnavailable("PostgreSQL at \(target) cannot be reached: \(reason)")
        }
        let call = watch.begin()
        defer { watch.end(call) }
        // The work runs in a task of its own so the watch can stop it without cancelling the
        // request's task, whose reply is still to be written. The caller is answered when the
        // work ends or when the watch fails the call, whichever comes first: it used to wait for
        // the cancelled work to end too, and a lease or statement that never heeded its
        // cancellation held a caller (and a whole test run) for good.
        let started = Mutex<Task<Void, Never>?>(nil)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                    let answered = Reachability.Once()
                    let work = Task {
                        do {
                            let value = try await self.client.withConnection { connection in
                                call.hasConnection(connection)
                                return try await body(connection)
                            }
                            if answered.take() { continuation.resume(returning: value) }
                        } catch {
                            if answered.take() { continuation.resume(throwing: error) }
                        }
                    }
                    started.withLock { $0 = work }
                    if Task.isCancelled { work.cancel() }
                    call.attach {
                        work.cancel()
                        if answered.take() { continuation.resume(throwing: CancellationError()) }
                    }
                }
            } onCancel: {
                started.withLock { $0 }?.cancel()
            }
        } catch {
            if let failure = call.failure { throw StoreUnavailable(failure) }
            if let unavailable = error as? StoreUnavailable { throw unavailable }
            if let reason = Self.passingFailure(error) { throw StoreUnavailable("PostgreSQL at \(target): \(reason)") }
            throw error
        }
    }

    /// Why `error` is a passing condition (the server out of reach, restarting, overloaded, a
    /// lock or serialisation conflict), or nil for a defect.
    static func passingFailure(_ error: any Error) -> String? {
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
                .queryCancelled, .sslUnsupported, .failedToAddSSLHandler:
                return describe(error)
            case .server:
                let state = error.serverInfo?[.sqlState] ?? ""
                // 08: connection exception; 53: insufficient resources; 57P0x: shutting down or
                // starting; 57014: statement timeout; 40001/40P01: serialisation failure,
                // deadlock; 55P03: lock not available.
                if state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P") || state == "57014"
                    || state == "40001" || state == "40P01" || state == "55P03"
                {
                    return describe(error)
                }
                return nil
            default:
                return nil
            }
        }
        // The pool's own errors (its circuit breaker tripped after failed connection attempts, a
        // request cancelled), NIO's connect errors.
        let name = String(reflecting: type(of: error))
        if name.contains("ConnectionPoolError") || name.contains("ChannelError") || name.contains("IOError")
            || error is CancellationError
        {
            return "\(error)"
        }
        return nil
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            switch error.code {
            case .sslUnsupported:
                return "TLS: the server does not offer TLS, which the URL's sslmode requires"
            case .failedToAddSSLHandler:
                return "TLS could not be set up: \(error.underlying.map { "\($0)" } ?? "\(error.code)")"
            default:
                break
            }
            if let underlying = error.underlying, underlying is NIOSSLError || "\(type(of: underlying))".contains("SSL") {
                return "TLS handshake failed: \(underlying)"
            }
            if let message = error.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    public func unavailability(of error: any Error) -> String? {
        if let unavailable = error as? StoreUnavailable { return unavailable.reason }
        return Self.passingFailure(error)
    }
}
