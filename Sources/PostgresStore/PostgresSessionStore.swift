import Foundation
import Logging
import NIOSSL
import PlatformCore
import PlatformStorage
import PostgresNIO
import Synchronization

/// The store for several hosts on one database: PostgreSQL through postgres-nio's `PostgresClient`
/// (a connection pool; the server-side Swift driver maintained with SwiftNIO, which this server
/// already runs on). It passes the same conformance suite as `SQLiteSessionStore`.
///
/// - A command on a session this host knows is decided on the state it remembers and written
///   optimistically: one statement that applies only if the row's write count is unchanged, sent
///   together with the other writes waiting then (group commit, `OptimisticWriteBatcher`). A row
///   changed meanwhile sends the command to the locked path.
/// - The locked path is one transaction on one pooled connection (`BEGIN` … `COMMIT`): two hosts
///   updating one session serialise on its row (`SELECT … FOR UPDATE`); the second reads the
///   state the first committed, so a submit for an old revision gets -32003 from the engine. A
///   session started by user and flow is first serialised by a transaction-scoped advisory lock on
///   (tenant, user, flow), so two hosts starting it at once create it once.
/// - The writes that run often are prepared statements (planned once per connection).
/// - Outbox events of one tenant are inserted under a transaction-scoped advisory lock on the
///   tenant, so their sequence order is their commit order and an `events.list` cursor never
///   skips an event that committed late.
/// - Connection failures, timeouts and the server's "try again" errors become `StoreUnavailable`
///   (-32008 to clients); the pool reconnects by itself once the server is back.
/// - An erasure deletes the rows in the rejecting transaction; a `VACUUM` of the answers and
///   sessions tables then runs off the reply path so the dead tuples go soon.
public final class PostgresSessionStore: SessionStore, CredentialStore, DeliveryStore {
    public struct Options: Sendable {
        /// Connections the pool may open to the server (per host).
        public var poolSize: Int = 8
        /// How long one store call may take (waiting for a connection included) before it is
        /// answered unavailable.
        public var operationTimeout: Duration = .seconds(10)
        /// How long start-up waits for the server.
        public var connectTimeout: Duration = .seconds(10)
        /// A schema to use (created when missing) instead of the user's default `search_path`;
        /// the tests give each store a fresh one.
        public var schema: String?

        /// How often the connections the pool keeps open are pinged while traffic leaves one of
        /// them unused (no store calls, or one at a time): an idle connection must not be
        /// forgotten by a NAT or firewall between the host and the server, which drops it without
        /// a word.
        public var idleKeepAlive: Duration = .seconds(30)

        public init(poolSize: Int = 8, schema: String? = nil) {
            self.poolSize = poolSize
            self.schema = schema
        }
    }

    /// The server could not be reached (or refused us) at start-up.
    public struct Unreachable: Error, CustomStringConvertible, Sendable {
        public var target: String
        public var detail: String
        public var description: String { "cannot reach PostgreSQL at \(target): \(detail)" }
    }

    /// A database URL that is not one.
    public struct InvalidURL: Error, CustomStringConvertible, Sendable {
        public var reason: String
        public var description: String { "invalid PostgreSQL URL: \(reason)" }
    }

