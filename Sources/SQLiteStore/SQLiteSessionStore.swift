import Foundation
import GRDB
import Logging
import PlatformCore
import PlatformStorage
import Synchronization

/// The embedded default store: SQLite through GRDB, WAL with `synchronous=FULL` for files,
/// `secure_delete` on so erased answers leave no bytes behind.
public final class SQLiteSessionStore: SessionStore {
    public static let memoryPath = ":memory:"

    let writer: any DatabaseWriter
    /// Session and profile writes go through group commit.
    let committer: GroupCommitter
    /// What this process last committed per session, so a command on a session in use reads nothing first.
    let recent = RecentSessions()
    /// Copies the WAL into the database file off the writer, and truncates it after an erasure
    /// (files only: nil for an in-memory database, which has no WAL).
    let checkpointer: WALCheckpointer?
    /// An erasure whose WAL truncation could not run yet (a reader held an old snapshot).
    let truncationPending = Mutex(false)
    /// The timer that retries a postponed truncation.
    let retrier = Mutex<Task<Void, Never>?>(nil)
    /// Folds the enrolled sessions' events into the experiments' rollup a moment after their
    /// commits (files only: an in-memory store folds when results are read).
    let folder: RollupFolder?
    /// Opened for a report: nothing is written, not even the rollup's fold.
    let readOnly: Bool
    let logger: Logger
    /// Moved after a change that can end a credential, by any process on the file.
    let credentialsChanges: CredentialsVersion

    /// `init(path:busyTimeout:logger:)` on a thread of its own: opening waits for file locks
    /// (another process creating the same file) and runs the migrations synchronously, which an
    /// async caller must never do on the cooperative pool.
    ///
    /// `abandonWait`: asked while the open waits for another process's write lock; true ends the
    /// wait with ``LockWaitAbandoned`` (a stop signal during `serve`'s start): within a quarter
    /// of a second while the migration waits, within one busy timeout while the pool opens (each
    /// attempt to open waits that long inside SQLite). A migration this process runs is not
    /// abandoned: it is bounded, and a start stopped halfway would do it again.
    public static func open(
        path: String, busyTimeout: TimeInterval = 10, readOnly: Bool = false, migrating: Bool = true,
        logger: Logger = Logger(label: "platformd.store"), abandonWait: @escaping @Sendable () -> Bool = { false }
    ) async throws -> SQLiteSessionStore {
        do {
            return try await BlockingWork.run("platformd.store.open") {
                try SQLiteSessionStore(
                    path: path, busyTimeout: busyTimeout, readOnly: readOnly, migrating: migrating, logger: logger, abandonWait: abandonWait)
            }
        } catch let error as DatabaseError {
            throw Unopenable(database: path, error) ?? error
        }
    }

