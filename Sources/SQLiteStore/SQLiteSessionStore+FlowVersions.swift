import Foundation
import GRDB
import PlatformCore
import PlatformStorage

/// The flow versions' registry and the sessions in flight by version (`flows check`).
extension SQLiteSessionStore {
    public func registerFlowVersions(_ records: [FlowVersionRecord]) async throws -> [FlowVersionRecord] {
        // Nothing to register (a dry run learning the others' versions): a read, which a
        // read-only database allows.
        if records.isEmpty {
            return try await writer.read { db in try Self.registeredFlowVersions(db, records: [], tenants: []) }
        }
        return try await committer.write { db in
            for record in records {
                try db.execute(
                    sql: "INSERT INTO flow_versions (tenant, flow, version, fingerprint) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    arguments: [record.tenant, record.flow, record.version, record.fingerprint])
            }
            let tenants = Array(Set(records.map(\.tenant)))
            return try Self.registeredFlowVersions(db, records: records, tenants: tenants)
        }
    }

    static func registeredFlowVersions(_ db: Database, records: [FlowVersionRecord], tenants: [String]) throws -> [FlowVersionRecord] {
        try Row.fetchAll(
            db, sql: "SELECT tenant, flow, version, fingerprint, sequence FROM flow_versions ORDER BY sequence"
        ).compactMap { row -> FlowVersionRecord? in
            let record = FlowVersionRecord(tenant: row[0], flow: row[1], version: row[2], fingerprint: row[3], sequence: row[4])
            return records.isEmpty || tenants.contains(record.tenant) ? record : nil
        }
    }

    public func versionsInFlight(tenant: String, flow: String) async throws -> [(version: String, fingerprint: String, sessions: Int)] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT flow_version, flow_fingerprint, COUNT(*) FROM sessions
                    WHERE tenant = ? AND flow = ? AND status IN ('active', 'deferred') GROUP BY flow_version, flow_fingerprint
                    """, arguments: [tenant, flow]
            ).map { row in (row[0], row[1], row[2]) }
        }
    }

    public func sessionsInFlight(
        tenant: String, flow: String, version: String, fingerprint: String, after: String, limit: Int
    ) async throws -> [SessionState] {
        try await writer.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM sessions WHERE tenant = ? AND flow = ? AND status IN ('active', 'deferred')
                        AND flow_version = ? AND flow_fingerprint = ? AND id > ? ORDER BY id LIMIT ?
                    """, arguments: [tenant, flow, version, fingerprint, after, limit]
            ).compactMap { id in try Self.fetchStoredSession(db, tenant: tenant, key: .id(id))?.state }
        }
    }
}
