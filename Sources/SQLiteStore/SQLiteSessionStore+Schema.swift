import Foundation
import GRDB
import Logging
import PlatformStorage
import Synchronization

/// The schema: GRDB's numbered migrations, run by whichever process opens the file first.
extension SQLiteSessionStore {
    /// Runs the migrations, safely when several processes open one file at once; true when this
    /// process applied them, false when another one did meanwhile.
    ///
    /// GRDB reads which migrations are applied before it opens each migration's own (immediate)
    /// transaction, so two processes starting together can both find them pending; the second
    /// to take the write lock then fails with "table sessions already exists" once the first has
    /// committed. That process reads the pending list again: it finds the other's migrations
    /// applied and has nothing (or only the rest) left to do.
    ///
    /// A write lock held elsewhere (another process rebuilding a large table) fails each attempt
    /// after a quarter of a second; the start keeps trying until `deadline`, calling `waiting` once.
    /// Counted in attempts instead, five busy timeouts (50 s) gave up on v12's rebuild of about
    /// 5 x 10^6 assignments, and the server did not start. Only `SQLITE_BUSY` is waited for:
    /// it comes after the busy handler's wait, where `SQLITE_LOCKED` would come back at once.
    ///
    /// `abandonWait` is asked after each attempt the lock refused: true ends the wait with
    /// ``LockWaitAbandoned``. The quarter-second attempts (the connection's busy timeout is put
    /// back after) let a stop signal be acted on that soon, not after a whole busy timeout.
    static func migrate(
        _ writer: any DatabaseWriter, path: String, until deadline: ContinuousClock.Instant = .now + migrationPatience,
        abandonWait: () -> Bool = { false }, waiting: () -> Void = {}
    ) throws -> Bool {
        var raced = 0
        var waited = false
        let busyTimeout = try writer.writeWithoutTransaction { db in
            let busyTimeout = try Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? 0
            try db.execute(sql: "PRAGMA busy_timeout = \(min(busyTimeout, lockAttemptMilliseconds))")
            return busyTimeout
        }
        defer { try? writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA busy_timeout = \(busyTimeout)") } }
        while true {
            do {
                if raced > 0 || waited, try pendingMigrations(writer, path: path).isEmpty { return false }
                try migrator.migrate(writer)
                // A newer binary that migrated the file since the first read is refused all the
                // same (GRDB carries on over migrations it does not know).
                try pendingMigrations(writer, path: path)
                return true
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                if !waited { waiting() }
                waited = true
                if abandonWait() { throw LockWaitAbandoned(database: path) }
            } catch let error as DatabaseError where isMigrationRace(error) && raced < 4 {
                // Bounded apart from the lock's wait: such an error returns at once, and one that
                // is not a race after all (a schema broken by hand) must not spin.
                raced += 1
            }
        }
    }

    /// A start that gave up waiting for the write lock another process holds, because it was
    /// asked to stop (`serve` got SIGTERM or SIGINT meanwhile).
    public struct LockWaitAbandoned: Error, CustomStringConvertible {
        public let database: String
        public var description: String { "stopped while waiting for the write lock of \(database)" }
    }

    /// A path SQLite cannot use as this database: a directory, a file of another kind or a damaged
    /// one, a file this process may not open or write. Said with the path, so the operator sees
    /// which `--db` to mend.
    public struct Unopenable: Error, CustomStringConvertible {
        public let database: String
        /// False when the file is there but is not a SQLite database (or is damaged); true when it
        /// could not be opened or written at all (a directory, permissions, a read-only mount).
        public let cannotOpen: Bool
        /// SQLite's own words: its result code and message.
        public let reason: String

        init?(database: String, _ error: DatabaseError) {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT: cannotOpen = false
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH: cannotOpen = true
            default: return nil
            }
            self.database = database
            reason = "SQLite error \(error.extendedResultCode.rawValue): \(error.message ?? "\(error.resultCode)")"
        }

        public var description: String {
            cannotOpen
                ? "\(database) cannot be opened: \(reason)"
                : "\(database) is not a platformd database (or it is damaged): \(reason)"
        }
    }

    /// How long one attempt of the start's (the pool's set-up, a migration) waits inside SQLite
    /// for another process's lock before the start looks at `abandonWait` and tries again.
    static let lockAttemptMilliseconds = 250

