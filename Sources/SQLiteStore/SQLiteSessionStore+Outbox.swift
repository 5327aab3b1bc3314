import Foundation
import GRDB
import PlatformCore
import PlatformStorage

/// The outbox: completion events written in the transaction of the change they report, and one
/// delivery row per (event, webhook) that carries its attempts, its next attempt's time and its
/// claim (a lease: `claimed_until`, `claimed_by`) through restarts and across hosts.
extension SQLiteSessionStore: DeliveryStore {
    static func registerOutboxTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outbox (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        tenant TEXT NOT NULL,
                        type TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        session_id TEXT,
                        occurred_at REAL NOT NULL,
                        body_json TEXT NOT NULL
                    );
                    CREATE INDEX outbox_by_tenant ON outbox (tenant, sequence);
                    CREATE TABLE deliveries (
                        event_sequence INTEGER NOT NULL REFERENCES outbox(sequence) ON DELETE CASCADE,
                        webhook_url TEXT NOT NULL,
                        tenant TEXT NOT NULL,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL,
                        next_attempt_at REAL NOT NULL,
                        expires_at REAL NOT NULL,
                        claimed_until REAL,
                        claimed_by TEXT,
                        last_status INTEGER,
                        last_error TEXT,
                        finished_at REAL,
                        PRIMARY KEY (event_sequence, webhook_url)
                    );
                    CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
                    """)
        }
    }

    /// Writes an event and its pending deliveries, due at once; called inside the transaction
    /// that writes the change the event reports.
    static func insert(_ db: Database, _ item: OutboxEvent, body: String) throws {
        let event = item.event
        // Cached: every completion writes one (a statement prepared per call went through
        // SQLite's parser and GRDB's authorizer each time).
        try db.cachedStatement(
            sql: """
                INSERT INTO outbox (id, tenant, type, user_id, session_id, occurred_at, body_json)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            event.id, event.tenant, event.type.rawValue, event.userId, event.sessionId,
            event.occurredAt.timeIntervalSince1970, body,
        ])
        let sequence = db.lastInsertedRowID
        for url in item.webhooks {
            try db.cachedStatement(
                sql: """
                    INSERT INTO deliveries (event_sequence, webhook_url, tenant, state, attempts, next_attempt_at, expires_at)
                    VALUES (?, ?, ?, 'pending', 0, ?, ?)
                    """
            ).execute(arguments: [
                sequence, url, event.tenant, item.deliverFrom.timeIntervalSince1970,
                item.deliverUntil.timeIntervalSince1970,
            ])
        }
    }

    public func outbox(tenant: String, after: Int64, limit: Int) async throws -> [OutboxEntry] {
        try await writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT sequence, body_json FROM outbox WHERE tenant = ? AND sequence > ? ORDER BY sequence LIMIT ?
                    """, arguments: [tenant, after, limit]
            ).map(Self.entry(from:))
        }
    }

    static func entry(from row: Row) throws -> OutboxEntry {
        OutboxEntry(sequence: row["sequence"], event: try JSONValue.parse(row["body_json"] as String).decode(PlatformEvent.self))
    }

    // MARK: - claims

    public func claimDeliveries(now: Date, limit: Int, lease: TimeInterval, host: String) async throws -> ClaimedDeliveries {
        let time = now.timeIntervalSince1970
        // Looked for with a read, so an idle poll never takes the write lock; the statements are
        // cached, as a poll runs every second.
        let candidates = try await writer.read { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT event_sequence, webhook_url FROM deliveries
                        WHERE state = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
                        ORDER BY next_attempt_at, event_sequence LIMIT ?
                        """), arguments: [time, time, max(0, limit)]
            ).map { (sequence: $0["event_sequence"] as Int64, webhook: $0["webhook_url"] as String) }
        }
        var claims: [DeliveryClaim] = []
        if !candidates.isEmpty {
            claims = try await writer.write { db in
                var claimed: [DeliveryClaim] = []
                for candidate in candidates {
                    // The claim itself: a conditional UPDATE only one host can win, whatever the
                    // database (in PostgreSQL the same statement, row-locked).
                    try db.execute(
                        sql: """
                            UPDATE deliveries SET claimed_until = ?, claimed_by = ?
                            WHERE event_sequence = ? AND webhook_url = ? AND state = 'pending'
                              AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
                            """, arguments: [time + lease, host, candidate.sequence, candidate.webhook, time, time])
                    guard db.changesCount == 1 else { continue }
                    guard
                        let row = try Row.fetchOne(
                            db,
                            sql: """
                                SELECT d.event_sequence, d.webhook_url, d.tenant, d.attempts, d.expires_at, o.id, o.body_json
                                FROM deliveries d JOIN outbox o ON o.sequence = d.event_sequence
                                WHERE d.event_sequence = ? AND d.webhook_url = ?
                                """, arguments: [candidate.sequence, candidate.webhook])
                    else { continue }
                    claimed.append(
                        DeliveryClaim(
                            sequence: row["event_sequence"], eventId: row["id"], tenant: row["tenant"],
                            webhook: row["webhook_url"], body: Array((row["body_json"] as String).utf8),
                            attempts: row["attempts"], expiresAt: Date(timeIntervalSince1970: row["expires_at"])))
                }
                return claimed
            }
        }
        // The next delivery to fall due that this host does not hold: its next attempt, or the
        // end of another host's lease on it.
        let nextDue = try await writer.read { db in
            try Double.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT MIN(MAX(next_attempt_at, COALESCE(claimed_until, 0))) FROM deliveries
                        WHERE state = 'pending' AND NOT (claimed_by IS ? AND claimed_until > ?)
                        """), arguments: [host, time])
        }
        return ClaimedDeliveries(claims: claims, nextDue: nextDue.map(Date.init(timeIntervalSince1970:)))
    }

    @discardableResult
    public func recordAttempt(_ claim: DeliveryClaim, host: String, _ attempt: DeliveryAttempt) async throws -> Bool {
        let row = attempt.row
        let (state, next, status, error, finished) = (row.state, row.nextAttempt, row.lastStatus, row.lastError, row.finishedAt)
        return try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?, last_status = ?,
                        last_error = ?, finished_at = ?, claimed_until = NULL, claimed_by = NULL
                    WHERE event_sequence = ? AND webhook_url = ? AND claimed_by = ? AND state = 'pending'
                    """,
                arguments: [
                    state.rawValue, next.timeIntervalSince1970, status, error, finished?.timeIntervalSince1970,
                    claim.sequence, claim.webhook, host,
                ])
            return db.changesCount == 1
        }
    }

    public func releaseClaim(_ claim: DeliveryClaim, host: String) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET claimed_until = NULL, claimed_by = NULL
                    WHERE event_sequence = ? AND webhook_url = ? AND claimed_by = ?
                    """, arguments: [claim.sequence, claim.webhook, host])
        }
    }

    // MARK: - operators

    public func recentEvents(tenant: String, limit: Int, failedOnly: Bool) async throws -> [EventDeliveries] {
        try await writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT sequence, body_json FROM outbox
                    WHERE tenant = ? AND (? = 0 OR sequence IN (SELECT event_sequence FROM deliveries WHERE tenant = ?1 AND state = 'failed'))
                    ORDER BY sequence DESC LIMIT ?
                    """, arguments: [tenant, failedOnly ? 1 : 0, limit])
            return try rows.reversed().map { row in
                let entry = try Self.entry(from: row)
                let deliveries = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM deliveries WHERE event_sequence = ? ORDER BY webhook_url
                        """, arguments: [entry.sequence]
                ).map { delivery in
                    let state = DeliveryState(rawValue: delivery["state"]) ?? .pending
                    return DeliveryStatus(
                        webhook: delivery["webhook_url"], state: state, attempts: delivery["attempts"],
                        nextAttemptAt: state == .pending ? Date(timeIntervalSince1970: delivery["next_attempt_at"]) : nil,
                        lastStatus: delivery["last_status"], lastError: delivery["last_error"],
                        finishedAt: (delivery["finished_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
                }
                return EventDeliveries(entry: entry, deliveries: deliveries)
            }
        }
    }

    public func requeueFailed(eventId: String, now: Date, deliverUntil: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt_at = ?, expires_at = ?,
                        finished_at = NULL, claimed_until = NULL, claimed_by = NULL
                    WHERE state = 'failed' AND event_sequence = (SELECT sequence FROM outbox WHERE id = ?)
                    """, arguments: [now.timeIntervalSince1970, deliverUntil.timeIntervalSince1970, eventId])
            return db.changesCount
        }
    }
}
