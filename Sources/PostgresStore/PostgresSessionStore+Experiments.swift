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

    typealias AssignmentRow = (String, String, String, String, String, String, String, Double)

    static func assignment(_ row: AssignmentRow) -> ExperimentAssignment {
        ExperimentAssignment(
            tenant: row.0, experiment: row.1, seed: row.2, userId: row.3, variant: row.4, flow: row.5, sessionId: row.6,
            assignedAt: Date(timeIntervalSince1970: row.7))
    }

    public func assignment(tenant: String, experiment: String, seed: String, userId: String) async throws -> ExperimentAssignment? {
        try await connection { connection in
            for try await row in try await connection.query(
                """
                SELECT tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at FROM experiment_assignments
                WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed) AND user_id = \(userId)
                """, logger: self.logger
            ).decode(AssignmentRow.self) {
                return Self.assignment(row)
            }
            return nil
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
            var folder = ExperimentFolder(arms: arms, window: window)
            for try await (sessionId, variant, at) in try await connection.query(
                """
                SELECT session_id, variant, assigned_at FROM experiment_assignments
                WHERE tenant = \(tenant) AND experiment = \(experiment) AND seed = \(seed)
                """, logger: self.logger
            ).decode((String, String, Double).self) {
                folder.assignment(sessionId: sessionId, variant: variant, at: at)
            }
            for arm in arms {
                for try await (id, sessionId, kind, step, action, toStep, seconds, at, flowVersion) in try await connection.query(
                    """
                    SELECT id, session_id, kind, step, action, to_step, seconds, at, flow_version FROM events
                    WHERE tenant = \(tenant) AND flow = \(arm.flow) ORDER BY session_id COLLATE "C", id
                    """, logger: self.logger
                ).decode((Int64, String, String, String?, String?, String?, Double?, Double, String?).self) {
                    folder.event(
                        variant: arm.variant, sessionId: sessionId, id: id, kind: kind, step: step, action: action, toStep: toStep, seconds: seconds,
                        at: at, version: flowVersion)
                }
            }
            return folder.finish()
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
