import Foundation
import PlatformCore
import PlatformStorage
import PostgresNIO

/// Experiments on PostgreSQL: one assignment per person and phase, whichever host enrols first
/// (the primary key and ON CONFLICT DO NOTHING), and the stops every host honours.
extension PostgresSessionStore: ExperimentStore {
    static let experiments: (version: String, sql: [String]) = (
        "v6-experiments",
        [
            """
            CREATE TABLE experiment_assignments (
                tenant TEXT NOT NULL,
                experiment TEXT NOT NULL,
                seed TEXT NOT NULL,
                user_id TEXT NOT NULL,
                variant TEXT NOT NULL,
                flow TEXT NOT NULL,
                session_id TEXT NOT NULL,
                assigned_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (tenant, experiment, seed, user_id)
            )
            """,
            "CREATE INDEX experiment_assignments_by_user ON experiment_assignments (tenant, user_id)",
            """
            CREATE TABLE experiment_stops (
                tenant TEXT NOT NULL,
                experiment TEXT NOT NULL,
                seed TEXT NOT NULL,
                at DOUBLE PRECISION NOT NULL,
                variant TEXT NOT NULL,
                reason TEXT NOT NULL,
                interval_json TEXT NOT NULL,
                PRIMARY KEY (tenant, experiment, seed)
            )
            """,
        ]
    )

    /// The rollup `analytics.experiment` reads instead of the events: each assignment's
    /// completion and last step, and a row per step a session reached. A trigger on `events`
    /// keeps it, so every write path (the batched statement, the locked path, a start) moves it
    /// with the events it writes, in their transaction; the sessions enrolled before it existed
    /// are filled from their events.
    static let experimentRollup: (version: String, sql: [String]) = (
        "v7-experiment-rollup",
        [
            "ALTER TABLE experiment_assignments ADD COLUMN completed_at DOUBLE PRECISION",
            "ALTER TABLE experiment_assignments ADD COLUMN last_step TEXT",
            "ALTER TABLE experiment_assignments ADD COLUMN seconds_to_complete DOUBLE PRECISION",
            "CREATE INDEX experiment_assignments_by_duration ON experiment_assignments (tenant, experiment, seed, variant, seconds_to_complete)",
            "CREATE INDEX experiment_assignments_by_session ON experiment_assignments (session_id)",
            """
            CREATE INDEX experiment_assignments_by_phase ON experiment_assignments (tenant, experiment, seed, variant, last_step)
            INCLUDE (completed_at, assigned_at)
            """,
            """
            CREATE TABLE experiment_steps (
                session_id TEXT NOT NULL,
                step TEXT NOT NULL,
                tenant TEXT NOT NULL,
                experiment TEXT NOT NULL,
                seed TEXT NOT NULL,
                variant TEXT NOT NULL,
                went_on INTEGER NOT NULL DEFAULT 0,
                seconds DOUBLE PRECISION,
                PRIMARY KEY (session_id, step)
            )
            """,
            "CREATE INDEX experiment_steps_by_phase ON experiment_steps (tenant, experiment, seed, variant, step, went_on, seconds)",
            """
            CREATE FUNCTION experiment_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                -- Most events are of sessions in no experiment: one probe of the session index, and out.
                PERFORM 1 FROM experiment_assignments WHERE session_id = NEW.session_id;
                IF NOT FOUND THEN
                    RETURN NULL;
                END IF;
                IF NEW.kind = 'arrived' AND NEW.step IS NOT NULL THEN
                    INSERT INTO experiment_steps (session_id, step, tenant, experiment, seed, variant)
                    SELECT session_id, NEW.step, tenant, experiment, seed, variant FROM experiment_assignments WHERE session_id = NEW.session_id
                    ON CONFLICT (session_id, step) DO NOTHING;
                    UPDATE experiment_assignments SET last_step = NEW.step WHERE session_id = NEW.session_id;
                ELSIF NEW.kind = 'left' AND NEW.step IS NOT NULL THEN
                    UPDATE experiment_steps
                    SET went_on = 1, seconds = CASE WHEN NEW.seconds IS NULL THEN seconds ELSE COALESCE(seconds, 0) + NEW.seconds END
                    WHERE session_id = NEW.session_id AND step = NEW.step;
                ELSIF NEW.kind = 'completed' THEN
                    UPDATE experiment_assignments SET completed_at = NEW.at, seconds_to_complete = GREATEST(0, NEW.at - assigned_at)
                    WHERE session_id = NEW.session_id AND completed_at IS NULL;
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER experiment_rollup AFTER INSERT ON events FOR EACH ROW
            WHEN (NEW.kind IN ('arrived', 'left', 'completed')) EXECUTE FUNCTION experiment_rollup()
            """,
            // One pass over the enrolled sessions' events along events_by_flow_session (a
            // correlated read per assignment would scan the events for each).
            """
            UPDATE experiment_assignments a SET completed_at = f.completed_at, last_step = f.last_step,
                seconds_to_complete = GREATEST(0, f.completed_at - a.assigned_at)
            FROM (
                SELECT a2.session_id,
                    MIN(e.at) FILTER (WHERE e.kind = 'completed') AS completed_at,
                    (ARRAY_AGG(e.step ORDER BY e.id DESC) FILTER (WHERE e.kind = 'arrived'))[1] AS last_step
                FROM experiment_assignments a2
                JOIN events e ON e.tenant = a2.tenant AND e.flow = a2.flow AND e.session_id = a2.session_id
                WHERE e.kind IN ('completed', 'arrived')
                GROUP BY a2.session_id
            ) AS f
            WHERE a.session_id = f.session_id
            """,
            """
            INSERT INTO experiment_steps (session_id, step, tenant, experiment, seed, variant, went_on, seconds)
            SELECT a.session_id, e.step, a.tenant, a.experiment, a.seed, a.variant,
                MAX(CASE WHEN e.kind = 'left' THEN 1 ELSE 0 END), SUM(CASE WHEN e.kind = 'left' THEN e.seconds END)
            FROM experiment_assignments a JOIN events e ON e.tenant = a.tenant AND e.flow = a.flow AND e.session_id = a.session_id
            WHERE e.kind IN ('arrived', 'left') AND e.step IS NOT NULL
            GROUP BY a.session_id, e.step, a.tenant, a.experiment, a.seed, a.variant
            """,
        ]
    )