    let client: PostgresClient
    let runner: Task<Void, Never>
    let logger: Logger
    let options: Options
    let target: String
    let vacuumState = Mutex<(running: Task<Void, Never>?, again: Bool, generation: Int)>((nil, false, 0))
    let vacuumCount = Atomic<Int>(0)
    /// The pings of the kept connections while idle (`keepConnectionsAlive`).
    let keepingAlive = Mutex<Task<Void, Never>?>(nil)
    /// Rounds of keep-alive pings so far, and the most server processes one round reached (for
    /// tests: a round's pings, sent together, should each land on a kept connection of its own).
    package let idlePings = Mutex<(count: Int, widest: Int)>((0, 0))
    let closed = Atomic<Bool>(false)
    let reachability: Reachability
    let watch: StoreCallWatch
    /// The sessions this host last wrote or read locked, with their rows' write counts: a command
    /// on one of them is decided without reading it first (a write from another host makes the
    /// entry stale, and the write count's check then sends the command to the locked path).
    let recent = RecentSessions()
    /// Group commit of the optimistic writes, one statement at a time: over two hosts x 32
    /// connections one lane gave 2,800-3,200 requests/s, two 2,500-2,900 and four 2,500-2,600
    /// (bigger batches cost less per write than statements in parallel).
    let batcher: OptimisticWriteBatcher
    /// The checks of concurrent requests' keys and tokens, one read of each at a time.
    let keyChecks = CredentialCheckBatcher<Void>()
    let tokenChecks = CredentialCheckBatcher<StoredToken>()
    /// A store call still waiting for a pooled connection this long asks whether the server can
    /// be reached at all (a direct connection, at most `probeTimeout`): when it is refused, it is
    /// answered -32008 at once instead of at the operation timeout, so a request is refused within
    /// 1 s while the database is down. (A probe that times out proves nothing and changes nothing.)
    static let leaseGrace: Duration = .milliseconds(350)
    static let probeTimeout: Duration = .milliseconds(500)

    /// Whether `string` names a PostgreSQL database (`postgres://` or `postgresql://`).
    public static func isURL(_ string: String) -> Bool {
        string.hasPrefix("postgres://") || string.hasPrefix("postgresql://")
    }

    /// The TLS a URL's `sslmode` asks for, as libpq reads it: `disable` (plain), `prefer` (TLS when
    /// the server offers it), `require` (TLS, the certificate not checked unless `sslrootcert`
    /// names a file, as libpq does), `verify-ca` (TLS, the certificate signed by `sslrootcert`'s
    /// CA) and `verify-full` (that, and issued for the host named). The default is `prefer`.
    enum SSLMode: String, CaseIterable, Sendable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// The TLS of a URL: its mode and, unless disabled, the TLS configuration that checks what the
    /// mode asks of the server's certificate.
    struct TLSSetting: Sendable {
        var mode: SSLMode
        var configuration: TLSConfiguration?

        init(mode: SSLMode, rootCertificate: String?) throws {
            self.mode = mode
            guard mode != .disable else { return }
            var tls = TLSConfiguration.makeClientConfiguration()
            if let rootCertificate {
                guard FileManager.default.isReadableFile(atPath: rootCertificate) else {
                    throw InvalidURL(reason: "sslrootcert \(rootCertificate) cannot be read")
                }
                tls.trustRoots = .file(rootCertificate)
            }
            switch mode {
            case .disable:
                break
            case .prefer, .require:
                // libpq checks a `require` connection's certificate only when a root certificate is given.
                if rootCertificate == nil { tls.certificateVerification = .none }
            case .verifyCA:
                guard rootCertificate != nil else { throw InvalidURL(reason: "sslmode=verify-ca needs sslrootcert=FILE (the CA's certificate)") }
                tls.certificateVerification = .noHostnameVerification
            case .verifyFull:
                guard rootCertificate != nil else { throw InvalidURL(reason: "sslmode=verify-full needs sslrootcert=FILE (the CA's certificate)") }
                tls.certificateVerification = .fullVerification
            }
            configuration = tls
        }

        var client: PostgresClient.Configuration.TLS {
            guard let configuration else { return .disable }
            return mode == .prefer ? .prefer(configuration) : .require(configuration)
        }

        func connection() throws -> PostgresConnection.Configuration.TLS {
            guard let configuration else { return .disable }
            let context = try NIOSSLContext(configuration: configuration)
            return mode == .prefer ? .prefer(context) : .require(context)
        }
    }

