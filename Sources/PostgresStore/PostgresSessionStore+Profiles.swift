import Foundation
import PlatformCore
import PlatformStorage
import PostgresNIO

/// Profiles, and the events read back for listings and funnels.
extension PostgresSessionStore {
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
        _ = try await connection.query(
            """
            INSERT INTO profiles (tenant, user_id, completed_at)
            VALUES (\(profile.tenant), \(profile.userId), \(profile.completedAt.timeIntervalSince1970))
            ON CONFLICT (tenant, user_id) DO UPDATE SET completed_at = excluded.completed_at
            """, logger: logger
        ).collect()
        if !keepingOtherRecords {
            _ = try await connection.query(
                "DELETE FROM records WHERE tenant = \(profile.tenant) AND user_id = \(profile.userId)", logger: logger
            ).collect()
        }
        for (name, body) in profile.records.sorted(by: { $0.key < $1.key }) {
            _ = try await connection.query(
                """
                INSERT INTO records (tenant, user_id, name, body_json, updated_at)
                VALUES (\(profile.tenant), \(profile.userId), \(name), \(body.serialized()), \(time.timeIntervalSince1970))
                ON CONFLICT (tenant, user_id, name) DO UPDATE SET
                    body_json = excluded.body_json, updated_at = excluded.updated_at
                """, logger: logger
            ).collect()
        }
    }

    // MARK: - events and funnels

    public func events(tenant: String, flow: String?, since: Date?, until: Date?) async throws -> [StoredEvent] {
        let sinceTime = since?.timeIntervalSince1970
        let untilTime = until?.timeIntervalSince1970
        return try await connection { connection in
            var events: [StoredEvent] = []
            for try await (sessionId, eventFlow, kind, step, action, toStep, seconds, at) in try await connection.query(
                """
                SELECT session_id, flow, kind, step, action, to_step, seconds, at FROM events
                WHERE tenant = \(tenant) AND (\(flow)::text IS NULL OR flow = \(flow))
                  AND (\(sinceTime)::float8 IS NULL OR at >= \(sinceTime)) AND (\(untilTime)::float8 IS NULL OR at < \(untilTime))
                ORDER BY id
                """, logger: self.logger
            ).decode((String, String, String, String?, String?, String?, Double?, Double).self) {
                events.append(
                    StoredEvent(
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
            for try await (id, sessionId, kind, step, action, toStep, seconds, at, flowVersion) in try await connection.query(
                """
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
}