    func insert(_ connection: PostgresConnection, _ assignment: ExperimentAssignment) async throws {
        _ = try await connection.query(
            """
            INSERT INTO experiment_assignments (tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at)
            VALUES (\(assignment.tenant), \(assignment.experiment), \(assignment.seed), \(assignment.userId), \(assignment.variant),
                \(assignment.flow), \(assignment.sessionId), \(assignment.assignedAt.timeIntervalSince1970))
            ON CONFLICT (tenant, experiment, seed, user_id) DO NOTHING
            """, logger: logger
        ).collect()
    }

    /// Deletes an assignment that gives way to a restart, with its rollup, if it still names
    /// its old session.
    func drop(_ connection: PostgresConnection, _ stale: ExperimentAssignment) async throws {
        _ = try await connection.query(
            """
            DELETE FROM experiment_steps WHERE session_id = \(stale.sessionId) AND tenant = \(stale.tenant) AND EXISTS (
                SELECT 1 FROM experiment_assignments WHERE tenant = \(stale.tenant) AND experiment = \(stale.experiment)
                    AND seed = \(stale.seed) AND user_id = \(stale.userId) AND session_id = \(stale.sessionId))
            """, logger: logger
        ).collect()
        _ = try await connection.query(
            """
            DELETE FROM experiment_assignments WHERE tenant = \(stale.tenant) AND experiment = \(stale.experiment) AND seed = \(stale.seed)
                AND user_id = \(stale.userId) AND session_id = \(stale.sessionId)
            """, logger: logger
        ).collect()
    }

