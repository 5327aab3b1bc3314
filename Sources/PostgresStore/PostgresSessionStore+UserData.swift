import Foundation
import PlatformCore
import PostgresNIO

/// The person's data on PostgreSQL: the same reads and the same one-transaction erasure as
/// SQLite's; the deleted rows' space is reclaimed by a VACUUM off the reply path.
extension PostgresSessionStore {
    public func userData(tenant: String, userId: String) async throws -> StoredUserData {
        try await connection { connection in
            var ids: [String] = []
            for try await id in try await connection.query(
                "SELECT id FROM sessions WHERE tenant = \(tenant) AND user_id = \(userId) ORDER BY created_at, id", logger: self.logger
            ).decode(String.self) {
                ids.append(id)
            }
            var sessions: [SessionState] = []
            var events: [StoredEvent] = []
            for id in ids {
                if let state = try await self.fetchSession(connection, tenant: tenant, key: .id(id), lock: false) { sessions.append(state) }
                for try await (flow, kind, step, action, toStep, seconds, at) in try await connection.query("""
                    SELECT flow, kind, step, action, to_step, seconds, at FROM events WHERE tenant = \(tenant) AND session_id = \(id) ORDER BY id
                    """, logger: self.logger
                ).decode((String, String, String?, String?, String?, Double?, Double).self) {
                    events.append(StoredEvent(sessionId: id, flow: flow, event: FlowEvent(
                        FlowEvent.Kind(rawValue: kind) ?? .arrived, step: step, action: action, toStep: toStep, seconds: seconds,
                        at: Date(timeIntervalSince1970: at))))
                }
            }
            var outbox: [PlatformEvent] = []
            for try await body in try await connection.query(
                "SELECT body_json FROM outbox WHERE tenant = \(tenant) AND user_id = \(userId) ORDER BY sequence", logger: self.logger
            ).decode(String.self) {
                outbox.append(try JSONValue.parse(body).decode(PlatformEvent.self))
            }
            let profile = try await self.fetchProfile(connection, tenant: tenant, userId: userId, lock: false)
            return StoredUserData(sessions: sessions, profile: profile, events: events, outbox: outbox)
        }
    }

    public func eraseUser(tenant: String, userId: String, report: OutboxEvent) async throws -> UserErasure.Counts {
        let counts = try await transaction { connection -> UserErasure.Counts in
            func count(_ query: PostgresQuery) async throws -> Int {
                var total = 0
                for try await value in try await connection.query(query, logger: self.logger).decode(Int64.self) { total += Int(value) }
                return total
            }
            var counts = UserErasure.Counts()
            counts.events = try await count("""
                WITH gone AS (DELETE FROM events WHERE tenant = \(tenant)
                    AND session_id IN (SELECT id FROM sessions WHERE tenant = \(tenant) AND user_id = \(userId)) RETURNING 1)
                SELECT COUNT(*) FROM gone
                """)
            counts.sessions = try await count(
                "WITH gone AS (DELETE FROM sessions WHERE tenant = \(tenant) AND user_id = \(userId) RETURNING 1) SELECT COUNT(*) FROM gone")
            counts.records = try await count("SELECT COUNT(*) FROM records WHERE tenant = \(tenant) AND user_id = \(userId)")
            _ = try await connection.query("DELETE FROM profiles WHERE tenant = \(tenant) AND user_id = \(userId)", logger: self.logger).collect()
            counts.deliveries = try await count("""
                SELECT COUNT(*) FROM deliveries JOIN outbox ON deliveries.event_sequence = outbox.sequence
                WHERE outbox.tenant = \(tenant) AND outbox.user_id = \(userId) AND outbox.type <> 'user.erased' AND deliveries.state = 'pending'
                """)
            // An earlier user.erased stays: it holds nothing of the person and is the erasure's record.
            _ = try await connection.query(
                "DELETE FROM outbox WHERE tenant = \(tenant) AND user_id = \(userId) AND type <> 'user.erased'", logger: self.logger
            ).collect()
            try await self.insert(connection, outbox: [report], tenant: tenant)
            return counts
        }
        vacuumAfterErasure()
        return counts
    }
}