    static func lockAttemptMilliseconds(_ busyTimeout: TimeInterval) -> Int {
        min(Int(busyTimeout * 1000), lockAttemptMilliseconds)
    }

    /// Whether the pool is still being set up: its connections then wait for a lock in short
    /// attempts (`lockAttemptMilliseconds`).
    final class OpeningPhase: Sendable {
        private let on = Atomic(true)
        var isOn: Bool { on.load(ordering: .acquiring) }
        func end() { on.store(false, ordering: .releasing) }
    }

    static func sayWaiting(path: String, logger: Logger) {
        logger.notice(
            "waiting for the database's write lock: another process holds it, migrating the file or writing",
            metadata: ["database": "\(path)"])
    }

    /// How long a start waits, in all, for another process holding the file's write lock (give
    /// or take the busy timeout of the attempt running when it passes): v12 rebuilt
    /// 10^6 assignments in 10.5-11.5 s on the 2-core VM, so this covers about 10^7. A stop signal
    /// that arrives meanwhile ends the wait within a quarter of a second (`serve`'s
    /// `abandonWait`); one that arrives while this process migrates is acted on once the store
    /// is open (`Serve.run`).
    static let migrationPatience: Duration = .seconds(120)

    /// The migrations this binary has that the file lacks, in order; throws
    /// `SchemaFromANewerVersion` when the file holds migrations this binary does not have (GRDB
    /// would run its own and carry on over a schema it does not know).
    @discardableResult
    static func pendingMigrations(_ writer: any DatabaseReader, path: String) throws -> [String] {
        let migrator = Self.migrator
        let known = migrator.migrations
        let applied = try writer.read { db in try migrator.appliedIdentifiers(db) }
        let unknown = applied.subtracting(known)
        guard unknown.isEmpty else { throw SchemaFromANewerVersion(database: path, unknownMigrations: unknown.sorted()) }
        return known.filter { !applied.contains($0) }
    }

    /// Migrates, saying so when a file that already had a schema is changed: a migration that
    /// rebuilds a table takes seconds at a million rows (v12 took ~10 s at 10^6 assignments),
    /// and a start that pauses that long without a word looks hung.
    /// `refusingChanges`: such a file is refused (`SchemaNotMigrated`) instead.
    static func migrate(
        _ writer: any DatabaseWriter, path: String, refusingChanges: Bool = false, until deadline: ContinuousClock.Instant = .now + migrationPatience,
        abandonWait: () -> Bool = { false }, logger: Logger
    ) throws {
        let pending = try pendingMigrations(writer, path: path)
        // A current file needs nothing more; a new one's schema is made in a moment, unannounced.
        guard !pending.isEmpty else { return }
        guard pending.count < migrator.migrations.count else {
            _ = try migrate(writer, path: path, until: deadline, abandonWait: abandonWait)
            return
        }
        if refusingChanges { throw SchemaNotMigrated(database: path, pendingMigrations: pending) }
        logger.notice("migrating the database schema", metadata: ["database": "\(path)", "migrations": "\(pending.joined(separator: ", "))"])
        let began = ContinuousClock.now
        let ran = try migrate(writer, path: path, until: deadline, abandonWait: abandonWait) { sayWaiting(path: path, logger: logger) }
        let seconds = (Double((ContinuousClock.now - began) / .milliseconds(1)) / 100).rounded() / 10
        logger.notice(
            ran ? "database schema migrated" : "database schema migrated by another process",
            metadata: ["database": "\(path)", "seconds": "\(seconds)"])
    }

    /// Another process holds a lock this connection needs: `SQLITE_BUSY` after the busy
    /// handler's wait, `SQLITE_LOCKED` (or a WAL set-up's "database is locked") at once, which is
    /// why `openPool` pauses between its attempts and `migrate` waits for `SQLITE_BUSY` only.
    static func isLockHeld(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
    }