    /// The client configuration a URL names: `postgres://USER:PASSWORD@HOST:PORT/DATABASE`, with
    /// `?sslmode=…&sslrootcert=FILE` as libpq takes them.
    static func configuration(url: String) throws -> (PostgresClient.Configuration, target: String, tls: TLSSetting) {
        guard isURL(url), let components = URLComponents(string: url) else {
            throw InvalidURL(reason: "expected postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let host = components.host, !host.isEmpty else { throw InvalidURL(reason: "no host") }
        guard let user = components.user, !user.isEmpty else { throw InvalidURL(reason: "no user") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw InvalidURL(reason: "no database (…/DATABASE)") }
        var mode = SSLMode.prefer
        var rootCertificate: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let given = SSLMode(rawValue: value) else {
                    throw InvalidURL(reason: "sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                mode = given
            case "sslrootcert":
                rootCertificate = item.value?.removingPercentEncoding ?? item.value
            default:
                throw InvalidURL(reason: "unsupported parameter \(item.name) (sslmode and sslrootcert are)")
            }
        }
        let port = components.port ?? 5432
        let tls = try TLSSetting(mode: mode, rootCertificate: rootCertificate)
        let configuration = PostgresClient.Configuration(
            host: host, port: port, username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database.removingPercentEncoding ?? database, tls: tls.client)
        return (configuration, "\(host):\(port)/\(database)", tls)
    }

    /// One connection as the pool makes them (for the start-up check and reachability probes).
    static func directConfiguration(
        _ configuration: PostgresClient.Configuration, tls: TLSSetting, connectTimeout: Duration
    ) throws -> PostgresConnection.Configuration {
        var direct = PostgresConnection.Configuration(
            host: configuration.host ?? "localhost", port: configuration.port ?? 5432,
            username: configuration.username, password: configuration.password,
            database: configuration.database, tls: try tls.connection())
        direct.options.connectTimeout = .nanoseconds(
            Int64(connectTimeout.components.seconds) * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000)
        direct.options.additionalStartupParameters = configuration.options.additionalStartupParameters
        return direct
    }

    /// Connects (failing with `Unreachable` when the server cannot be reached or refuses the
    /// login), migrates the schema under an advisory lock, and returns the store with its pool running.
    public static func connect(
        url: String, options: Options = Options(), logger: Logger = Logger(label: "platformd.store")
    ) async throws -> PostgresSessionStore {
        var (configuration, target, tls) = try configuration(url: url)
        configuration.options.maximumConnections = max(1, options.poolSize)
        // postgres-nio's pool arms timers (each a task group with two tasks and a sleep) every time
        // a connection goes back to it: a keep-alive timer, and an idle timer unless the connection
        // is one of the minimum it keeps open. Its keep-alive is off (~4 % of a host's CPU under
        // the bench), and the first connections, which it leases first and so the busiest, are kept
        // open (~5 % more); the store pings those itself while traffic leaves them idle
        // (`idleKeepAlive`).
        // The others open on demand and close after 60 s idle.
        configuration.options.minimumConnections = keptOpen(poolSize: options.poolSize)
        configuration.options.keepAliveBehavior = nil
        configuration.options.connectTimeout = options.connectTimeout
        if let schema = options.schema {
            guard schema.utf8.allSatisfy({ $0 == 0x5F || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }) else {
                throw InvalidURL(reason: "schema names take a-z, 0-9 and _ only")
            }
            configuration.options.additionalStartupParameters = [("search_path", schema)]
        }
        // One direct connection first: a refused connection or a wrong password is reported at
        // once, instead of the pool retrying it in the background.
        do {
            let check = try await PostgresConnection.connect(
                configuration: directConfiguration(configuration, tls: tls, connectTimeout: options.connectTimeout), id: 0, logger: logger)
            // Its statements are bounded like any store call: past the operation timeout the
            // connection is closed, which fails the statement waiting on it.
            let bound = Task {
                try await Task.sleep(for: options.operationTimeout)
                try? await check.close()
            }
            defer { bound.cancel() }
            if let schema = options.schema {
                // Under the migration lock: concurrent CREATE SCHEMA IF NOT EXISTS can still collide.
                for sql in [
                    "BEGIN", "SELECT pg_advisory_xact_lock(\(Int32(truncatingIfNeeded: migrationLock)), hashtext('\(schema)'))",
                    "CREATE SCHEMA IF NOT EXISTS \(schema)",
                    "COMMIT",
                ] {
                    try await run(check, sql, logger)
                }
            }
            try? await check.close()
        } catch {
            throw Unreachable(target: target, detail: Self.describe(error))
        }
        let direct = try directConfiguration(configuration, tls: tls, connectTimeout: probeTimeout)
        let store = PostgresSessionStore(configuration: configuration, direct: direct, target: target, options: options, logger: logger)
        do {
            try await store.migrate()
        } catch {
            try? await store.close()
            throw Unreachable(target: target, detail: Self.describe(error))
        }
        let interval = options.idleKeepAlive
        // Weakly held between rounds: a store dropped without `close()` does not keep itself alive.
        store.keepingAlive.withLock {
            $0 = Task { [weak store] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, let store else { return }
                    await store.keepConnectionsAlive()
                }
            }
        }
        return store
    }

    /// The connections the pool keeps open however idle the host is: the two it leases first (the
    /// busiest), fewer in a smaller pool (postgres-nio wants fewer than its maximum).
    static func keptOpen(poolSize: Int) -> Int { min(2, max(0, poolSize - 1)) }

    /// Pings the connections the pool keeps open, unless calls have kept them all in use since
    /// the last round (two or more at once): every `idleKeepAlive` of quiet or sparse traffic, so
    /// no NAT or firewall forgets one (a forgotten connection would hold its next request until
    /// the operation timeout). Each ping holds its connection 50 ms, so the pings, sent together,
    /// are given one kept connection each.
    func keepConnectionsAlive() async {
        let kept = Self.keptOpen(poolSize: options.poolSize)
        guard kept > 0, watch.takePeak() < kept else { return }
        let backends = await withTaskGroup(of: Int32?.self) { group in
            for _ in 0..<kept {
                group.addTask {
                    try? await self.connection { connection in
                        try await connection.query("SELECT pg_backend_pid() FROM pg_sleep(0.05)", logger: self.logger)
                            .collect().first?.decode(Int32.self)
                    }
                }
            }
            return await group.reduce(into: Set<Int32>()) { backends, pid in if let pid { backends.insert(pid) } }
        }
        guard !backends.isEmpty, !Task.isCancelled else { return }
        // The round's own calls are not traffic.
        _ = watch.takePeak()
        idlePings.withLock { $0 = (count: $0.count + 1, widest: max($0.widest, backends.count)) }
    }

    init(configuration: PostgresClient.Configuration, direct: PostgresConnection.Configuration, target: String, options: Options, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.runner = Task { await client.run() }
        self.logger = logger
        self.options = options
        self.target = target
        self.batcher = OptimisticWriteBatcher(lanes: 1)
        let reachability = Reachability { [logger] in
            // Bounded whatever the server does: a connect whose TCP part succeeded can still wait
            // forever for the server's startup answer, and a caller must never wait on that.
            await Reachability.first(within: Self.probeTimeout * 2) {
                do {
                    let connection = try await PostgresConnection.connect(configuration: direct, id: 0, logger: logger)
                    try? await connection.close()
                    return nil
                } catch {
                    // Refused, reset, unresolvable, closed: the server is not there. A probe that
                    // only ran out of time proves nothing (a busy host or server is slow to
                    // connect, not gone): the call then waits for its connection as long as the
                    // operation timeout.
                    let reason = Self.describe(error)
                    return reason.localizedCaseInsensitiveContains("timeout") || reason.localizedCaseInsensitiveContains("timed out") ? nil : reason
                }
            }
        }
        self.reachability = reachability
        self.watch = StoreCallWatch(
            leaseGrace: Self.leaseGrace, operationTimeout: options.operationTimeout, reachability: reachability, target: target)
    }

    // MARK: - closing

    /// Waits for a vacuum in progress, then closes the pool.
    public func close() async throws {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        // Waited for: a round in flight must not run on a pool being shut down.
        let keepingAlive = self.keepingAlive.withLock { $0 }
        keepingAlive?.cancel()
        await keepingAlive?.value
        await waitForVacuum()
        runner.cancel()
        await runner.value
    }

    /// Drops the schema this store was opened on (`Options.schema`) with everything in it; for tests.
    public func dropSchema() async throws {
        guard let schema = options.schema else { return }
        try await connection { connection in try await Self.run(connection, "DROP SCHEMA IF EXISTS \(schema) CASCADE", self.logger) }
    }
}