    typealias AssignmentRow = (String, String, String, String, String, String, String, Double)

    static func assignment(_ row: AssignmentRow) -> ExperimentAssignment {
        ExperimentAssignment(
            tenant: row.0, experiment: row.1, seed: row.2, userId: row.3, variant: row.4, flow: row.5, sessionId: row.6,
            assignedAt: Date(timeIntervalSince1970: row.7))
    }

    public func assignment(tenant: String, experiment: String, seed: String, userId: String) async throws -> ExperimentAssignment? {
        try await connection { connection in
            try await self.fetchAssignment(connection, tenant: tenant, experiment: experiment, seed: seed, userId: userId)
        }
    }

    func fetchAssignment(
        _ connection: PostgresConnection, tenant: String, experiment: String, seed: String, userId: String
    ) async throws -> ExperimentAssignment? {
        for try await row in try await connection.query(
            """
            SELECT tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at FROM experiment_assignments
            WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed) AND user_id = \(userId)
            """, logger: logger
        ).decode(AssignmentRow.self) {
            return Self.assignment(row)
        }
        return nil
    }

    /// Every read on one connection from the pool.
    public func enrolment(tenant: String, userId: String, flows: [String], phase: ExperimentPhase?) async throws -> ExperimentEnrolment {
        try await connection { connection in
            var sessions: [SessionState] = []
            for flow in flows {
                if let found = try await self.fetchSession(connection, tenant: tenant, key: .user(userId: userId, flow: flow), lock: false) {
                    sessions.append(found)
                }
            }
            guard let phase else { return ExperimentEnrolment(sessions: sessions, stop: nil, assignment: nil) }
            return ExperimentEnrolment(
                sessions: sessions,
                stop: try await self.fetchStop(connection, tenant: tenant, experiment: phase.experiment, seed: phase.seed),
                assignment: try await self.fetchAssignment(connection, tenant: tenant, experiment: phase.experiment, seed: phase.seed, userId: userId))
        }
    }

    public func assignments(tenant: String, userId: String) async throws -> [ExperimentAssignment] {
        try await connection { connection in
            var found: [ExperimentAssignment] = []
            for try await row in try await connection.query(
                """
                SELECT tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at FROM experiment_assignments
                WHERE tenant = \(tenant) AND user_id = \(userId) ORDER BY assigned_at, experiment COLLATE "C"
                """, logger: self.logger
            ).decode(AssignmentRow.self) {
                found.append(Self.assignment(row))
            }
            return found
        }
    }

