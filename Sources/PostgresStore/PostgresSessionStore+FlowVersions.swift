import PlatformCore
import PlatformStorage
import PostgresNIO

/// Flow versions registered at start and the sessions still on each.
extension PostgresSessionStore {
    public func registerFlowVersions(_ records: [FlowVersionRecord]) async throws -> [FlowVersionRecord] {
        try await connection { connection in
            for record in records {
                _ = try await connection.query(
                    """
                    INSERT INTO flow_versions (tenant, flow, version, fingerprint)
                    VALUES (\(record.tenant), \(record.flow), \(record.version), \(record.fingerprint))
                    ON CONFLICT DO NOTHING
                    """, logger: self.logger
                ).collect()
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
            for try await (version, fingerprint, count) in try await connection.query(
                """
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
            for try await id in try await connection.query(
                """
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
}
