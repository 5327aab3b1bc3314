import Foundation
import GRDB
import PlatformCore
import PlatformStorage

/// The person's data: `user.export` reads it all, `user.erase` deletes it all in one transaction.
extension SQLiteSessionStore {
    /// The sessions a person's new one replaced (an expired session makes way for the next of
    /// its flow): their funnel events stay for the funnel's history, and this is what leads
    /// export and erasure to them once the session row is gone. A trigger records every expired
    /// session row deleted (only an expired session is ever replaced), so any process on the
    /// file records them. An erasure deletes the rows its own deletions recorded; one by a
    /// process of an older version leaves them, with no event left to lead to, and the next
    /// prune, which deletes rows whose events are all gone, takes them. Filled, as it migrates,
    /// from the stored experiment assignments whose session was replaced; a session replaced
    /// before this version and not found that way left nothing that names its person.
    static func registerReplacedSessions(_ migrator: inout DatabaseMigrator) {
        // No foreign key names this table: GRDB's deferred check would read the whole file.
        migrator.registerMigration("v13-replaced-sessions", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: replacedSessionsTable)
        }
    }

    /// v13 (its own constant: a test plays another process running it).
    static let replacedSessionsTable = """
        CREATE TABLE replaced_sessions (
            tenant TEXT NOT NULL,
            user_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            flow TEXT NOT NULL,
            PRIMARY KEY (tenant, user_id, session_id)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO replaced_sessions (tenant, user_id, session_id, flow)
            SELECT a.tenant, a.user_id, a.session_id, a.flow FROM experiment_assignments a
            WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = a.session_id);
        CREATE TRIGGER sessions_replaced AFTER DELETE ON sessions WHEN OLD.status = 'expired' BEGIN
            INSERT OR IGNORE INTO replaced_sessions (tenant, user_id, session_id, flow) VALUES (OLD.tenant, OLD.user_id, OLD.id, OLD.flow);
        END;
        """

    /// The person's replaced sessions, oldest first (session ids are time-ordered).
    static func replacedSessions(_ db: Database, tenant: String, userId: String) throws -> [(id: String, flow: String)] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT session_id, flow FROM replaced_sessions WHERE tenant = ? AND user_id = ? ORDER BY session_id"),
            arguments: [tenant, userId]
        ).map { ($0[0], $0[1]) }
    }

    public func userData(tenant: String, userId: String) async throws -> StoredUserData {
        try await writer.read { db in
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM sessions WHERE tenant = ? AND user_id = ? ORDER BY created_at, id", arguments: [tenant, userId])
            let sessions = try ids.compactMap { try Self.fetchStoredSession(db, tenant: tenant, key: .id($0))?.state }
            var events: [StoredEvent] = []
            // The replaced sessions' events first: they came before.
            let replaced = try Self.replacedSessions(db, tenant: tenant, userId: userId)
            for (id, flow) in replaced + sessions.map({ ($0.id, $0.flow) }) {
                // With the flow, along events_by_flow_session (tenant, flow, session_id, id).
                events += try Row.fetchAll(
                    db,
                    sql: """
                        SELECT flow, kind, step, action, to_step, seconds, at FROM events WHERE tenant = ? AND flow = ? AND session_id = ? ORDER BY id
                        """, arguments: [tenant, flow, id]
                ).map { row in
                    StoredEvent(
                        sessionId: id, flow: row[0],
                        event: FlowEvent(
                            FlowEvent.Kind(rawValue: row[1]) ?? .arrived, step: row[2], action: row[3], toStep: row[4], seconds: row[5],
                            at: Date(timeIntervalSince1970: row[6])))
                }
            }
            let outbox = try Row.fetchAll(
                db, sql: "SELECT sequence, body_json FROM outbox WHERE tenant = ? AND user_id = ? ORDER BY sequence", arguments: [tenant, userId]
            ).map { try Self.entry(from: $0).event }
            return StoredUserData(
                sessions: sessions, profile: try Self.fetchProfile(db, tenant: tenant, userId: userId), events: events, outbox: outbox)
        }
    }

    public func eraseUser(tenant: String, userId: String, report: OutboxEvent) async throws -> UserErasure.Counts {
        let (counts, ids) = try await committer.write { db -> (UserErasure.Counts, [String]) in
            var counts = UserErasure.Counts()
            let rows = try Row.fetchAll(db, sql: "SELECT id, flow FROM sessions WHERE tenant = ? AND user_id = ?", arguments: [tenant, userId])
            let ids: [String] = rows.map { $0[0] }
            let replaced = try Self.replacedSessions(db, tenant: tenant, userId: userId)
            for (id, flow) in rows.map({ ($0[0] as String, $0[1] as String) }) + replaced {
                // With the flow, along events_by_flow_session: never a scan of the tenant's events
                // inside the one writer's transaction.
                try db.execute(sql: "DELETE FROM events WHERE tenant = ? AND flow = ? AND session_id = ?", arguments: [tenant, flow, id])
                counts.events += db.changesCount
            }
            // Answers go with their sessions (ON DELETE CASCADE), records with their profile.
            try db.execute(sql: "DELETE FROM sessions WHERE tenant = ? AND user_id = ?", arguments: [tenant, userId])
            counts.sessions = db.changesCount
            // After the sessions: their rows' deletion recorded them here too (the trigger).
            try db.execute(sql: "DELETE FROM replaced_sessions WHERE tenant = ? AND user_id = ?", arguments: [tenant, userId])
            counts.records =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM records WHERE tenant = ? AND user_id = ?", arguments: [tenant, userId]) ?? 0
            try db.execute(sql: "DELETE FROM profiles WHERE tenant = ? AND user_id = ?", arguments: [tenant, userId])
            var held = counts.sessions + counts.events + db.changesCount
            // The person's experiment assignments (and their outcomes and the steps their sessions
            // reached, kept for the results): a later start enrols them as someone new.
            for rollup in Self.rollupTables {
                try db.execute(
                    sql: "DELETE FROM \(rollup) WHERE session_id IN (SELECT session_id FROM experiment_assignments WHERE tenant = ? AND user_id = ?)",
                    arguments: [tenant, userId])
            }
            try db.execute(sql: "DELETE FROM experiment_assignments WHERE tenant = ? AND user_id = ?", arguments: [tenant, userId])
            held += db.changesCount
            counts.deliveries =
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM deliveries JOIN outbox ON deliveries.event_sequence = outbox.sequence
                        WHERE outbox.tenant = ? AND outbox.user_id = ? AND outbox.type <> 'user.erased' AND deliveries.state = 'pending'
                        """, arguments: [tenant, userId]) ?? 0
            // Their payloads hold the person's records: the events go, deliveries with them. An
            // earlier user.erased stays: it holds nothing of the person and is the erasure's record.
            try db.execute(sql: "DELETE FROM outbox WHERE tenant = ? AND user_id = ? AND type <> 'user.erased'", arguments: [tenant, userId])
            held += db.changesCount
            // Nothing of the person was held (erased before, or never here): no new event.
            if held > 0 { try Self.insert(db, report, body: PreparedSessionCommit.body(of: report)) }
            return (counts, ids)
        }
        recent.forget(ids)
        // The deleted rows' old page versions live on in the WAL until it is truncated.
        if checkpointer != nil { await truncateWAL() }
        return counts
    }
}

/// What the sweeper reads and deletes (`Platform.sweep`).
extension SQLiteSessionStore {
    public func sweepCandidates(tenant: String, kind: SweepCandidates, before: Date, limit: Int) async throws -> [SessionState] {
        let sql =
            switch kind {
            case .idle:
                "SELECT id FROM sessions WHERE tenant = ? AND status IN ('active', 'deferred') AND updated_at <= ? LIMIT ?"
            case .idleNotTold:
                """
                SELECT id FROM sessions WHERE tenant = ? AND status IN ('active', 'deferred') AND updated_at <= ?
                    AND (abandoned_at IS NULL OR abandoned_at < updated_at) LIMIT ?
                """
            case .completedBefore:
                """
                SELECT id FROM sessions WHERE tenant = ? AND status = 'completed' AND updated_at <= ?
                    AND (user_json NOT IN ('{}', '') OR EXISTS (SELECT 1 FROM answers WHERE answers.session_id = sessions.id)
                        OR (completion_json IS NOT NULL AND completion_json NOT LIKE '%"message":""%')) LIMIT ?
                """
            }
        return try await writer.read { db in
            try String.fetchAll(db, sql: sql, arguments: [tenant, before.timeIntervalSince1970, limit])
                .compactMap { try Self.fetchStoredSession(db, tenant: tenant, key: .id($0))?.state }
        }
    }

    public func pruneEvents(tenant: String, flows: [String], before: Date, limit: Int) async throws -> (events: Int, completionEvents: Int) {
        // Events leave only once the experiments' rollup has counted them (the delete keeps any
        // committed since this fold).
        try await foldRollup()
        let pruned = try await committer.write { db -> (events: Int, completionEvents: Int) in
            var events = 0
            for flow in flows {
                try db.execute(
                    sql: """
                        DELETE FROM events WHERE id IN (SELECT id FROM events WHERE tenant = ? AND flow = ? AND at < ?
                            AND id <= (SELECT event_id FROM experiment_rollup_mark) LIMIT ?)
                        """, arguments: [tenant, flow, before.timeIntervalSince1970, limit])
                events += db.changesCount
            }
            // A replaced session whose events are all gone leads nowhere: its row, which names the
            // person, goes too.
            try db.execute(
                sql: """
                    DELETE FROM replaced_sessions WHERE tenant = ? AND NOT EXISTS (
                        SELECT 1 FROM events e WHERE e.tenant = replaced_sessions.tenant AND e.flow = replaced_sessions.flow
                            AND e.session_id = replaced_sessions.session_id)
                    """, arguments: [tenant])
            try db.execute(
                sql: """
                    DELETE FROM outbox WHERE sequence IN (
                        SELECT sequence FROM outbox WHERE tenant = ? AND occurred_at < ?
                            AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.event_sequence = outbox.sequence AND deliveries.state = 'pending')
                        LIMIT ?)
                    """, arguments: [tenant, before.timeIntervalSince1970, limit])
            return (events, db.changesCount)
        }
        // Completion events' payloads hold records: their old pages leave the WAL too.
        if pruned.completionEvents > 0 && checkpointer != nil { await truncateWAL() }
        return pruned
    }

    public func claimSweep(host: String, now: Date, lease: TimeInterval) async throws -> Bool {
        try await committer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sweeps (name, holder, until) VALUES ('sessions', ?, ?)
                    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                    WHERE sweeps.until < ? OR sweeps.holder = excluded.holder
                    """, arguments: [host, now.timeIntervalSince1970 + lease, now.timeIntervalSince1970])
            return db.changesCount == 1
        }
    }
}