    /// Opens (creating and migrating when needed) the database at `path`, or an in-memory one for
    /// ":memory:". Synchronous, and it may wait for another process's lock: from async code use
    /// `open(path:busyTimeout:logger:)`, which runs it on a thread of its own. (No async code in
    /// Sources calls this directly.)
    /// - Parameter busyTimeout: how long a write waits for a lock another process holds before
    ///   the request is answered -32008 (unavailable).
    /// - Parameter readOnly: for a report (`flows check`): the file is opened read-only, as it
    ///   is (no migration, no pragma or checkpoint that writes); a write through it fails.
    /// - Parameter migrating: false for a command beside the server (`keys`, `funnel`, …): a file
    ///   that had a schema and lacks this version's migrations is refused (`SchemaNotMigrated`)
    ///   rather than migrated, since a server of the older version may be serving from it.
    /// - Parameter abandonWait: asked while waiting for another process's write lock; true ends
    ///   the wait with ``LockWaitAbandoned``.
    public init(
        path: String, busyTimeout: TimeInterval = 10, readOnly: Bool = false, migrating: Bool = true,
        logger: Logger = Logger(label: "platformd.store"), abandonWait: @escaping @Sendable () -> Bool = { false }
    ) throws {
        self.logger = logger
        self.readOnly = readOnly && path != Self.memoryPath
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        if readOnly, path != Self.memoryPath {
            configuration.readonly = true
            configuration.busyMode = .timeout(busyTimeout)
            writer = try DatabasePool(path: path, configuration: configuration)
            try Self.pendingMigrations(writer, path: path)
            committer = GroupCommitter(writer: writer)
            checkpointer = nil
            folder = nil
            credentialsChanges = CredentialsVersion(seesEveryChange: false, path: path)
            return
        }
        let opening = OpeningPhase()
        configuration.prepareDatabase { db in
            // The pool's own set-up (turning WAL on, writing to an empty WAL) waits for another
            // process's lock in short attempts, so a stop signal is seen between them; the
            // connection gets the whole busy timeout once the pool is open.
            if opening.isOn { try db.execute(sql: "PRAGMA busy_timeout = \(Self.lockAttemptMilliseconds(busyTimeout))") }
            try db.execute(sql: "PRAGMA secure_delete = ON")
            // A batch run again after a failing write gives each write a savepoint; its journal
            // (the original pages a savepoint may roll back to) otherwise spills to a temporary
            // file past 64 KiB, and those writes were most of the writer's I/O.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        configuration.busyMode = .timeout(busyTimeout)
        // Opening the pool and migrating share one wait for another process's lock.
        let waitingUntil = ContinuousClock.now + max(.milliseconds(Int(busyTimeout * 1000)), Self.migrationPatience)
        if path == Self.memoryPath {
            writer = try DatabaseQueue(configuration: configuration)
            credentialsChanges = CredentialsVersion(seesEveryChange: true)
        } else {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            writer = try Self.openPool(path: path, configuration: configuration, until: waitingUntil, abandonWait: abandonWait) {
                Self.sayWaiting(path: path, logger: logger)
            }
            opening.end()
            // GRDB sets NORMAL when it turns WAL on, after prepareDatabase: every reply waits for
            // a durable commit, so the writer goes back to FULL.
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA busy_timeout = \(Int(busyTimeout * 1000))")
                try db.execute(sql: "PRAGMA synchronous = FULL")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(WALCheckpointer.writerThreshold)")
            }
            credentialsChanges = .beside(path, logger: logger)
        }
        try Self.migrate(writer, path: path, refusingChanges: !migrating, until: waitingUntil, abandonWait: abandonWait, logger: logger)
        let committer = GroupCommitter(writer: writer)
        self.committer = committer
        if path != Self.memoryPath {
            let checkpointer = try WALCheckpointer(path: path, configuration: configuration)
            checkpointer.start(
                writes: { [weak committer] in committer?.counts.withLock { $0.transactions } }, committed: committer.committed, logger: logger)
            self.checkpointer = checkpointer
            folder = RollupFolder()
        } else {
            checkpointer = nil
            folder = nil
        }
        folder?.start(
            fold: { [weak self] in
                guard let self else { return false }
                try await self.foldRollup(chunk: Self.backgroundFoldChunk, stoppable: true)
                return true
            }, logger: logger)
    }