    public func experimentFigures(
        tenant: String, experiment: String, seed: String, arms: [ExperimentArm], window: TimeInterval
    ) async throws -> [String: ExperimentArmFigures] {
        try await connection { connection in
            var tally = ExperimentTally(arms: arms)
            for try await (variant, lastStep, count, completed) in try await connection.query(
                """
                SELECT variant, last_step, COUNT(*), COUNT(completed_at) FROM experiment_assignments
                WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed) GROUP BY variant, last_step
                """, logger: self.logger
            ).decode((String, String?, Int64, Int64).self) {
                tally.sessions(variant: variant, lastStep: lastStep, count: Int(count), completed: Int(completed))
            }
            // Completions within the window and their nearest-rank median and p90, read along
            // the duration index (a count and two ranks per variant, not every completion).
            for arm in arms {
                var count = 0
                for try await total in try await connection.query(
                    """
                    SELECT COUNT(*) FROM experiment_assignments
                    WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed) AND variant = \(arm.variant)
                        AND seconds_to_complete <= \(window)
                    """, logger: self.logger
                ).decode(Int64.self) {
                    count = Int(total)
                }
                var ranked: [Double] = []
                for quantile in [0.5, 0.9] {
                    guard let index = ExperimentStatistics.nearestRankIndex(count: count, quantile: quantile) else { break }
                    for try await value in try await connection.query(
                        """
                        SELECT seconds_to_complete FROM experiment_assignments
                        WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed) AND variant = \(arm.variant)
                            AND seconds_to_complete <= \(window)
                        ORDER BY seconds_to_complete LIMIT 1 OFFSET \(index)
                        """, logger: self.logger
                    ).decode(Double.self) {
                        ranked.append(value)
                    }
                }
                let durations = ranked.count == 2 ? ExperimentStatistics.DurationSummary(median: ranked[0], p90: ranked[1]) : nil
                tally.completions(variant: arm.variant, count: count, durations: durations)
            }
            var timed: [(variant: String, step: String, count: Int)] = []
            for try await (variant, step, reached, left, seconds) in try await connection.query(
                """
                SELECT variant, step, COUNT(*), SUM(went_on)::BIGINT, COUNT(seconds) FROM experiment_steps
                WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed) GROUP BY variant, step
                """, logger: self.logger
            ).decode((String, String, Int64, Int64, Int64).self) {
                tally.step(variant: variant, step: step, reached: Int(reached), left: Int(left))
                if seconds > 0 { timed.append((variant, step, Int(seconds))) }
            }
            // Each step's median seconds read at the middle of its index range.
            for (variant, step, count) in timed {
                guard let window = ExperimentTally.medianWindow(count: count) else { continue }
                var middle: [Double] = []
                for try await value in try await connection.query(
                    """
                    SELECT seconds FROM experiment_steps
                    WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed) AND variant = \(variant) AND step = \(step)
                        AND went_on = 1 AND seconds IS NOT NULL
                    ORDER BY seconds LIMIT \(window.limit) OFFSET \(window.offset)
                    """, logger: self.logger
                ).decode(Double.self) {
                    middle.append(value)
                }
                if !middle.isEmpty { tally.medianSeconds(variant: variant, step: step, median: middle.reduce(0, +) / Double(middle.count)) }
            }
            return tally.finish()
        }
    }

    public func experimentStop(tenant: String, experiment: String, seed: String) async throws -> ExperimentStop? {
        try await connection { connection in try await self.fetchStop(connection, tenant: tenant, experiment: experiment, seed: seed) }
    }

    func fetchStop(_ connection: PostgresConnection, tenant: String, experiment: String, seed: String) async throws -> ExperimentStop? {
        for try await (at, variant, reason, interval) in try await connection.query(
            """
            SELECT at, variant, reason, interval_json FROM experiment_stops
            WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed)
            """, logger: logger
        ).decode((Double, String, String, String).self) {
            return ExperimentStop(
                tenant: tenant, experiment: experiment, seed: seed, at: Date(timeIntervalSince1970: at), variant: variant, reason: reason,
                interval: try JSONValue.parse(interval).arrayValue?.compactMap(\.doubleValue) ?? [])
        }
        return nil
    }

    public func recordExperimentStop(_ stop: ExperimentStop, report: OutboxEvent) async throws -> (stop: ExperimentStop, stored: Bool) {
        let interval = JSONValue.array(stop.interval.map(JSONValue.double)).serialized()
        return try await transaction { connection in
            var inserted = false
            for try await _ in try await connection.query(
                """
                INSERT INTO experiment_stops (tenant, experiment, seed, at, variant, reason, interval_json)
                VALUES (\(stop.tenant), \(stop.experiment), \(stop.seed), \(stop.at.timeIntervalSince1970), \(stop.variant), \(stop.reason), \(interval))
                ON CONFLICT (tenant, experiment, seed) DO NOTHING RETURNING 1
                """, logger: self.logger
            ) {
                inserted = true
            }
            guard inserted else {
                // Another host stopped it first: theirs holds, and they reported it.
                let held = try await self.fetchStop(connection, tenant: stop.tenant, experiment: stop.experiment, seed: stop.seed)
                return (held ?? stop, false)
            }
            try await self.insert(connection, outbox: [report], tenant: stop.tenant)
            return (stop, true)
        }
    }
}
