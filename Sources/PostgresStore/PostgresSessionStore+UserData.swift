import Foundation
import PlatformCore
import PlatformStorage
import PostgresNIO

/// The person's data on PostgreSQL: the same reads and the same one-transaction erasure as
/// SQLite's; the deleted rows' space is reclaimed by a VACUUM off the reply path.
extension PostgresSessionStore {
    /// The sessions a person's new one replaced, as on SQLite (`registerReplacedSessions`),
    /// recorded by a trigger so that every host records them, a host of an older version too
    /// once the schema has this migration (whose erasures leave the rows they recorded to the
    /// next prune: their events are gone).
    static let replacedSessions: (version: String, sql: [String]) = (
        "v8-replaced-sessions",
        [
            """
            CREATE TABLE replaced_sessions (
                tenant TEXT NOT NULL,
                user_id TEXT NOT NULL,
                session_id TEXT NOT NULL,
                flow TEXT NOT NULL,
                PRIMARY KEY (tenant, user_id, session_id)
            )
            """,
            """
            INSERT INTO replaced_sessions (tenant, user_id, session_id, flow)
                SELECT a.tenant, a.user_id, a.session_id, a.flow FROM experiment_assignments a
                WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = a.session_id)
                ON CONFLICT DO NOTHING
            """,
            """
            CREATE FUNCTION session_replaced() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO replaced_sessions (tenant, user_id, session_id, flow) VALUES (OLD.tenant, OLD.user_id, OLD.id, OLD.flow)
                ON CONFLICT DO NOTHING;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER session_replaced AFTER DELETE ON sessions FOR EACH ROW WHEN (OLD.status = 'expired')
            EXECUTE FUNCTION session_replaced()
            """,
        ]
    )

    /// The person's replaced sessions, oldest first (session ids are time-ordered).
    func replacedSessions(_ connection: PostgresConnection, tenant: String, userId: String) async throws -> [(id: String, flow: String)] {
        var replaced: [(id: String, flow: String)] = []
        for try await (id, flow) in try await connection.query(
            """
            SELECT session_id, flow FROM replaced_sessions WHERE tenant = \(tenant) AND user_id = \(userId) ORDER BY session_id COLLATE "C"
            """, logger: logger
        ).decode((String, String).self) {
            replaced.append((id, flow))
        }
        return replaced
    }

