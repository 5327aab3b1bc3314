import Foundation
import GRDB
import PlatformCore
import PlatformStorage

/// Experiments: each person's assignment per phase (seed), stored with the session it started,
/// and the stops `autoStop` decided, which every host then honours.
extension SQLiteSessionStore: ExperimentStore {
    static func registerExperimentTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9-experiments") { db in
            try db.execute(
                sql: """
                    CREATE TABLE experiment_assignments (
                        tenant TEXT NOT NULL,
                        experiment TEXT NOT NULL,
                        seed TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        variant TEXT NOT NULL,
                        flow TEXT NOT NULL,
                        session_id TEXT NOT NULL,
                        assigned_at REAL NOT NULL,
                        PRIMARY KEY (tenant, experiment, seed, user_id)
                    );
                    CREATE INDEX experiment_assignments_by_user ON experiment_assignments (tenant, user_id);
                    CREATE TABLE experiment_stops (
                        tenant TEXT NOT NULL,
                        experiment TEXT NOT NULL,
                        seed TEXT NOT NULL,
                        at REAL NOT NULL,
                        variant TEXT NOT NULL,
                        reason TEXT NOT NULL,
                        interval_json TEXT NOT NULL,
                        PRIMARY KEY (tenant, experiment, seed)
                    );
                    """)
        }
    }

    /// The rollup `analytics.experiment` reads instead of the events: each assignment's
    /// completion and last step, and a row per step a session reached (filled from the events
    /// of the sessions enrolled before it existed).
    static func registerExperimentRollup(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v10-experiment-rollup") { db in
            try db.execute(
                sql: """
                    ALTER TABLE experiment_assignments ADD COLUMN completed_at REAL;
                    ALTER TABLE experiment_assignments ADD COLUMN last_step TEXT;
                    ALTER TABLE experiment_assignments ADD COLUMN seconds_to_complete REAL;
                    CREATE INDEX experiment_assignments_by_session ON experiment_assignments (session_id);
                    CREATE INDEX experiment_assignments_by_phase
                        ON experiment_assignments (tenant, experiment, seed, variant, last_step, completed_at);
                    CREATE INDEX experiment_assignments_by_duration
                        ON experiment_assignments (tenant, experiment, seed, variant, seconds_to_complete);
                    CREATE TABLE experiment_steps (
                        session_id TEXT NOT NULL,
                        step TEXT NOT NULL,
                        tenant TEXT NOT NULL,
                        experiment TEXT NOT NULL,
                        seed TEXT NOT NULL,
                        variant TEXT NOT NULL,
                        went_on INTEGER NOT NULL DEFAULT 0,
                        seconds REAL,
                        PRIMARY KEY (session_id, step)
                    ) WITHOUT ROWID;
                    CREATE INDEX experiment_steps_by_phase ON experiment_steps (tenant, experiment, seed, variant, step, went_on, seconds);
                    UPDATE experiment_assignments SET
                        completed_at = (SELECT MIN(at) FROM events e WHERE e.session_id = experiment_assignments.session_id AND e.kind = 'completed'),
                        last_step = (SELECT step FROM events e WHERE e.session_id = experiment_assignments.session_id AND e.kind = 'arrived'
                                     ORDER BY e.id DESC LIMIT 1);
                    UPDATE experiment_assignments SET seconds_to_complete = MAX(0, completed_at - assigned_at) WHERE completed_at IS NOT NULL;
                    INSERT INTO experiment_steps (session_id, step, tenant, experiment, seed, variant, went_on, seconds)
                        SELECT a.session_id, e.step, a.tenant, a.experiment, a.seed, a.variant,
                               MAX(e.kind = 'left'), SUM(CASE WHEN e.kind = 'left' THEN e.seconds END)
                        FROM experiment_assignments a JOIN events e ON e.tenant = a.tenant AND e.flow = a.flow AND e.session_id = a.session_id
                        WHERE e.kind IN ('arrived', 'left') AND e.step IS NOT NULL
                        GROUP BY a.session_id, e.step;
                    """)
        }
    }

    /// Where the rollup stands in the events: every event up to `event_id` has moved it. Events
    /// get their ids in commit order (one writer, `AUTOINCREMENT`), so the rollup can be moved
    /// after the commits, many of them at once, instead of inside each one (see `foldRollup`).
    static func registerExperimentRollupMark(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11-experiment-rollup-mark") { db in
            try db.execute(
                sql: """
                    CREATE TABLE experiment_rollup_mark (only INTEGER PRIMARY KEY CHECK (only = 1), event_id INTEGER NOT NULL);
                    INSERT INTO experiment_rollup_mark (only, event_id) SELECT 1, COALESCE(MAX(id), 0) FROM events;
                    """)
        }
    }

    /// An enrolment writes the assignment alone; its outcome (the last step, the completion)
    /// moves to a table of its own that only the fold writes. Before, the assignment's row
    /// carried the outcome and five indexes, two keyed by the person at random places in their
    /// B-trees, and each enrolling commit wrote pages of all of them: about half of what an
    /// enrolled start wrote (Docs/performance.md, "What an enrolment writes"). Now the row is
    /// keyed by the person (which serves the lookup of their assignment in a phase, export and
    /// erasure with one B-tree) and by session; the phase's indexes are on the outcomes, which
    /// the fold writes many at a time, and an exposure folded makes its session's outcome row.
    static func registerExperimentOutcomes(_ migrator: inout DatabaseMigrator) {
        // No foreign key names these tables: checking every table's keys at the end (GRDB's
        // default) would read the whole file inside the rebuild's transaction for nothing.
        migrator.registerMigration("v12-experiment-outcomes", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: experimentOutcomes)
        }
    }

    /// v12's rebuild.
    static let experimentOutcomes = """
        CREATE TABLE experiment_outcomes (
            session_id TEXT NOT NULL PRIMARY KEY,
            tenant TEXT NOT NULL,
            experiment TEXT NOT NULL,
            seed TEXT NOT NULL,
            variant TEXT NOT NULL,
            last_step TEXT,
            completed_at REAL,
            seconds_to_complete REAL
        ) WITHOUT ROWID;
        INSERT INTO experiment_outcomes
            (session_id, tenant, experiment, seed, variant, last_step, completed_at, seconds_to_complete)
            SELECT session_id, tenant, experiment, seed, variant, last_step, completed_at, seconds_to_complete
            FROM experiment_assignments ORDER BY session_id;
        CREATE INDEX experiment_outcomes_by_phase
            ON experiment_outcomes (tenant, experiment, seed, variant, last_step, completed_at);
        CREATE INDEX experiment_outcomes_by_duration
            ON experiment_outcomes (tenant, experiment, seed, variant, seconds_to_complete);
        CREATE TABLE experiment_assignments_v12 (
            tenant TEXT NOT NULL,
            user_id TEXT NOT NULL,
            experiment TEXT NOT NULL,
            seed TEXT NOT NULL,
            variant TEXT NOT NULL,
            flow TEXT NOT NULL,
            session_id TEXT NOT NULL,
            assigned_at REAL NOT NULL,
            PRIMARY KEY (tenant, user_id, experiment, seed)
        );
        INSERT INTO experiment_assignments_v12 (tenant, user_id, experiment, seed, variant, flow, session_id, assigned_at)
            SELECT tenant, user_id, experiment, seed, variant, flow, session_id, assigned_at
            FROM experiment_assignments ORDER BY assigned_at, rowid;
        DROP TABLE experiment_assignments;
        ALTER TABLE experiment_assignments_v12 RENAME TO experiment_assignments;
        CREATE INDEX experiment_assignments_by_session ON experiment_assignments (session_id);
        """

    /// How many events' ids one fold covers when results, a prune or the close wait for it:
    /// few batches for a large backlog, each holding the writer a few milliseconds.
    static let foldChunk: Int64 = 2_048
    /// The store's own fold a moment after the commits takes fewer ids a batch, since its work
    /// joins a group commit whose requests wait for it: at 16 enrolled connections the p99 was
    /// 10.5 ms with 2,048 ids a batch and 7.6-8.1 ms with 128, at the same CPU a request (with 32,
    /// more CPU: the batches' own cost). Past `foldChunk` behind, it takes `foldChunk`, so that
    /// writers filling whole batches cannot leave it ever further behind.
    static let backgroundFoldChunk: Int64 = 128

    static func rollupBehind(_ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT COALESCE((SELECT MAX(id) FROM events), 0) > (SELECT event_id FROM experiment_rollup_mark)")) ?? false
    }

    /// Moves the rollup by the enrolled sessions' events committed since the mark, at most
    /// `chunk` ids of them, and moves the mark; true when more are left. Folding a few hundred
    /// commands at once writes each session's rollup pages once for all of them: inside every
    /// command's commit they were four more B-trees moved and synced a command.
    static func foldRollup(_ db: Database, chunk: Int64 = foldChunk, catchingUpPast behind: Int64 = foldChunk) throws -> Bool {
        let mark = try Int64.fetchOne(db.cachedStatement(sql: "SELECT event_id FROM experiment_rollup_mark")) ?? 0
        guard let newest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(id) FROM events")), newest > mark else { return false }
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM experiment_assignments)")) == true else {
            // Nobody is enrolled: nothing to count, however many events there are.
            try db.cachedStatement(sql: "UPDATE experiment_rollup_mark SET event_id = ?").execute(arguments: [newest])
            return false
        }
        let end = min(newest, mark + (newest - mark > behind ? max(chunk, behind) : chunk))
        // Read whole before writing: the rollup's tables are read by the same statement.
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT e.session_id, e.kind, e.step, e.seconds, e.at FROM events e
                    WHERE e.id > ? AND e.id <= ? AND e.kind IN ('exposed', 'arrived', 'left', 'completed')
                        AND EXISTS (SELECT 1 FROM experiment_assignments a WHERE a.session_id = e.session_id)
                    ORDER BY e.id
                    """), arguments: [mark, end])
        var fold = RollupFold()
        for row in rows { fold.add(sessionId: row[0], kind: row[1], step: row[2], seconds: row[3], at: row[4]) }
        try fold.write(db)
        try db.cachedStatement(sql: "UPDATE experiment_rollup_mark SET event_id = ?").execute(arguments: [end])
        return end < newest
    }

    /// Folds every event committed so far into the rollup, a chunk a transaction; a read-only
    /// store reads the rollup as the last fold left it.
    /// `stoppable`: the store's own folder, which a stop ends at once; results, prunes and the
    /// close fold everything, even from a cancelled task (a stopping server's close).
    func foldRollup(chunk: Int64 = foldChunk, stoppable: Bool = false) async throws {
        // Asked on a reader first: a store with nothing to fold writes nothing.
        guard !readOnly, try await writer.read(Self.rollupBehind) else { return }
        // A stopping folder leaves the rest to the close's own fold, in bigger chunks.
        while !(stoppable && Task.isCancelled), try await committer.write({ db in try Self.foldRollup(db, chunk: chunk) }) {}
    }

    /// The first assignment of a person in a phase wins; another host's later one is dropped.
    static func insert(_ db: Database, _ assignment: ExperimentAssignment) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO experiment_assignments (tenant, user_id, experiment, seed, variant, flow, session_id, assigned_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, user_id, experiment, seed) DO NOTHING
                """
        ).execute(arguments: [
            assignment.tenant, assignment.userId, assignment.experiment, assignment.seed, assignment.variant, assignment.flow,
            assignment.sessionId, assignment.assignedAt.timeIntervalSince1970,
        ])
    }

    /// Deletes an assignment that gives way to a restart, with its rollup, if it still names
    /// its old session.
    static func drop(_ db: Database, _ stale: ExperimentAssignment) throws {
        let assignment = "tenant = ? AND user_id = ? AND experiment = ? AND seed = ? AND session_id = ?"
        let arguments: StatementArguments = [stale.tenant, stale.userId, stale.experiment, stale.seed, stale.sessionId]
        // The rollup first, while the assignment still says it is its (as PostgreSQL's `drop`).
        for rollup in rollupTables {
            try db.cachedStatement(
                sql: "DELETE FROM \(rollup) WHERE session_id = ? AND tenant = ? AND EXISTS (SELECT 1 FROM experiment_assignments WHERE \(assignment))"
            ).execute(arguments: [stale.sessionId, stale.tenant] + arguments)
        }
        try db.cachedStatement(sql: "DELETE FROM experiment_assignments WHERE \(assignment)").execute(arguments: arguments)
    }

    static func assignment(_ row: Row) -> ExperimentAssignment {
        ExperimentAssignment(
            tenant: row[0], experiment: row[1], seed: row[2], userId: row[3], variant: row[4], flow: row[5], sessionId: row[6],
            assignedAt: Date(timeIntervalSince1970: row[7]))
    }

    /// The rollup's tables, keyed by session id: what goes with an assignment.
    static let rollupTables = ["experiment_steps", "experiment_outcomes"]

    static let assignmentColumns = "tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at"

    public func assignment(tenant: String, experiment: String, seed: String, userId: String) async throws -> ExperimentAssignment? {
        try await writer.read { db in try Self.fetchAssignment(db, tenant: tenant, experiment: experiment, seed: seed, userId: userId) }
    }

    static func fetchAssignment(_ db: Database, tenant: String, experiment: String, seed: String, userId: String) throws -> ExperimentAssignment? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: "SELECT \(Self.assignmentColumns) FROM experiment_assignments WHERE tenant = ? AND user_id = ? AND experiment = ? AND seed = ?"),
            arguments: [tenant, userId, experiment, seed]
        ).map(Self.assignment)
    }

    /// Every read on one reader connection, one snapshot: one hop instead of one a read.
    public func enrolment(tenant: String, userId: String, flows: [String], phase: ExperimentPhase?) async throws -> ExperimentEnrolment {
        try await writer.read { db in
            ExperimentEnrolment(
                sessions: try flows.compactMap { flow in try Self.fetchStoredSession(db, tenant: tenant, key: .user(userId: userId, flow: flow))?.state },
                stop: try phase.flatMap { phase in try Self.fetchStop(db, tenant: tenant, experiment: phase.experiment, seed: phase.seed) },
                assignment: try phase.flatMap { phase in
                    try Self.fetchAssignment(db, tenant: tenant, experiment: phase.experiment, seed: phase.seed, userId: userId)
                })
        }
    }

    public func assignments(tenant: String, userId: String) async throws -> [ExperimentAssignment] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.assignmentColumns) FROM experiment_assignments WHERE tenant = ? AND user_id = ? ORDER BY assigned_at, experiment",
                arguments: [tenant, userId]
            ).map(Self.assignment)
        }
    }

    public func experimentFigures(
        tenant: String, experiment: String, seed: String, arms: [ExperimentArm], window: TimeInterval
    ) async throws -> [String: ExperimentArmFigures] {
        do {
            try await foldRollup()
        } catch {
            // Another process holding the write lock past the busy timeout, say: the results
            // are read as the rollup stands, a moment behind (those enrolled since the last fold
            // not yet counted), rather than not at all.
            logger.warning("experiment rollup not folded before reading results: \(error)")
        }
        return try await writer.read { db in
            var tally = ExperimentTally(arms: arms)
            let phase: StatementArguments = [tenant, experiment, seed]
            let sessions = try Row.fetchCursor(
                db,
                sql: """
                    SELECT variant, last_step, COUNT(*), COUNT(completed_at) FROM experiment_outcomes
                    WHERE tenant = ? AND experiment = ? AND seed = ? GROUP BY variant, last_step
                    """, arguments: phase)
            while let row = try sessions.next() {
                tally.sessions(variant: row[0], lastStep: row[1], count: row[2], completed: row[3])
            }
            // Completions within the window and their nearest-rank median and p90, read along
            // the duration index (a count and two ranks per variant, not every completion).
            for arm in arms {
                let within = phase + [arm.variant, window]
                let count =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT COUNT(*) FROM experiment_outcomes
                            WHERE tenant = ? AND experiment = ? AND seed = ? AND variant = ? AND seconds_to_complete <= ?
                            """, arguments: within) ?? 0
                func rank(_ quantile: Double) throws -> Double? {
                    guard let index = ExperimentStatistics.nearestRankIndex(count: count, quantile: quantile) else { return nil }
                    return try Double.fetchOne(
                        db,
                        sql: """
                            SELECT seconds_to_complete FROM experiment_outcomes
                            WHERE tenant = ? AND experiment = ? AND seed = ? AND variant = ? AND seconds_to_complete <= ?
                            ORDER BY seconds_to_complete LIMIT 1 OFFSET ?
                            """, arguments: within + [index])
                }
                let durations = try rank(0.5).flatMap { median in try rank(0.9).map { ExperimentStatistics.DurationSummary(median: median, p90: $0) } }
                tally.completions(variant: arm.variant, count: count, durations: durations)
            }
            var timed: [(variant: String, step: String, count: Int)] = []
            let steps = try Row.fetchCursor(
                db,
                sql: """
                    SELECT variant, step, COUNT(*), SUM(went_on), COUNT(seconds) FROM experiment_steps
                    WHERE tenant = ? AND experiment = ? AND seed = ? GROUP BY variant, step
                    """, arguments: phase)
            while let row = try steps.next() {
                tally.step(variant: row[0], step: row[1], reached: row[2], left: row[3])
                let count: Int = row[4]
                if count > 0 { timed.append((row[0], row[1], count)) }
            }
            // Each step's median seconds read at the middle of its index range (seconds are only
            // kept for sessions that went on).
            for (variant, step, count) in timed {
                guard let window = ExperimentTally.medianWindow(count: count) else { continue }
                let middle = try Double.fetchAll(
                    db,
                    sql: """
                        SELECT seconds FROM experiment_steps
                        WHERE tenant = ? AND experiment = ? AND seed = ? AND variant = ? AND step = ? AND went_on = 1 AND seconds IS NOT NULL
                        ORDER BY seconds LIMIT ? OFFSET ?
                        """, arguments: phase + [variant, step, window.limit, window.offset])
                if !middle.isEmpty { tally.medianSeconds(variant: variant, step: step, median: middle.reduce(0, +) / Double(middle.count)) }
            }
            return tally.finish()
        }
    }

    public func experimentStop(tenant: String, experiment: String, seed: String) async throws -> ExperimentStop? {
        try await writer.read { db in try Self.fetchStop(db, tenant: tenant, experiment: experiment, seed: seed) }
    }

    static func fetchStop(_ db: Database, tenant: String, experiment: String, seed: String) throws -> ExperimentStop? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT at, variant, reason, interval_json FROM experiment_stops WHERE tenant = ? AND experiment = ? AND seed = ?"),
                arguments: [tenant, experiment, seed])
        else { return nil }
        let interval = try JSONValue.parse(row[3] as String).arrayValue?.compactMap(\.doubleValue) ?? []
        return ExperimentStop(
            tenant: tenant, experiment: experiment, seed: seed, at: Date(timeIntervalSince1970: row[0]), variant: row[1], reason: row[2],
            interval: interval)
    }

    public func recordExperimentStop(_ stop: ExperimentStop, report: OutboxEvent) async throws -> (stop: ExperimentStop, stored: Bool) {
        let body = try PreparedSessionCommit.body(of: report)
        return try await committer.write { db in
            if let held = try Self.fetchStop(db, tenant: stop.tenant, experiment: stop.experiment, seed: stop.seed) {
                return (held, false)
            }
            try db.execute(
                sql: "INSERT INTO experiment_stops (tenant, experiment, seed, at, variant, reason, interval_json) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    stop.tenant, stop.experiment, stop.seed, stop.at.timeIntervalSince1970, stop.variant, stop.reason,
                    JSONValue.array(stop.interval.map(JSONValue.double)).serialized(),
                ])
            try Self.insert(db, report, body: body)
            return (stop, true)
        }
    }
}
