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

    /// The first assignment of a person in a phase wins; another host's later one is dropped.
    static func insert(_ db: Database, _ assignment: ExperimentAssignment) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO experiment_assignments (tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, experiment, seed, user_id) DO NOTHING
                """
        ).execute(arguments: [
            assignment.tenant, assignment.experiment, assignment.seed, assignment.userId, assignment.variant, assignment.flow,
            assignment.sessionId, assignment.assignedAt.timeIntervalSince1970,
        ])
    }

    static func assignment(_ row: Row) -> ExperimentAssignment {
        ExperimentAssignment(
            tenant: row[0], experiment: row[1], seed: row[2], userId: row[3], variant: row[4], flow: row[5], sessionId: row[6],
            assignedAt: Date(timeIntervalSince1970: row[7]))
    }

    static let assignmentColumns = "tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at"

    public func assignment(tenant: String, experiment: String, seed: String, userId: String) async throws -> ExperimentAssignment? {
        try await writer.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT \(Self.assignmentColumns) FROM experiment_assignments WHERE tenant = ? AND experiment = ? AND seed = ? AND user_id = ?"),
                arguments: [tenant, experiment, seed, userId]
            ).map(Self.assignment)
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
        try await writer.read { db in
            var folder = ExperimentFolder(arms: arms, window: window)
            let assignments = try Row.fetchCursor(
                db, sql: "SELECT session_id, variant, assigned_at FROM experiment_assignments WHERE tenant = ? AND experiment = ? AND seed = ?",
                arguments: [tenant, experiment, seed])
            while let row = try assignments.next() {
                folder.assignment(sessionId: row[0], variant: row[1], at: row[2])
            }
            // Each arm's flow in (session, id) order along events_by_flow_session, as the funnel reads it.
            for arm in arms {
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT id, session_id, kind, step, action, to_step, seconds, at, flow_version FROM events
                        WHERE tenant = ? AND flow = ? ORDER BY session_id, id
                        """, arguments: [tenant, arm.flow])
                while let row = try rows.next() {
                    folder.event(
                        variant: arm.variant, sessionId: row[1], id: row[0], kind: row[2], step: row[3], action: row[4], toStep: row[5],
                        seconds: row[6], at: row[7], version: row[8])
                }
            }
            return folder.finish()
        }
    }

    public func experimentStop(tenant: String, experiment: String, seed: String) async throws -> ExperimentStop? {
        try await writer.read { db in try Self.fetchStop(db, tenant: tenant, experiment: experiment, seed: seed) }
    }

    static func fetchStop(_ db: Database, tenant: String, experiment: String, seed: String) throws -> ExperimentStop? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT at, variant, reason, interval_json FROM experiment_stops WHERE tenant = ? AND experiment = ? AND seed = ?",
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