    public func userData(tenant: String, userId: String) async throws -> StoredUserData {
        try await connection { connection in
            var ids: [String] = []
            for try await id in try await connection.query(
                "SELECT id FROM sessions WHERE tenant = \(tenant) AND user_id = \(userId) ORDER BY created_at, id", logger: self.logger
            ).decode(String.self) {
                ids.append(id)
            }
            var sessions: [SessionState] = []
            for id in ids {
                if let state = try await self.fetchSession(connection, tenant: tenant, key: .id(id), lock: false) { sessions.append(state) }
            }
            var events: [StoredEvent] = []
            // The replaced sessions' events first: they came before.
            // Not one snapshot: a session replaced between the two reads is in both.
            let current = Set(sessions.map(\.id))
            let replaced = try await self.replacedSessions(connection, tenant: tenant, userId: userId).filter { !current.contains($0.id) }
            for (id, flowOfSession) in replaced + sessions.map({ ($0.id, $0.flow) }) {
                // With the flow and the index's collation, along the (tenant, flow, session_id, id) index.
                for try await (flow, kind, step, action, toStep, seconds, at) in try await connection.query(
                    """
                    SELECT flow, kind, step, action, to_step, seconds, at FROM events
                    WHERE tenant = \(tenant) AND flow = \(flowOfSession) AND session_id COLLATE "C" = \(id) ORDER BY id
                    """, logger: self.logger
                ).decode((String, String, String?, String?, String?, Double?, Double).self) {
                    events.append(
                        StoredEvent(
                            sessionId: id, flow: flow,
                            event: FlowEvent(
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
            // The sessions first (waiting for a command holding a row), then the events of those
            // sessions, which then include what such a command wrote.
            var gone: [(id: String, flow: String)] = []
            for try await (id, flow) in try await connection.query(
                "DELETE FROM sessions WHERE tenant = \(tenant) AND user_id = \(userId) RETURNING id, flow", logger: self.logger
            ).decode((String, String).self) {
                gone.append((id, flow))
            }
            counts.sessions = gone.count
            // Nothing of the person stays in this host's memory either (and a command that
            // finished just before cannot put its state back: tombstones).
            self.recent.forget(gone.map(\.id))
            // The rows just deleted were recorded as replaced too (the trigger).
            let erased = Set(gone.map(\.id))
            let replaced = try await self.replacedSessions(connection, tenant: tenant, userId: userId).filter { !erased.contains($0.id) }
            for session in gone + replaced {
                counts.events += try await count(
                    """
                    WITH gone AS (DELETE FROM events WHERE tenant = \(tenant) AND flow = \(session.flow)
                        AND session_id COLLATE "C" = \(session.id) RETURNING 1) SELECT COUNT(*) FROM gone
                    """)
            }
            _ = try await connection.query(
                "DELETE FROM replaced_sessions WHERE tenant = \(tenant) AND user_id = \(userId)", logger: self.logger
            ).collect()
            counts.records = try await count("SELECT COUNT(*) FROM records WHERE tenant = \(tenant) AND user_id = \(userId)")
            var held = counts.sessions + counts.events
            held += try await count(
                "WITH gone AS (DELETE FROM profiles WHERE tenant = \(tenant) AND user_id = \(userId) RETURNING 1) SELECT COUNT(*) FROM gone")
            // The person's experiment assignments (and the steps their sessions reached, kept for
            // the results): a later start enrols them as someone new.
            held += try await count(
                """
                WITH gone AS (DELETE FROM experiment_steps WHERE session_id IN
                    (SELECT session_id FROM experiment_assignments WHERE tenant = \(tenant) AND user_id = \(userId)) RETURNING 1)
                SELECT COUNT(*) FROM gone
                """)
            held += try await count(
                "WITH gone AS (DELETE FROM experiment_assignments WHERE tenant = \(tenant) AND user_id = \(userId) RETURNING 1) SELECT COUNT(*) FROM gone")
            counts.deliveries = try await count(
                """
                SELECT COUNT(*) FROM deliveries JOIN outbox ON deliveries.event_sequence = outbox.sequence
                WHERE outbox.tenant = \(tenant) AND outbox.user_id = \(userId) AND outbox.type <> 'user.erased' AND deliveries.state = 'pending'
                """)
            // An earlier user.erased stays: it holds nothing of the person and is the erasure's record.
            held += try await count(
                """
                WITH gone AS (DELETE FROM outbox WHERE tenant = \(tenant) AND user_id = \(userId) AND type <> 'user.erased' RETURNING 1)
                SELECT COUNT(*) FROM gone
                """)
            // Nothing of the person was held (erased before, or never here): no new event.
            if held > 0 { try await self.insert(connection, outbox: [report], tenant: tenant) }
            return counts
        }
        vacuumAfterErasure()
        return counts
    }
}

/// What the sweeper reads and deletes (`Platform.sweep`).
extension PostgresSessionStore {
    public func sweepCandidates(tenant: String, kind: SweepCandidates, before: Date, limit: Int) async throws -> [SessionState] {
        let cutoff = before.timeIntervalSince1970
        let count = Int64(limit)
        return try await connection { connection in
            let query: PostgresQuery =
                switch kind {
                case .idle:
                    "SELECT id FROM sessions WHERE tenant = \(tenant) AND status IN ('active', 'deferred') AND updated_at <= \(cutoff) LIMIT \(count)"
                case .idleNotTold:
                    """
                    SELECT id FROM sessions WHERE tenant = \(tenant) AND status IN ('active', 'deferred') AND updated_at <= \(cutoff)
                        AND (abandoned_at IS NULL OR abandoned_at < updated_at) LIMIT \(count)
                    """
                case .completedBefore:
                    """
                    SELECT id FROM sessions WHERE tenant = \(tenant) AND status = 'completed' AND updated_at <= \(cutoff)
                        AND (user_json NOT IN ('{}', '') OR EXISTS (SELECT 1 FROM answers WHERE answers.session_id = sessions.id)
                        OR (completion_json IS NOT NULL AND completion_json NOT LIKE '%"message":""%')) LIMIT \(count)
                    """
                }
            var ids: [String] = []
            for try await id in try await connection.query(query, logger: self.logger).decode(String.self) { ids.append(id) }
            var sessions: [SessionState] = []
            for id in ids {
                if let state = try await self.fetchSession(connection, tenant: tenant, key: .id(id), lock: false) { sessions.append(state) }
            }
            return sessions
        }
    }

    public func pruneEvents(tenant: String, flows: [String], before: Date, limit: Int) async throws -> (events: Int, completionEvents: Int) {
        let cutoff = before.timeIntervalSince1970
        let count = Int64(limit)
        let pruned = try await transaction { connection -> (events: Int, completionEvents: Int) in
            func deleted(_ query: PostgresQuery) async throws -> Int {
                var total = 0
                for try await value in try await connection.query(query, logger: self.logger).decode(Int64.self) { total += Int(value) }
                return total
            }
            var events = 0
            for flow in flows {
                events += try await deleted(
                    """
                    WITH gone AS (DELETE FROM events WHERE id IN (
                        SELECT id FROM events WHERE tenant = \(tenant) AND flow = \(flow) AND at < \(cutoff) LIMIT \(count))
                        RETURNING 1) SELECT COUNT(*) FROM gone
                    """)
            }
            // A replaced session whose events are all gone leads nowhere: its row, which names the
            // person, goes too.
            _ = try await connection.query(
                """
                DELETE FROM replaced_sessions r WHERE r.tenant = \(tenant) AND NOT EXISTS (
                    SELECT 1 FROM events e WHERE e.tenant = r.tenant AND e.flow = r.flow AND e.session_id COLLATE "C" = r.session_id)
                """, logger: self.logger
            ).collect()
            let outbox = try await deleted(
                """
                WITH gone AS (DELETE FROM outbox WHERE sequence IN (
                    SELECT sequence FROM outbox WHERE tenant = \(tenant) AND occurred_at < \(cutoff)
                        AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.event_sequence = outbox.sequence AND deliveries.state = 'pending')
                    LIMIT \(count)) RETURNING 1) SELECT COUNT(*) FROM gone
                """)
            return (events, outbox)
        }
        if pruned.completionEvents > 0 { vacuumAfterErasure() }
        return pruned
    }

    public func claimSweep(host: String, now: Date, lease: TimeInterval) async throws -> Bool {
        let until = now.timeIntervalSince1970 + lease
        let at = now.timeIntervalSince1970
        return try await connection { connection in
            var claimed = 0
            for try await _ in try await connection.query(
                """
                INSERT INTO sweeps (name, holder, until) VALUES ('sessions', \(host), \(until))
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                WHERE sweeps.until < \(at) OR sweeps.holder = excluded.holder
                RETURNING 1
                """, logger: self.logger
            ).decode(Int.self) { claimed += 1 }
            return claimed == 1
        }
    }
}
