import PlatformStorage
import Foundation
import Logging
import PlatformCore
import NIOSSL
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
        direct.options.connectTimeout = .nanoseconds(Int64(connectTimeout.components.seconds) * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000)
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

    // MARK: - schema

    static let migrations: [(version: String, sql: [String])] = [
        ("v1", [
            """
            CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                tenant TEXT NOT NULL,
                user_id TEXT NOT NULL,
                flow TEXT NOT NULL,
                status TEXT NOT NULL,
                revision BIGINT NOT NULL,
                user_json TEXT NOT NULL,
                path_json TEXT NOT NULL,
                progress_json TEXT NOT NULL,
                arrived_at DOUBLE PRECISION NOT NULL,
                last_submit_digest TEXT,
                completion_json TEXT,
                rejection_json TEXT,
                created_at DOUBLE PRECISION NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL,
                UNIQUE (tenant, user_id, flow)
            )
            """,
            """
            CREATE TABLE answers (
                session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                tenant TEXT NOT NULL,
                step_id TEXT NOT NULL,
                values_json TEXT NOT NULL,
                computed_json TEXT,
                PRIMARY KEY (session_id, step_id)
            )
            """,
            """
            CREATE TABLE profiles (
                tenant TEXT NOT NULL,
                user_id TEXT NOT NULL,
                completed_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (tenant, user_id)
            )
            """,
            """
            CREATE TABLE records (
                tenant TEXT NOT NULL,
                user_id TEXT NOT NULL,
                name TEXT NOT NULL,
                body_json TEXT NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (tenant, user_id, name),
                FOREIGN KEY (tenant, user_id) REFERENCES profiles(tenant, user_id) ON DELETE CASCADE
            )
            """,
            """
            CREATE TABLE events (
                id BIGSERIAL PRIMARY KEY,
                tenant TEXT NOT NULL,
                flow TEXT NOT NULL,
                session_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                step TEXT,
                action TEXT,
                to_step TEXT,
                seconds DOUBLE PRECISION,
                at DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX events_by_tenant ON events (tenant, flow, at)",
            "CREATE INDEX events_by_flow_session ON events (tenant, flow, session_id COLLATE \"C\", id)",
            """
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY,
                tenant TEXT,
                name TEXT NOT NULL,
                secret_hash TEXT NOT NULL UNIQUE,
                created_at DOUBLE PRECISION NOT NULL,
                last_used_at DOUBLE PRECISION,
                revoked_at DOUBLE PRECISION
            )
            """,
            """
            CREATE TABLE user_tokens (
                secret_hash TEXT PRIMARY KEY,
                tenant TEXT NOT NULL,
                user_id TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                expires_at DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX user_tokens_by_expiry ON user_tokens (expires_at)",
            """
            CREATE TABLE outbox (
                sequence BIGSERIAL PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                tenant TEXT NOT NULL,
                type TEXT NOT NULL,
                user_id TEXT NOT NULL,
                session_id TEXT,
                occurred_at DOUBLE PRECISION NOT NULL,
                body_json TEXT NOT NULL
            )
            """,
            "CREATE INDEX outbox_by_tenant ON outbox (tenant, sequence)",
            """
            CREATE TABLE deliveries (
                event_sequence BIGINT NOT NULL REFERENCES outbox(sequence) ON DELETE CASCADE,
                webhook_url TEXT NOT NULL,
                tenant TEXT NOT NULL,
                state TEXT NOT NULL,
                attempts BIGINT NOT NULL,
                next_attempt_at DOUBLE PRECISION NOT NULL,
                expires_at DOUBLE PRECISION NOT NULL,
                claimed_until DOUBLE PRECISION,
                claimed_by TEXT,
                last_status BIGINT,
                last_error TEXT,
                finished_at DOUBLE PRECISION,
                PRIMARY KEY (event_sequence, webhook_url)
            )
            """,
            "CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at)",
        ]),
        // The version of its flow a session runs on, the version each event happened on, and
        // the order in which this database's hosts first served each version (Docs/architecture.md,
        // "Flow versions").
        ("v2-flow-versions", [
            "ALTER TABLE sessions ADD COLUMN flow_version TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE sessions ADD COLUMN flow_fingerprint TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE events ADD COLUMN flow_version TEXT",
            """
            CREATE TABLE flow_versions (
                sequence BIGSERIAL PRIMARY KEY,
                tenant TEXT NOT NULL,
                flow TEXT NOT NULL,
                version TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                UNIQUE (tenant, flow, version, fingerprint)
            )
            """,
        ]),
        // When session.abandoned was last raised for a session, and the sweeper's lease (one host
        // at a time on a shared database).
        ("v3-sweeps", [
            "ALTER TABLE sessions ADD COLUMN abandoned_at DOUBLE PRECISION",
            "CREATE TABLE sweeps (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until DOUBLE PRECISION NOT NULL)",
        ]),
        // Every write of a session row counts here: the optimistic path writes only when the
        // count is still the one it read.
        ("v4-write-counts", [
            "ALTER TABLE sessions ADD COLUMN writes BIGINT NOT NULL DEFAULT 0",
        ]),
        revocations,
    ]

    /// The advisory lock key migrations take (any fixed number; hosts on one database share it).
    static let migrationLock: Int64 = 7_283_519

    /// Applies the migrations not yet recorded in `schema_migrations`, in one transaction that
    /// first takes an advisory lock: hosts starting together wait for each other, and each finds
    /// what the first applied.
    func migrate() async throws {
        try await transaction { connection in
            // Per schema: hosts sharing one schema migrate it one at a time, while stores on other
            // schemas of the same database (tests run each on its own) need not wait for them.
            try await Self.run(
                connection, "SELECT pg_advisory_xact_lock(\(Int32(truncatingIfNeeded: Self.migrationLock)), hashtext(current_schema()))",
                self.logger)
            try await Self.run(connection, """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, self.logger)
            var applied: Set<String> = []
            for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: self.logger)
                .decode(String.self)
            {
                applied.insert(version)
            }
            for migration in Self.migrations where !applied.contains(migration.version) {
                for statement in migration.sql { try await Self.run(connection, statement, self.logger) }
                _ = try await connection.query(
                    "INSERT INTO schema_migrations (version) VALUES (\(migration.version))", logger: self.logger
                ).collect()
                self.logger.info("PostgreSQL schema migrated", metadata: ["version": "\(migration.version)"])
            }
        }
    }

    static func run(_ connection: PostgresConnection, _ sql: String, _ logger: Logger) async throws {
        _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
    }

    // MARK: - transactions and failures

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

    // MARK: - sessions

    public func session(tenant: String, key: SessionKey) async throws -> SessionState? {
        try await connection { connection in try await self.fetchSession(connection, tenant: tenant, key: key, lock: false) }
    }

    public func ping() async throws {
        try await connection { connection in _ = try await connection.query("SELECT 1", logger: self.logger).collect() }
    }

    public func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        if let result = try await updateOptimistically(tenant: tenant, key: key, body) {
            return result
        }
        do {
            return try await updateLocked(tenant: tenant, key: key, body)
        } catch is StartRaced {
            return try await updateLocked(tenant: tenant, key: key, body)
        }
    }

    /// The optimistic path, as the SQLite store's: the command is decided outside any
    /// transaction on the row as last read, and its whole write (the session, its changed
    /// answers, its events) is one statement that applies it only if the row's write count is
    /// still the one read. At most a read and one statement instead of a transaction's eight or
    /// more round trips.
    /// A completion's records, profile and outbox events go in the same statement as its session,
    /// so completions share commits (and each tenant's outbox lock) like the other writes.
    /// Nil when the locked path must decide: the row changed meanwhile (the command runs again on
    /// the locked row, where a stale revision is -32003 as ever), or the commit is one this path
    /// does not write (a new or replaced session, an erasure).
    func updateOptimistically<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result? {
        let remembered: RecentSessions.Entry? = if case .id(let id) = key { recent.entry(tenant: tenant, id: id) } else { nil }
        let read: (state: SessionState, writes: Int64)
        if let remembered {
            read = (remembered.state, Int64(remembered.writeCount))
        } else {
            guard let stored = try await connection({ connection in try await self.fetchStored(connection, tenant: tenant, key: key, lock: false) }) else {
                return try await startOptimistically(tenant: tenant, key: key, body)
            }
            read = stored
        }
        let commit: SessionCommit?
        let result: Result
        do {
            (commit, result) = try body(read.state)
        } catch where remembered != nil {
            // Refused on a remembered state, which may be stale: the locked path decides.
            return nil
        }
        // Nothing to write is an answer only on a state just read.
        guard let commit else { return remembered == nil ? result : nil }
        let state = commit.state
        guard state.id == read.state.id, state.tenant == tenant, !SessionState.erases(from: read.state, to: state)
        else { return nil }
        let write = try SessionWrite(
            state, events: commit.events, replacing: read.state, writes: read.writes, profile: commit.profile, outbox: commit.outbox)
        guard try await batcher.apply(write, send: { await self.send($0) }) else { return nil }
        recent.remember(state, writeCount: Int(read.writes + 1))
        return result
    }

    /// A user's first session of a flow, decided on finding none and inserted by one statement that
    /// does nothing if another host inserted one meanwhile (the unique tenant, user and flow); then
    /// the locked path decides on theirs. Nil for a session looked up by id (gone: the locked path
    /// says so) and for any other commit.
    func startOptimistically<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result? {
        guard case .user(let userId, let flow) = key else { return nil }
        let (commit, result) = try body(nil)
        guard let commit else { return result }
        let state = commit.state
        guard IDBytes.equal(state.tenant, tenant), IDBytes.equal(state.userId, userId), state.flow == flow, commit.profile == nil, commit.outbox.isEmpty
        else { return nil }
        let started = ContinuousClock.now
        guard try await connection({ connection in try await self.insert(connection, state, events: commit.events) }) else { return nil }
        StoreMetrics.commit(duration: .now - started, batchSize: 1)
        recent.remember(state, writeCount: 0)
        return result
    }

    /// Whether the new session was inserted (false: the user already has one of that flow).
    func insert(_ connection: PostgresConnection, _ state: SessionState, events: [FlowEvent]) async throws -> Bool {
        var inserted = false
        for try await id in try await connection.execute(try SessionInsertStatement(state, events: events), logger: logger) {
            inserted = inserted || id == state.id
        }
        return inserted
    }

    /// Statements the optimistic path has sent and the writes they carried (group commit's
    /// figures, for tests and operators' curiosity).
    public var groupCommitted: (statements: Int, writes: Int) { batcher.counts.withLock { $0 } }

    /// One statement carrying these optimistic writes; for each, whether it applied. When a
    /// statement of several fails for a reason that is not the database's state (a deadlock victim,
    /// a value it refused), each write is sent again alone, so one write's failure is its own.
    func send(_ writes: [SessionWrite]) async -> [Result<Bool, any Error>] {
        do {
            let started = ContinuousClock.now
            let applied = try await connection { connection in try await self.execute(connection, writes) }
            StoreMetrics.commit(duration: .now - started, batchSize: writes.count)
            return writes.map { .success(applied.contains($0.sessionID)) }
        } catch {
            guard writes.count > 1, Self.isWritesOwnFailure(error) else { return writes.map { _ in .failure(error) } }
            var outcomes: [Result<Bool, any Error>] = []
            for write in writes { outcomes.append(contentsOf: await send([write])) }
            return outcomes
        }
    }

    /// Whether a failed statement may have failed for one of its writes rather than for the
    /// database's state: anything but an unreachable, closed or overloaded server.
    static func isWritesOwnFailure(_ error: any Error) -> Bool {
        if let error = error as? StoreUnavailable { return error.reason.contains("SQLSTATE 40") }
        guard let reason = passingFailure(error) else { return true }
        return reason.contains("SQLSTATE 40")
    }

    func execute(_ connection: PostgresConnection, _ writes: [SessionWrite]) async throws -> Set<String> {
        var applied = Set<String>()
        for try await id in try await connection.execute(SessionWriteStatement(writes), logger: logger) { applied.insert(id) }
        return applied
    }

    /// The command decided on the row locked in a transaction (`SELECT … FOR UPDATE`).
    func updateLocked<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        let started = ContinuousClock.now
        let (result, erased, wrote, saved) = try await transaction { connection -> (Result, Bool, Bool, RecentSessions.Entry?) in
            if case .user(let userId, let flow) = key {
                // Serialises two hosts starting the same user's session: the second finds the first's.
                _ = try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\("session:" + tenant + "\u{1F}" + userId + "\u{1F}" + flow), 0))",
                    logger: self.logger
                ).collect()
            }
            let stored = try await self.fetchLocked(connection, tenant: tenant, key: key)
            let old = stored?.state
            let (commit, result) = try body(old)
            // Read locked, the stored row is what to remember when nothing is written (a stale
            // entry is refreshed).
            guard let commit else {
                return (result, false, false, stored.map { RecentSessions.Entry(state: $0.state, writeCount: Int($0.writes)) })
            }
            precondition(commit.state.tenant == tenant, "a commit must stay in its tenant")
            if let stored, stored.state.id == commit.state.id {
                // The row is held: its write count is the one read, and the session's whole
                // write (a completion's records and events included) is one statement, as on the
                // optimistic path.
                let write = try SessionWrite(
                    commit.state, events: commit.events, replacing: stored.state, writes: stored.writes,
                    profile: commit.profile, outbox: commit.outbox)
                guard try await self.execute(connection, [write]).contains(write.sessionID) else {
                    throw StoreDefect("session \(write.sessionID) is not in tenant \(tenant)")
                }
            } else {
                if old == nil {
                    // Another host's optimistic start (which takes no advisory lock) may have
                    // inserted the user's session since the read: decide again on theirs.
                    guard try await self.insert(connection, commit.state, events: commit.events) else {
                        if case .user = key { throw StartRaced() }
                        throw StoreDefect("user \(commit.state.userId) of tenant \(tenant) already has a session of flow \(commit.state.flow)")
                    }
                } else {
                    try await self.save(connection, commit.state, replacing: old)
                    for event in commit.events { try await self.insert(connection, event, of: commit.state) }
                }
                if let profile = commit.profile {
                    try await self.save(connection, profile, keepingOtherRecords: true, at: commit.state.updatedAt)
                }
                try await self.insert(connection, outbox: commit.outbox, tenant: tenant)
            }
            // The row's write count after this write: one more, or 0 for a row just inserted.
            let writes = stored.map { $0.state.id == commit.state.id ? Int($0.writes) + 1 : 0 } ?? 0
            return (result, SessionState.erases(from: old, to: commit.state), true, RecentSessions.Entry(state: commit.state, writeCount: writes))
        }
        if let saved { recent.remember(saved) }
        // One session's transaction is one commit.
        if wrote { StoreMetrics.commit(duration: .now - started, batchSize: 1) }
        if erased { vacuumAfterErasure() }
        return result
    }

    /// The erased rows are dead tuples until a vacuum reclaims their space: one runs now, in a
    /// task of its own, never inside the request. Erasures while one runs ask for one more.
    func vacuumAfterErasure() {
        vacuumState.withLock { state in
            guard state.running == nil else {
                state.again = true
                return
            }
            state.generation += 1
            let generation = state.generation
            state.running = Task.detached { [weak self] in
                // Every way out clears `running` (unless a newer vacuum took its place), or
                // `waitForVacuum`, and so `close`, would wait on a finished task forever: a store
                // closed before the first pass is one such way out.
                defer {
                    self?.vacuumState.withLock { state in
                        if state.generation == generation { state.running = nil }
                    }
                }
                while let self, !self.closed.load(ordering: .relaxed) {
                    do {
                        try await self.connection { connection in
                            // The tables an erasure deletes from (a rejection, or user.erase).
                            for table in ["answers", "sessions", "events", "records", "profiles", "deliveries", "outbox"] {
                                try await Self.run(connection, "VACUUM \(table)", self.logger)
                            }
                        }
                        self.vacuumCount.add(1, ordering: .relaxed)
                    } catch {
                        self.logger.warning("VACUUM after an erasure failed (autovacuum will reclaim the rows later): \(error)")
                    }
                    let again = self.vacuumState.withLock { state in
                        defer { state.again = false }
                        if !state.again { state.running = nil }
                        return state.again
                    }
                    if !again { return }
                }
            }
        }
    }

    /// Vacuums run after erasures so far (for tests).
    public var vacuumsAfterErasure: Int { vacuumCount.load(ordering: .relaxed) }

    /// Waits for a vacuum in progress (for tests).
    public func waitForVacuum() async {
        while let task = vacuumState.withLock({ $0.running }) { await task.value }
    }

    func fetchSession(_ connection: PostgresConnection, tenant: String, key: SessionKey, lock: Bool) async throws -> SessionState? {
        try await fetchStored(connection, tenant: tenant, key: key, lock: lock)?.state
    }

    /// The session's row locked, with its write count. A session this host remembers is read
    /// whole only when another write has come since (its write count moved): a completion then
    /// costs one small read instead of the session's and its answers' rows and their parsing.
    func fetchLocked(_ connection: PostgresConnection, tenant: String, key: SessionKey) async throws -> (state: SessionState, writes: Int64)? {
        guard case .id(let id) = key, let remembered = recent.entry(tenant: tenant, id: id) else {
            return try await fetchStored(connection, tenant: tenant, key: key, lock: true)
        }
        let rows = try await connection.query(
            "SELECT writes FROM sessions WHERE tenant = \(tenant) AND id = \(id) FOR UPDATE", logger: logger
        ).collect()
        guard let writes = try rows.first?.decode(Int64.self) else { return nil }
        if writes == Int64(remembered.writeCount) { return (remembered.state, writes) }
        return try await fetchStored(connection, tenant: tenant, key: key, lock: true)
    }

    /// The session and the count of writes its row has had.
    func fetchStored(
        _ connection: PostgresConnection, tenant: String, key: SessionKey, lock: Bool
    ) async throws -> (state: SessionState, writes: Int64)? {
        let row: PostgresRandomAccessRow?
        if lock {
            // Locked reads are the rarer path (a conflict, a start racing another host): not
            // prepared. Their answers come in a second query below (FOR UPDATE cannot go with the
            // aggregate the unlocked reads use).
            var query: PostgresQuery
            switch key {
            case .id(let id):
                query = "SELECT \(unescaped: SessionRead.columns), NULL AS answer_rows FROM sessions WHERE tenant = \(tenant) AND id = \(id)"
            case .user(let userId, let flow):
                query = """
                    SELECT \(unescaped: SessionRead.columns), NULL AS answer_rows FROM sessions
                    WHERE tenant = \(tenant) AND user_id = \(userId) AND flow = \(flow)
                    """
            }
            query = PostgresQuery(unsafeSQL: query.sql + " FOR UPDATE", binds: query.binds)
            row = try await connection.query(query, logger: logger).collect().first?.makeRandomAccess()
        } else {
            var rows: [PostgresRow] = []
            switch key {
            case .id(let id):
                for try await found in try await connection.execute(SessionByIDStatement(tenant: tenant, id: id), logger: logger) {
                    rows.append(found)
                }
            case .user(let userId, let flow):
                let statement = SessionByUserStatement(tenant: tenant, userId: userId, flow: flow)
                for try await found in try await connection.execute(statement, logger: logger) { rows.append(found) }
            }
            row = rows.first?.makeRandomAccess()
        }
        guard let row else { return nil }
        let id = try row["id"].decode(String.self)
        var answers: [String: [String: JSONValue]] = [:]
        var computed: [String: JSONValue] = [:]
        func take(_ step: String, _ values: String, _ computedJSON: String?) throws {
            answers[step] = try JSONValue.parse(values).objectValue ?? [:]
            if let computedJSON { computed[step] = try JSONValue.parse(computedJSON) }
        }
        if lock {
            for try await (step, values, computedJSON) in try await connection.query(
                "SELECT step_id, values_json, computed_json FROM answers WHERE tenant = \(tenant) AND session_id = \(id)", logger: logger
            ).decode((String, String, String?).self) {
                try take(step, values, computedJSON)
            }
        } else if let rows = try row["answer_rows"].decode(String?.self) {
            for entry in try JSONValue.parse(rows).arrayValue ?? [] {
                guard let fields = entry.arrayValue, fields.count == 3, let step = fields[0].stringValue, let values = fields[1].stringValue
                else { continue }
                try take(step, values, fields[2].stringValue)
            }
        }
        let text = try SessionTextColumns(
            user: try row["user_json"].decode(String.self), path: try row["path_json"].decode(String.self),
            progress: try row["progress_json"].decode(String.self), completion: try row["completion_json"].decode(String?.self),
            rejection: try row["rejection_json"].decode(String?.self)
        ).decoded()
        let state = SessionState(
            id: id, tenant: try row["tenant"].decode(String.self), userId: try row["user_id"].decode(String.self),
            flow: try row["flow"].decode(String.self),
            flowVersion: try row["flow_version"].decode(String.self), flowFingerprint: try row["flow_fingerprint"].decode(String.self),
            locale: text.locale, status: SessionStatus(rawValue: try row["status"].decode(String.self)) ?? .active,
            revision: Int(try row["revision"].decode(Int64.self)),
            user: text.user, path: text.path,
            answers: answers, computed: computed,
            skipped: text.skipped, stepErrors: text.stepErrors, secondsSpent: text.secondsSpent,
            arrivedAt: Date(timeIntervalSince1970: try row["arrived_at"].decode(Double.self)),
            lastSubmitDigest: try row["last_submit_digest"].decode(String?.self),
            completion: text.completion, rejection: text.rejection,
            createdAt: Date(timeIntervalSince1970: try row["created_at"].decode(Double.self)),
            updatedAt: Date(timeIntervalSince1970: try row["updated_at"].decode(Double.self)),
            abandonedAt: try row["abandoned_at"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
            progressTotal: text.progressTotal
        )
        return (state, try row["writes"].decode(Int64.self))
    }

    func save(_ connection: PostgresConnection, _ state: SessionState, replacing old: SessionState?) async throws {
        let text = try SessionTextColumns(state)
        let (userJSON, pathJSON, progressJSON) = (text.user, text.path, text.progress)
        let (completionJSON, rejectionJSON) = (text.completion, text.rejection)
        let revision = Int64(state.revision)
        let arrived = state.arrivedAt.timeIntervalSince1970
        let created = state.createdAt.timeIntervalSince1970
        let updated = state.updatedAt.timeIntervalSince1970
        if let old, old.id != state.id {
            // An expired session makes way for the user's new one (unique per user and flow).
            _ = try await connection.query("DELETE FROM sessions WHERE tenant = \(state.tenant) AND id = \(old.id)", logger: logger).collect()
        }
        if old == nil || old?.id != state.id {
            _ = try await connection.query("""
                INSERT INTO sessions (id, tenant, user_id, flow, status, revision, user_json, path_json,
                    progress_json, arrived_at, last_submit_digest, completion_json, rejection_json, created_at, updated_at,
                    flow_version, flow_fingerprint)
                VALUES (\(state.id), \(state.tenant), \(state.userId), \(state.flow), \(state.status.rawValue), \(revision),
                    \(userJSON), \(pathJSON), \(progressJSON), \(arrived), \(state.lastSubmitDigest), \(completionJSON),
                    \(rejectionJSON), \(created), \(updated), \(state.flowVersion), \(state.flowFingerprint))
                """, logger: logger).collect()
        } else {
            let changed = try await connection.query("""
                UPDATE sessions SET status = \(state.status.rawValue), revision = \(revision), user_json = \(userJSON),
                    path_json = \(pathJSON), progress_json = \(progressJSON), arrived_at = \(arrived),
                    last_submit_digest = \(state.lastSubmitDigest), completion_json = \(completionJSON),
                    rejection_json = \(rejectionJSON), updated_at = \(updated),
                    flow_version = \(state.flowVersion), flow_fingerprint = \(state.flowFingerprint),
                    abandoned_at = \(state.abandonedAt?.timeIntervalSince1970), writes = writes + 1
                WHERE tenant = \(state.tenant) AND id = \(state.id) RETURNING 1
                """, logger: logger).collect().count
            guard changed == 1 else { throw StoreDefect("session \(state.id) is not in tenant \(state.tenant)") }
        }
        let answers = AnswerRowChanges(state, replacing: old?.id == state.id ? old : nil)
        for step in answers.removed {
            _ = try await connection.query(
                "DELETE FROM answers WHERE tenant = \(state.tenant) AND session_id = \(state.id) AND step_id = \(step)",
                logger: logger
            ).collect()
        }
        for row in answers.upserted {
            _ = try await connection.query("""
                INSERT INTO answers (session_id, tenant, step_id, values_json, computed_json)
                VALUES (\(state.id), \(state.tenant), \(row.step), \(row.values), \(row.computed))
                ON CONFLICT (session_id, step_id) DO UPDATE SET
                    values_json = excluded.values_json, computed_json = excluded.computed_json
                """, logger: logger).collect()
        }
    }

    func insert(_ connection: PostgresConnection, _ event: FlowEvent, of state: SessionState) async throws {
        _ = try await connection.query("""
            INSERT INTO events (tenant, flow, session_id, kind, step, action, to_step, seconds, at, flow_version)
            VALUES (\(state.tenant), \(state.flow), \(state.id), \(event.kind.rawValue), \(event.step), \(event.action),
                \(event.toStep), \(event.seconds), \(event.at.timeIntervalSince1970), \(state.flowVersion))
            """, logger: logger).collect()
    }

    // MARK: - profiles

    public func profile(tenant: String, userId: String) async throws -> Profile? {
        try await connection { connection in try await self.fetchProfile(connection, tenant: tenant, userId: userId, lock: false) }
    }

    public func updateProfile<Result: Sendable>(
        tenant: String, userId: String, at time: Date,
        _ body: @escaping @Sendable (Profile?) throws -> (ProfileCommit?, Result)
    ) async throws -> Result {
        try await transaction { connection in
            let (commit, result) = try body(try await self.fetchProfile(connection, tenant: tenant, userId: userId, lock: true))
            if let commit {
                let profile = commit.profile
                precondition(profile.tenant == tenant && profile.userId == userId, "a profile update must stay with its user")
                try await self.save(connection, profile, keepingOtherRecords: false, at: time)
                try await self.insert(connection, outbox: commit.outbox, tenant: tenant)
            }
            return result
        }
    }

    func fetchProfile(_ connection: PostgresConnection, tenant: String, userId: String, lock: Bool) async throws -> Profile? {
        var query: PostgresQuery = "SELECT completed_at FROM profiles WHERE tenant = \(tenant) AND user_id = \(userId)"
        if lock { query = PostgresQuery(unsafeSQL: query.sql + " FOR UPDATE", binds: query.binds) }
        guard let completed = try await connection.query(query, logger: logger).collect().first else { return nil }
        var records: [String: JSONValue] = [:]
        for try await (name, body) in try await connection.query(
            "SELECT name, body_json FROM records WHERE tenant = \(tenant) AND user_id = \(userId)", logger: logger
        ).decode((String, String).self) {
            records[name] = try JSONValue.parse(body)
        }
        return Profile(
            tenant: tenant, userId: userId, completedAt: Date(timeIntervalSince1970: try completed.decode(Double.self)),
            records: records)
    }

    func save(_ connection: PostgresConnection, _ profile: Profile, keepingOtherRecords: Bool, at time: Date) async throws {
        _ = try await connection.query("""
            INSERT INTO profiles (tenant, user_id, completed_at)
            VALUES (\(profile.tenant), \(profile.userId), \(profile.completedAt.timeIntervalSince1970))
            ON CONFLICT (tenant, user_id) DO UPDATE SET completed_at = excluded.completed_at
            """, logger: logger).collect()
        if !keepingOtherRecords {
            _ = try await connection.query(
                "DELETE FROM records WHERE tenant = \(profile.tenant) AND user_id = \(profile.userId)", logger: logger
            ).collect()
        }
        for (name, body) in profile.records.sorted(by: { $0.key < $1.key }) {
            _ = try await connection.query("""
                INSERT INTO records (tenant, user_id, name, body_json, updated_at)
                VALUES (\(profile.tenant), \(profile.userId), \(name), \(body.serialized()), \(time.timeIntervalSince1970))
                ON CONFLICT (tenant, user_id, name) DO UPDATE SET
                    body_json = excluded.body_json, updated_at = excluded.updated_at
                """, logger: logger).collect()
        }
    }

    // MARK: - events and funnels

    public func events(tenant: String, flow: String?, since: Date?, until: Date?) async throws -> [StoredEvent] {
        let sinceTime = since?.timeIntervalSince1970
        let untilTime = until?.timeIntervalSince1970
        return try await connection { connection in
            var events: [StoredEvent] = []
            for try await (sessionId, eventFlow, kind, step, action, toStep, seconds, at) in try await connection.query("""
                SELECT session_id, flow, kind, step, action, to_step, seconds, at FROM events
                WHERE tenant = \(tenant) AND (\(flow)::text IS NULL OR flow = \(flow))
                  AND (\(sinceTime)::float8 IS NULL OR at >= \(sinceTime)) AND (\(untilTime)::float8 IS NULL OR at < \(untilTime))
                ORDER BY id
                """, logger: self.logger
            ).decode((String, String, String, String?, String?, String?, Double?, Double).self) {
                events.append(StoredEvent(
                    sessionId: sessionId, flow: eventFlow,
                    event: FlowEvent(
                        FlowEvent.Kind(rawValue: kind) ?? .arrived, step: step, action: action, toStep: toStep,
                        seconds: seconds, at: Date(timeIntervalSince1970: at))))
            }
            return events
        }
    }

    /// The same one-pass fold as SQLite's, over the flow's events streamed in (session, id)
    /// order (byte order of the ids, as SQLite compares them).
    public func funnel(
        tenant: String, flow: String, since: Date?, until: Date?, version: String?, renamedSteps: [String: [String: String]] = [:]
    ) async throws -> FunnelFigures {
        try await connection { connection in
            var folder = FunnelFolder(since: since, until: until, version: version, renamedSteps: renamedSteps)
            for try await (id, sessionId, kind, step, action, toStep, seconds, at, flowVersion) in try await connection.query("""
                SELECT id, session_id, kind, step, action, to_step, seconds, at, flow_version FROM events
                WHERE tenant = \(tenant) AND flow = \(flow) ORDER BY session_id COLLATE "C", id
                """, logger: self.logger
            ).decode((Int64, String, String, String?, String?, String?, Double?, Double, String?).self) {
                folder.add(
                    sessionId: sessionId, id: id, kind: kind, step: step, action: action, toStep: toStep, seconds: seconds, at: at,
                    version: flowVersion)
            }
            return folder.finish()
        }
    }

    // MARK: - flow versions

    public func registerFlowVersions(_ records: [FlowVersionRecord]) async throws -> [FlowVersionRecord] {
        try await connection { connection in
            for record in records {
                _ = try await connection.query("""
                    INSERT INTO flow_versions (tenant, flow, version, fingerprint)
                    VALUES (\(record.tenant), \(record.flow), \(record.version), \(record.fingerprint))
                    ON CONFLICT DO NOTHING
                    """, logger: self.logger).collect()
            }
            let tenants = Set(records.map(\.tenant))
            var known: [FlowVersionRecord] = []
            for try await (tenant, flow, version, fingerprint, sequence) in try await connection.query(
                "SELECT tenant, flow, version, fingerprint, sequence FROM flow_versions ORDER BY sequence", logger: self.logger
            ).decode((String, String, String, String, Int64).self) where records.isEmpty || tenants.contains(tenant) {
                known.append(FlowVersionRecord(tenant: tenant, flow: flow, version: version, fingerprint: fingerprint, sequence: sequence))
            }
            return known
        }
    }

    public func versionsInFlight(tenant: String, flow: String) async throws -> [(version: String, fingerprint: String, sessions: Int)] {
        try await connection { connection in
            var counts: [(version: String, fingerprint: String, sessions: Int)] = []
            for try await (version, fingerprint, count) in try await connection.query("""
                SELECT flow_version, flow_fingerprint, COUNT(*) FROM sessions
                WHERE tenant = \(tenant) AND flow = \(flow) AND status IN ('active', 'deferred') GROUP BY flow_version, flow_fingerprint
                """, logger: self.logger
            ).decode((String, String, Int64).self) {
                counts.append((version, fingerprint, Int(count)))
            }
            return counts
        }
    }

    public func sessionsInFlight(
        tenant: String, flow: String, version: String, fingerprint: String, after: String, limit: Int
    ) async throws -> [SessionState] {
        let count = Int64(limit)
        return try await connection { connection in
            var ids: [String] = []
            for try await id in try await connection.query("""
                SELECT id FROM sessions WHERE tenant = \(tenant) AND flow = \(flow) AND status IN ('active', 'deferred')
                    AND flow_version = \(version) AND flow_fingerprint = \(fingerprint) AND id COLLATE "C" > \(after)
                ORDER BY id COLLATE "C" LIMIT \(count)
                """, logger: self.logger
            ).decode(String.self) {
                ids.append(id)
            }
            var sessions: [SessionState] = []
            for id in ids {
                if let state = try await self.fetchSession(connection, tenant: tenant, key: .id(id), lock: false) { sessions.append(state) }
            }
            return sessions
        }
    }

    // MARK: - outbox

    /// Writes events and their pending deliveries inside the transaction of the change they
    /// report. The tenant's advisory lock, held to the commit, makes the tenant's sequence order
    /// its commit order: a reader polling with a cursor never passes an event still uncommitted.
    func insert(_ connection: PostgresConnection, outbox items: [OutboxEvent], tenant: String) async throws {
        guard !items.isEmpty else { return }
        for item in items { precondition(item.event.tenant == tenant, "an event must stay in its tenant") }
        _ = try await connection.execute(try OutboxWriteStatement(items), logger: logger)
    }

    public func outbox(tenant: String, after: Int64, limit: Int) async throws -> [OutboxEntry] {
        let limit = Int64(max(0, limit))
        return try await connection { connection in
            var entries: [OutboxEntry] = []
            for try await (sequence, body) in try await connection.query("""
                SELECT sequence, body_json FROM outbox WHERE tenant = \(tenant) AND sequence > \(after) ORDER BY sequence LIMIT \(limit)
                """, logger: self.logger
            ).decode((Int64, String).self) {
                entries.append(OutboxEntry(sequence: sequence, event: try JSONValue.parse(body).decode(PlatformEvent.self)))
            }
            return entries
        }
    }

    public func claimDeliveries(now: Date, limit: Int, lease: TimeInterval, host: String) async throws -> ClaimedDeliveries {
        let time = now.timeIntervalSince1970
        let until = time + lease
        let limit = Int64(max(0, limit))
        return try await connection { connection in
            var claims: [DeliveryClaim] = []
            if limit > 0 {
                // One statement: the due rows not claimed (skipping those another host is
                // claiming right now) are leased to this host.
                for try await (sequence, webhook, tenant, attempts, expires, id, body) in try await connection.query("""
                    WITH due AS (
                        SELECT event_sequence, webhook_url FROM deliveries
                        WHERE state = 'pending' AND next_attempt_at <= \(time) AND (claimed_until IS NULL OR claimed_until <= \(time))
                        ORDER BY next_attempt_at, event_sequence LIMIT \(limit)
                        FOR UPDATE SKIP LOCKED
                    ), claimed AS (
                        UPDATE deliveries d SET claimed_until = \(until), claimed_by = \(host)
                        FROM due WHERE d.event_sequence = due.event_sequence AND d.webhook_url = due.webhook_url
                        RETURNING d.event_sequence, d.webhook_url, d.tenant, d.attempts, d.expires_at, d.next_attempt_at
                    )
                    SELECT c.event_sequence, c.webhook_url, c.tenant, c.attempts, c.expires_at, o.id, o.body_json
                    FROM claimed c JOIN outbox o ON o.sequence = c.event_sequence
                    ORDER BY c.next_attempt_at, c.event_sequence
                    """, logger: self.logger
                ).decode((Int64, String, String, Int64, Double, String, String).self) {
                    claims.append(DeliveryClaim(
                        sequence: sequence, eventId: id, tenant: tenant, webhook: webhook, body: Array(body.utf8),
                        attempts: Int(attempts), expiresAt: Date(timeIntervalSince1970: expires)))
                }
            }
            let next = try await connection.query("""
                SELECT MIN(GREATEST(next_attempt_at, COALESCE(claimed_until, 0))) FROM deliveries
                WHERE state = 'pending' AND NOT (claimed_by IS NOT DISTINCT FROM \(host) AND claimed_until > \(time))
                """, logger: self.logger).collect().first?.decode(Double?.self)
            return ClaimedDeliveries(claims: claims, nextDue: next.map(Date.init(timeIntervalSince1970:)))
        }
    }

    @discardableResult
    public func recordAttempt(_ claim: DeliveryClaim, host: String, _ attempt: DeliveryAttempt) async throws -> Bool {
        let row = attempt.row
        let (state, next, status, error, finished) = (row.state, row.nextAttempt, row.lastStatus, row.lastError, row.finishedAt)
        let lastStatus = status.map(Int64.init)
        let finishedAt = finished?.timeIntervalSince1970
        return try await connection { connection in
            return try await connection.query("""
                UPDATE deliveries SET state = \(state.rawValue), attempts = attempts + 1,
                    next_attempt_at = \(next.timeIntervalSince1970), last_status = \(lastStatus),
                    last_error = \(error), finished_at = \(finishedAt), claimed_until = NULL, claimed_by = NULL
                WHERE event_sequence = \(claim.sequence) AND webhook_url = \(claim.webhook) AND claimed_by = \(host)
                  AND state = 'pending'
                RETURNING 1
                """, logger: self.logger).collect().count == 1
        }
    }

    public func releaseClaim(_ claim: DeliveryClaim, host: String) async throws {
        try await connection { connection in
            _ = try await connection.query("""
                UPDATE deliveries SET claimed_until = NULL, claimed_by = NULL
                WHERE event_sequence = \(claim.sequence) AND webhook_url = \(claim.webhook) AND claimed_by = \(host)
                """, logger: self.logger).collect()
        }
    }

    public func recentEvents(tenant: String, limit: Int, failedOnly: Bool) async throws -> [EventDeliveries] {
        let limit = Int64(max(0, limit))
        return try await connection { connection in
            var entries: [OutboxEntry] = []
            for try await (sequence, body) in try await connection.query("""
                SELECT sequence, body_json FROM outbox
                WHERE tenant = \(tenant) AND (NOT \(failedOnly) OR sequence IN
                    (SELECT event_sequence FROM deliveries WHERE tenant = \(tenant) AND state = 'failed'))
                ORDER BY sequence DESC LIMIT \(limit)
                """, logger: self.logger
            ).decode((Int64, String).self) {
                entries.append(OutboxEntry(sequence: sequence, event: try JSONValue.parse(body).decode(PlatformEvent.self)))
            }
            var result: [EventDeliveries] = []
            for entry in entries.reversed() {
                var deliveries: [DeliveryStatus] = []
                for try await (webhook, stateName, attempts, next, lastStatus, lastError, finished) in try await connection.query("""
                    SELECT webhook_url, state, attempts, next_attempt_at, last_status, last_error, finished_at
                    FROM deliveries WHERE event_sequence = \(entry.sequence) ORDER BY webhook_url COLLATE "C"
                    """, logger: self.logger
                ).decode((String, String, Int64, Double, Int64?, String?, Double?).self) {
                    let state = DeliveryState(rawValue: stateName) ?? .pending
                    deliveries.append(DeliveryStatus(
                        webhook: webhook, state: state, attempts: Int(attempts),
                        nextAttemptAt: state == .pending ? Date(timeIntervalSince1970: next) : nil,
                        lastStatus: lastStatus.map(Int.init), lastError: lastError,
                        finishedAt: finished.map(Date.init(timeIntervalSince1970:))))
                }
                result.append(EventDeliveries(entry: entry, deliveries: deliveries))
            }
            return result
        }
    }

    public func requeueFailed(eventId: String, now: Date, deliverUntil: Date) async throws -> Int {
        try await connection { connection in
            return try await connection.query("""
                UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt_at = \(now.timeIntervalSince1970),
                    expires_at = \(deliverUntil.timeIntervalSince1970), finished_at = NULL, claimed_until = NULL, claimed_by = NULL
                WHERE state = 'failed' AND event_sequence = (SELECT sequence FROM outbox WHERE id = \(eventId))
                RETURNING 1
                """, logger: self.logger).collect().count
        }
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