    /// Opens the pool, waiting while another process holds the lock its set-up needs. Turning a
    /// new file to WAL takes an exclusive lock, and SQLite answers "database is locked" at once
    /// instead of calling the busy handler when another process is opening the same new file;
    /// and GRDB writes to a file whose WAL is empty, which waits for a migration another process
    /// is running. So the opening is retried, with a short growing pause, until `deadline`,
    /// calling `waiting` once.
    static func openPool(
        path: String, configuration: Configuration, until deadline: ContinuousClock.Instant, abandonWait: () -> Bool = { false },
        waiting: () -> Void
    ) throws -> DatabasePool {
        let began = ContinuousClock.now
        var pause: TimeInterval = 0.005
        var said = false
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where isLockHeld(error) && ContinuousClock.now < deadline {
                // A moment's contention between two starts on a new file is not worth a line.
                if !said, ContinuousClock.now - began > .milliseconds(500) {
                    waiting()
                    said = true
                }
                if abandonWait() { throw LockWaitAbandoned(database: path) }
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 0.2)
            }
        }
    }

    /// Group commit so far: transactions committed and the session and profile writes they held.
    public var groupCommits: (transactions: Int, writes: Int) { committer.counts.withLock { ($0.transactions, $0.writes) } }

    /// The writer connection's `synchronous` setting (2 is FULL).
    public func synchronousMode() async throws -> Int {
        try await writer.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    // MARK: - sessions

    public func session(tenant: String, key: SessionKey) async throws -> SessionState? {
        try await writer.read { db in try Self.fetchStoredSession(db, tenant: tenant, key: key)?.state }
    }

    public func ping() async throws {
        _ = try await writer.read { db in try Int.fetchOne(db.cachedStatement(sql: "SELECT 1")) }
    }

    public func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        try await updateSession(tenant: tenant, key: key, readAsAbsent: false, body)
    }

    /// Optimistic on a file database: the body runs outside the one writer, on the state this
    /// process last committed for the session (`recent`), on nothing when the caller has just
    /// read the session (by user and flow) as absent, or else on a snapshot read; group commit's
    /// serial transaction holds only the check that the row's write count is unchanged (for a
    /// new session, the unique key of tenant, user and flow) and the writes, their JSON encoded
    /// beforehand. When another write changed the session in between, or the body ran on a state
    /// not read now and did not commit (an error, a replay: answers a client sees must come from
    /// the stored row), the body runs again inside the transaction on the latest state; so a body
    /// may run twice, its first result dropped. An in-memory database has one connection for
    /// reads and writes, so there the body always runs inside the transaction.
    public func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey, readAsAbsent: Bool,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        let outcome: (Result, erased: Bool)
        if let pool = writer as? DatabasePool,
            let optimistic = try await updateOptimistically(pool, tenant: tenant, key: key, readAsAbsent: readAsAbsent, body)
        {
            outcome = optimistic
        } else {
            outcome = try await updateInTransaction(tenant: tenant, key: key, body)
        }
        if checkpointer != nil && (outcome.erased || truncationPending.withLock { $0 }) {
            await truncateWAL()
        }
        return outcome.0
    }

    /// The optimistic attempt; nil when the body must run inside the transaction instead.
    func updateOptimistically<Result: Sendable>(
        _ pool: DatabasePool, tenant: String, key: SessionKey, readAsAbsent: Bool,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> (Result, erased: Bool)? {
        let remembered: RecentSessions.Entry? = if case .id(let id) = key { recent.entry(tenant: tenant, id: id) } else { nil }
        // Not read now: what a refusal or a nil commit said may be about a state already gone.
        // The hint is for a session by user and flow; an id names one that exists.
        let absent = if case .user = key { readAsAbsent } else { false }
        let unread = remembered != nil || absent
        let snapshot: RecentSessions.Entry? =
            if let remembered { remembered } else if unread { nil } else { try await Self.snapshot(pool, tenant: tenant, key: key) }
        let ran: (commit: SessionCommit?, result: Result)
        do {
            ran = try body(snapshot?.state)
        } catch  where unread {
            return nil
        }
        guard let commit = ran.commit else { return unread ? nil : (ran.result, false) }
        let prepared = try PreparedSessionCommit(commit, replacing: snapshot)
        let erased = try await committer.write { db in try Self.apply(db, prepared, tenant: tenant) }
        guard let erased else { return nil }
        recent.remember(prepared.written)
        if commit.state.experiment != nil { folder?.note() }
        return (ran.result, erased)
    }

    /// GRDB's asynchronous read: the caller's task is suspended while a reader connection is free
    /// and the read runs on that reader's queue. (A synchronous read here once parked cooperative
    /// threads waiting for a reader that only a suspended read's task, needing one of those very
    /// threads to resume, would give back: under pipelined reads and writes the server stopped.)
    static func snapshot(_ pool: DatabasePool, tenant: String, key: SessionKey) async throws -> RecentSessions.Entry? {
        try await pool.read { db in try fetchStoredSession(db, tenant: tenant, key: key) }
    }

    /// Reads the latest state and runs `body` on it inside the write transaction.
    func updateInTransaction<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> (Result, erased: Bool) {
        let (outcome, erased, saved) = try await committer.write { db -> (Swift.Result<Result, any Error>, Bool, RecentSessions.Entry?) in
            let old = try Self.fetchStoredSession(db, tenant: tenant, key: key)
            // The command's refusal (a validation error, say) is decided before anything is
            // written: returned, not thrown, so it does not cost the batch a second run.
            let ran: (commit: SessionCommit?, result: Result)
            do {
                ran = try body(old?.state)
            } catch {
                return (.failure(error), false, nil)
            }
            // Read inside the write transaction, `old` is the stored row: what to remember when
            // nothing is written (a stale entry is refreshed).
            guard let commit = ran.commit else { return (.success(ran.result), false, old) }
            // Read inside this transaction, the row cannot have changed since.
            let prepared = try PreparedSessionCommit(commit, replacing: old)
            guard let erased = try Self.apply(db, prepared, tenant: tenant) else {
                throw DatabaseError(message: "session \(commit.state.id) is not in tenant \(tenant)")
            }
            return (.success(ran.result), erased, prepared.written)
        }
        if let saved {
            recent.remember(saved)
            if saved.state.experiment != nil { folder?.note() }
        }
        return (try outcome.get(), erased)
    }

    /// Writes one command's commit if the session row is still the one it replaces (nil, with
    /// nothing written, when another write came first); true when it rejected the session (its
    /// erased answers' old pages must then leave the WAL).
    static func apply(_ db: Database, _ prepared: PreparedSessionCommit, tenant: String) throws -> Bool? {
        let commit = prepared.commit
        precondition(commit.state.tenant == tenant, "a commit must stay in its tenant")
        guard try save(db, prepared) else { return nil }
        for stale in commit.droppedAssignments { try drop(db, stale) }
        if let assignment = commit.assignment { try insert(db, assignment) }
        for event in commit.events { try insert(db, event, of: commit.state) }
        if let profile = commit.profile {
            try save(db, profile, keepingOtherRecords: true, at: commit.state.updatedAt)
        }
        for (event, body) in zip(commit.outbox, prepared.outboxBodies) {
            precondition(event.event.tenant == tenant, "an event must stay in its tenant")
            try insert(db, event, body: body)
        }
        return prepared.rejects
    }

    /// Old page versions of erased rows live on in the WAL until it is checkpointed and truncated.
    /// The commit is already durable, so a failure (a reader holding an old snapshot) is not the
    /// request's: the truncation is retried on a timer until it succeeds (and after each write,
    /// and at close), so the erased bytes are gone soon after the reader finishes even if no
    /// other write ever comes.
    func truncateWAL() async {
        guard !(await attemptTruncation()) else { return }
        scheduleTruncationRetry()
    }

    func scheduleTruncationRetry() {
        retrier.withLock { pending in
            guard pending == nil else { return }
            pending = Task { [weak self] in
                var delay: Duration = .milliseconds(100)
                while !Task.isCancelled {
                    try? await Task.sleep(for: delay)
                    guard let self, !Task.isCancelled else { return }
                    if await self.attemptTruncation() {
                        self.logger.info("WAL truncated: the erased rows' old pages are gone")
                        break
                    }
                    delay = min(delay * 2, .seconds(2))
                }
                guard let self, !Task.isCancelled else { return }
                self.retrier.withLock { $0 = nil }
                // An erasure whose own attempt failed while this one was finishing found a
                // retrier still here and left it to this one.
                if self.truncationPending.withLock({ $0 }) { self.scheduleTruncationRetry() }
            }
        }
    }

    /// One truncating checkpoint; true when it ran. It holds the writer's queue, so no group
    /// commit takes the WAL's write lock meanwhile, and runs on the checkpointer's connection,
    /// so never beside a passive checkpoint; it waits briefly for readers of old snapshots.
    func attemptTruncation() async -> Bool {
        guard let checkpointer else { return true }
        do {
            try await writer.writeWithoutTransaction { _ in try checkpointer.truncate() }
            truncationPending.withLock { $0 = false }
            return true
        } catch {
            let first = truncationPending.withLock { pending in
                defer { pending = true }
                return !pending
            }
            if first { logger.warning("WAL truncation after an erasure postponed (a reader holds an old snapshot); retrying: \(error)") }
            return false
        }
    }

    /// The session row's columns, read by position below (`sessionColumns` order): a lookup by
    /// name costs a scan of the row's column names on every read.
    static let sessionColumns = """
        id, tenant, user_id, flow, status, revision, user_json, path_json, progress_json, arrived_at,
        last_submit_digest, completion_json, rejection_json, created_at, updated_at, write_count, flow_version, flow_fingerprint,
        abandoned_at
        """
    static let sessionByID = "SELECT \(sessionColumns) FROM sessions WHERE tenant = ? AND id = ?"
    static let sessionByUser = "SELECT \(sessionColumns) FROM sessions WHERE tenant = ? AND user_id = ? AND flow = ?"

    static func fetchStoredSession(_ db: Database, tenant: String, key: SessionKey) throws -> RecentSessions.Entry? {
        let row: Row?
        switch key {
        case .id(let id):
            row = try Row.fetchOne(
                try db.cachedStatement(sql: sessionByID),
                arguments: [tenant, id])
        case .user(let userId, let flow):
            row = try Row.fetchOne(
                try db.cachedStatement(sql: sessionByUser),
                arguments: [tenant, userId, flow])
        }
        guard let row else { return nil }
        let id: String = row[0]
        var answers: [String: [String: JSONValue]] = [:]
        var computed: [String: JSONValue] = [:]
        for answer in try Row.fetchAll(
            try db.cachedStatement(sql: "SELECT step_id, values_json, computed_json FROM answers WHERE tenant = ? AND session_id = ?"),
            arguments: [tenant, id])
        {
            let step: String = answer[0]
            answers[step] = try JSONValue.parse(answer[1] as String).objectValue ?? [:]
            if let text: String = answer[2] { computed[step] = try JSONValue.parse(text) }
        }
        let text = try SessionTextColumns(user: row[6], path: row[7], progress: row[8], completion: row[11], rejection: row[12]).decoded()
        let state = SessionState(
            id: id, tenant: row[1], userId: row[2], flow: row[3], flowVersion: row[16], flowFingerprint: row[17],
            locale: text.locale, status: SessionStatus(rawValue: row[4]) ?? .active,
            revision: row[5],
            user: text.user, path: text.path,
            answers: answers, computed: computed,
            skipped: text.skipped, stepErrors: text.stepErrors, secondsSpent: text.secondsSpent,
            arrivedAt: Date(timeIntervalSince1970: row[9]),
            lastSubmitDigest: row[10],
            completion: text.completion, rejection: text.rejection,
            createdAt: Date(timeIntervalSince1970: row[13]),
            updatedAt: Date(timeIntervalSince1970: row[14]),
            abandonedAt: (row[18] as Double?).map(Date.init(timeIntervalSince1970:)),
            progressTotal: text.progressTotal, experiment: text.experiment
        )
        return RecentSessions.Entry(state: state, writeCount: row[15])
    }

    /// Writes the session row and its answers; false, writing nothing, when the row is not the
    /// one the commit replaces (its write count moved on, or a new session's user already has one).
    static func save(_ db: Database, _ prepared: PreparedSessionCommit) throws -> Bool {
        let state = prepared.commit.state
        let text = prepared.text
        let (userJSON, pathJSON, progressJSON) = (text.user, text.path, text.progress)
        let (completionJSON, rejectionJSON) = (text.completion, text.rejection)
        if let writeCount = prepared.replacedWriteCount, prepared.replacedID == nil {
            var update = BoundStatement(
                try db.cachedStatement(
                    sql: """
                        UPDATE sessions SET write_count = write_count + 1, status = ?, revision = ?, user_json = ?, path_json = ?, progress_json = ?,
                            arrived_at = ?, last_submit_digest = ?, completion_json = ?, rejection_json = ?, updated_at = ?,
                            flow_version = ?, flow_fingerprint = ?, abandoned_at = ?
                        WHERE tenant = ? AND id = ? AND write_count = ?
                        """))
            update.bind(state.status.rawValue)
            update.bind(state.revision)
            update.bind(userJSON)
            update.bind(pathJSON)
            update.bind(progressJSON)
            update.bind(state.arrivedAt.timeIntervalSince1970)
            update.bind(state.lastSubmitDigest)
            update.bind(completionJSON)
            update.bind(rejectionJSON)
            update.bind(state.updatedAt.timeIntervalSince1970)
            update.bind(state.flowVersion)
            update.bind(state.flowFingerprint)
            update.bind(state.abandonedAt?.timeIntervalSince1970)
            update.bind(state.tenant)
            update.bind(state.id)
            update.bind(writeCount)
            try update.execute()
            guard db.changesCount == 1 else { return false }
        } else {
            if let replaced = prepared.replacedID, let writeCount = prepared.replacedWriteCount {
                // An expired session makes way for the user's new one (unique per user and flow).
                try db.execute(
                    sql: "DELETE FROM sessions WHERE tenant = ? AND id = ? AND write_count = ?", arguments: [state.tenant, replaced, writeCount])
                guard db.changesCount == 1 else { return false }
            }
            do {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO sessions (id, tenant, user_id, flow, status, revision, user_json, path_json,
                            progress_json, arrived_at, last_submit_digest, completion_json, rejection_json, created_at, updated_at,
                            flow_version, flow_fingerprint)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    state.id, state.tenant, state.userId, state.flow, state.status.rawValue, state.revision,
                    userJSON, pathJSON, progressJSON, state.arrivedAt.timeIntervalSince1970, state.lastSubmitDigest,
                    completionJSON, rejectionJSON, state.createdAt.timeIntervalSince1970, state.updatedAt.timeIntervalSince1970,
                    state.flowVersion, state.flowFingerprint,
                ])
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                return false
            }
        }

        for step in prepared.answers.removed {
            try db.cachedStatement(
                sql: "DELETE FROM answers WHERE tenant = ? AND session_id = ? AND step_id = ?"
            ).execute(arguments: [state.tenant, state.id, step])
        }
        for row in prepared.answers.upserted {
            var upsert = BoundStatement(
                try db.cachedStatement(
                    sql: """
                        INSERT INTO answers (session_id, tenant, step_id, values_json, computed_json) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (session_id, step_id) DO UPDATE SET
                            values_json = excluded.values_json, computed_json = excluded.computed_json
                        """))
            upsert.bind(state.id)
            upsert.bind(state.tenant)
            upsert.bind(row.step)
            upsert.bind(row.values)
            upsert.bind(row.computed)
            try upsert.execute()
        }
        return true
    }

    static func insert(_ db: Database, _ event: FlowEvent, of state: SessionState) throws {
        var insert = BoundStatement(
            try db.cachedStatement(
                sql: """
                    INSERT INTO events (tenant, flow, session_id, kind, step, action, to_step, seconds, at, flow_version)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """))
        insert.bind(state.tenant)
        insert.bind(state.flow)
        insert.bind(state.id)
        insert.bind(event.kind.rawValue)
        insert.bind(event.step)
        insert.bind(event.action)
        insert.bind(event.toStep)
        insert.bind(event.seconds)
        insert.bind(event.at.timeIntervalSince1970)
        insert.bind(state.flowVersion)
        try insert.execute()
    }

    // MARK: - events

    public func events(tenant: String, flow: String?, since: Date?, until: Date?) async throws -> [StoredEvent] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM events
                    WHERE tenant = ? AND (? IS NULL OR flow = ?) AND (? IS NULL OR at >= ?) AND (? IS NULL OR at < ?)
                    ORDER BY id
                    """,
                arguments: [
                    tenant, flow, flow, since?.timeIntervalSince1970, since?.timeIntervalSince1970,
                    until?.timeIntervalSince1970, until?.timeIntervalSince1970,
                ]
            ).map { row in
                StoredEvent(
                    sessionId: row["session_id"], flow: row["flow"],
                    event: FlowEvent(
                        FlowEvent.Kind(rawValue: row["kind"]) ?? .arrived, step: row["step"], action: row["action"],
                        toStep: row["to_step"], seconds: row["seconds"], at: Date(timeIntervalSince1970: row["at"]))
                )
            }
        }
    }

    // MARK: - funnels

    /// The funnel in one pass: the flow's events are read in (session, id) order along an index,
    /// each session folded as it goes by, so the cost grows with the events read, never with
    /// sessions times events (as correlated subqueries did), and memory holds one session at a time.
    public func funnel(
        tenant: String, flow: String, since: Date?, until: Date?, version: String?, renamedSteps: [String: [String: String]] = [:]
    ) async throws -> FunnelFigures {
        try await writer.read { db in
            var folder = FunnelFolder(since: since, until: until, version: version, renamedSteps: renamedSteps)
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, session_id, kind, step, action, to_step, seconds, at, flow_version FROM events
                    WHERE tenant = ? AND flow = ? ORDER BY session_id, id
                    """, arguments: [tenant, flow])
            // Columns by position (the SELECT's order): a lookup by name, for 8 columns of
            // millions of rows, was a good part of the funnel's CPU.
            while let row = try rows.next() {
                folder.add(
                    sessionId: row[1], id: row[0], kind: row[2], step: row[3], action: row[4],
                    toStep: row[5], seconds: row[6], at: row[7], version: row[8])
            }
            return folder.finish()
        }
    }

    /// Checkpoints (truncating the WAL) and closes. A checkpoint that cannot run (a reader holds a
    /// snapshot) is logged; the database still closes and stays consistent.
    public func close() async throws {
        retrier.withLock { pending in
            pending?.cancel()
            pending = nil
        }
        await folder?.stop()
        if folder != nil {
            do { try await foldRollup() } catch { logger.warning("experiment rollup not folded at close, folded at the next start: \(error)") }
        }
        await checkpointer?.stop()
        if checkpointer != nil { _ = await attemptTruncation() }
        // Closing waits for every reader connection to be returned: on a thread of its own.
        try await BlockingWork.run("platformd.store.close") { [writer, checkpointer] in
            checkpointer?.close()
            try writer.close()
        }
    }
}
