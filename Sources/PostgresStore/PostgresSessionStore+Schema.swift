import Logging
import PlatformStorage
import PostgresNIO

/// The schema: numbered migrations, applied once under an advisory lock by whichever host starts first.
extension PostgresSessionStore {
    static let migrations: [(version: String, sql: [String])] = [
        (
            "v1",
            [
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
            ]
        ),
        // The version of its flow a session runs on, the version each event happened on, and
        // the order in which this database's hosts first served each version (Docs/architecture.md,
        // "Flow versions").
        (
            "v2-flow-versions",
            [
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
            ]
        ),
        // When session.abandoned was last raised for a session, and the sweeper's lease (one host
        // at a time on a shared database).
        (
            "v3-sweeps",
            [
                "ALTER TABLE sessions ADD COLUMN abandoned_at DOUBLE PRECISION",
                "CREATE TABLE sweeps (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until DOUBLE PRECISION NOT NULL)",
            ]
        ),
        // Every write of a session row counts here: the optimistic path writes only when the
        // count is still the one it read.
        (
            "v4-write-counts",
            [
                "ALTER TABLE sessions ADD COLUMN writes BIGINT NOT NULL DEFAULT 0"
            ]
        ),
        revocations,
        experiments,
        experimentRollup,
        replacedSessions,
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
            try await Self.run(
                connection,
                """
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
}