    /// Another process migrated the same database at the same time: a migration with nothing to
    /// fail on (DROP INDEX IF EXISTS) is caught when the loser records it as applied a second time.
    static func isMigrationRace(_ error: DatabaseError) -> Bool {
        error.message.map {
            $0.contains("already exists") || $0.contains("duplicate column name") || $0.contains("grdb_migrations")
        } == true
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sessions (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        flow TEXT NOT NULL,
                        status TEXT NOT NULL,
                        revision INTEGER NOT NULL,
                        user_json TEXT NOT NULL,
                        path_json TEXT NOT NULL,
                        progress_json TEXT NOT NULL,
                        arrived_at REAL NOT NULL,
                        last_submit_digest TEXT,
                        completion_json TEXT,
                        rejection_json TEXT,
                        created_at REAL NOT NULL,
                        updated_at REAL NOT NULL,
                        UNIQUE (tenant, user_id, flow)
                    );
                    CREATE TABLE answers (
                        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                        tenant TEXT NOT NULL,
                        step_id TEXT NOT NULL,
                        values_json TEXT NOT NULL,
                        computed_json TEXT,
                        PRIMARY KEY (session_id, step_id)
                    );
                    CREATE TABLE profiles (
                        tenant TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        completed_at REAL NOT NULL,
                        PRIMARY KEY (tenant, user_id)
                    );
                    CREATE TABLE records (
                        tenant TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        body_json TEXT NOT NULL,
                        updated_at REAL NOT NULL,
                        PRIMARY KEY (tenant, user_id, name),
                        FOREIGN KEY (tenant, user_id) REFERENCES profiles(tenant, user_id) ON DELETE CASCADE
                    );
                    CREATE TABLE events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        tenant TEXT NOT NULL,
                        flow TEXT NOT NULL,
                        session_id TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        step TEXT,
                        action TEXT,
                        to_step TEXT,
                        seconds REAL,
                        at REAL NOT NULL
                    );
                    CREATE INDEX events_by_tenant ON events (tenant, flow, at);
                    CREATE INDEX events_by_session ON events (session_id, id);
                    """)
        }
        registerCredentialTables(&migrator)
        migrator.registerMigration("v3-funnel-index") { db in
            // The funnel reads a flow's events session by session in one pass along this index.
            try db.execute(sql: "CREATE INDEX events_by_flow_session ON events (tenant, flow, session_id, id)")
        }
        registerOutboxTables(&migrator)
        migrator.registerMigration("v4-session-write-count") { db in
            // Counts the row's writes: an optimistic update commits only if this is unchanged
            // since its snapshot. The revision cannot serve, as some writes keep it (a resume
            // that merges new user details).
            try db.execute(sql: "ALTER TABLE sessions ADD COLUMN write_count INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v5-drop-events-by-session") { db in
            // No query reads a session's events alone (the funnel reads them along
            // events_by_flow_session), and every event written paid for this index's page.
            try db.execute(sql: "DROP INDEX IF EXISTS events_by_session")
        }
        migrator.registerMigration("v6-flow-versions") { db in
            // The version of its flow a session runs on (empty for sessions stored before), the
            // version each event happened on (the funnel by version), and the order in which
            // this database's hosts first served each version (a rolling deploy never moves a
            // session back onto an older one).
            try db.execute(
                sql: """
                    ALTER TABLE sessions ADD COLUMN flow_version TEXT NOT NULL DEFAULT '';
                    ALTER TABLE sessions ADD COLUMN flow_fingerprint TEXT NOT NULL DEFAULT '';
                    ALTER TABLE events ADD COLUMN flow_version TEXT;
                    CREATE TABLE flow_versions (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        tenant TEXT NOT NULL,
                        flow TEXT NOT NULL,
                        version TEXT NOT NULL,
                        fingerprint TEXT NOT NULL,
                        UNIQUE (tenant, flow, version, fingerprint)
                    );
                    """)
        }
        migrator.registerMigration("v7-sweeps") { db in
            // When session.abandoned was last raised for a session, and the lease that lets one
            // host at a time sweep a shared database.
            try db.execute(
                sql: """
                    ALTER TABLE sessions ADD COLUMN abandoned_at REAL;
                    CREATE TABLE sweeps (name TEXT PRIMARY KEY NOT NULL, holder TEXT NOT NULL, until REAL NOT NULL);
                    """)
        }
        registerRevocationTables(&migrator)
        registerExperimentTables(&migrator)
        registerExperimentRollup(&migrator)
        registerExperimentRollupMark(&migrator)
        registerExperimentOutcomes(&migrator)
        registerReplacedSessions(&migrator)
        return migrator
    }
}
