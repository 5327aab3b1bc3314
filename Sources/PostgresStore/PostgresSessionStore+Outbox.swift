import Foundation
import PlatformCore
import PlatformStorage
import PostgresNIO

/// The outbox: events in commit order per tenant, claimed for webhook delivery under leases.
extension PostgresSessionStore {
    /// Writes events and their pending deliveries inside the transaction of the change they
    /// report. The tenant's advisory lock, held to the commit, makes the tenant's sequence order
    /// its commit order: a reader polling with a cursor never passes an event still uncommitted.
    func insert(_ connection: PostgresConnection, outbox items: [OutboxEvent], tenant: String) async throws {
        guard !items.isEmpty else { return }
        for item in items { precondition(item.event.tenant == tenant, "an event must stay in its tenant") }
        _ = try await connection.execute(try OutboxWriteStatement(items), logger: logger)
    }

    public func outbox(tenant: String, after: Int64, limit: Int) async throws -> [OutboxEntry] {
        let limit = Int64(max(0, limit))
        return try await connection { connection in
            var entries: [OutboxEntry] = []
            for try await (sequence, body) in try await connection.query(
                """
                SELECT sequence, body_json FROM outbox WHERE tenant = \(tenant) AND sequence > \(after) ORDER BY sequence LIMIT \(limit)
                """, logger: self.logger
            ).decode((Int64, String).self) {
                entries.append(OutboxEntry(sequence: sequence, event: try JSONValue.parse(body).decode(PlatformEvent.self)))
            }
            return entries
        }
    }

    public func claimDeliveries(now: Date, limit: Int, lease: TimeInterval, host: String) async throws -> ClaimedDeliveries {
        let time = now.timeIntervalSince1970
        let until = time + lease
        let limit = Int64(max(0, limit))
        return try await connection { connection in
            var claims: [DeliveryClaim] = []
            if limit > 0 {
                // One statement: the due rows not claimed (skipping those another host is
                // claiming right now) are leased to this host.
                for try await (sequence, webhook, tenant, attempts, expires, id, body) in try await connection.query(
                    """
                    WITH due AS (
                        SELECT event_sequence, webhook_url FROM deliveries
                        WHERE state = 'pending' AND next_attempt_at <= \(time) AND (claimed_until IS NULL OR claimed_until <= \(time))
                        ORDER BY next_attempt_at, event_sequence LIMIT \(limit)
                        FOR UPDATE SKIP LOCKED
                    ), claimed AS (
                        UPDATE deliveries d SET claimed_until = \(until), claimed_by = \(host)
                        FROM due WHERE d.event_sequence = due.event_sequence AND d.webhook_url = due.webhook_url
                        RETURNING d.event_sequence, d.webhook_url, d.tenant, d.attempts, d.expires_at, d.next_attempt_at
                    )
                    SELECT c.event_sequence, c.webhook_url, c.tenant, c.attempts, c.expires_at, o.id, o.body_json
                    FROM claimed c JOIN outbox o ON o.sequence = c.event_sequence
                    ORDER BY c.next_attempt_at, c.event_sequence
                    """, logger: self.logger
                ).decode((Int64, String, String, Int64, Double, String, String).self) {
                    claims.append(
                        DeliveryClaim(
                            sequence: sequence, eventId: id, tenant: tenant, webhook: webhook, body: Array(body.utf8),
                            attempts: Int(attempts), expiresAt: Date(timeIntervalSince1970: expires)))
                }
            }
            let next = try await connection.query(
                """
                SELECT MIN(GREATEST(next_attempt_at, COALESCE(claimed_until, 0))) FROM deliveries
                WHERE state = 'pending' AND NOT (claimed_by IS NOT DISTINCT FROM \(host) AND claimed_until > \(time))
                """, logger: self.logger
            ).collect().first?.decode(Double?.self)
            return ClaimedDeliveries(claims: claims, nextDue: next.map(Date.init(timeIntervalSince1970:)))
        }
    }

    @discardableResult
    public func recordAttempt(_ claim: DeliveryClaim, host: String, _ attempt: DeliveryAttempt) async throws -> Bool {
        let row = attempt.row
        let (state, next, status, error, finished) = (row.state, row.nextAttempt, row.lastStatus, row.lastError, row.finishedAt)
        let lastStatus = status.map(Int64.init)
        let finishedAt = finished?.timeIntervalSince1970
        return try await connection { connection in
            return try await connection.query(
                """
                UPDATE deliveries SET state = \(state.rawValue), attempts = attempts + 1,
                    next_attempt_at = \(next.timeIntervalSince1970), last_status = \(lastStatus),
                    last_error = \(error), finished_at = \(finishedAt), claimed_until = NULL, claimed_by = NULL
                WHERE event_sequence = \(claim.sequence) AND webhook_url = \(claim.webhook) AND claimed_by = \(host)
                  AND state = 'pending'
                RETURNING 1
                """, logger: self.logger
            ).collect().count == 1
        }
    }

    public func releaseClaim(_ claim: DeliveryClaim, host: String) async throws {
        try await connection { connection in
            _ = try await connection.query(
                """
                UPDATE deliveries SET claimed_until = NULL, claimed_by = NULL
                WHERE event_sequence = \(claim.sequence) AND webhook_url = \(claim.webhook) AND claimed_by = \(host)
                """, logger: self.logger
            ).collect()
        }
    }

    public func recentEvents(tenant: String, limit: Int, failedOnly: Bool) async throws -> [EventDeliveries] {
        let limit = Int64(max(0, limit))
        return try await connection { connection in
            var entries: [OutboxEntry] = []
            for try await (sequence, body) in try await connection.query(
                """
                SELECT sequence, body_json FROM outbox
                WHERE tenant = \(tenant) AND (NOT \(failedOnly) OR sequence IN
                    (SELECT event_sequence FROM deliveries WHERE tenant = \(tenant) AND state = 'failed'))
                ORDER BY sequence DESC LIMIT \(limit)
                """, logger: self.logger
            ).decode((Int64, String).self) {
                entries.append(OutboxEntry(sequence: sequence, event: try JSONValue.parse(body).decode(PlatformEvent.self)))
            }
            var result: [EventDeliveries] = []
            for entry in entries.reversed() {
                var deliveries: [DeliveryStatus] = []
                for try await (webhook, stateName, attempts, next, lastStatus, lastError, finished) in try await connection.query(
                    """
                    SELECT webhook_url, state, attempts, next_attempt_at, last_status, last_error, finished_at
                    FROM deliveries WHERE event_sequence = \(entry.sequence) ORDER BY webhook_url COLLATE "C"
                    """, logger: self.logger
                ).decode((String, String, Int64, Double, Int64?, String?, Double?).self) {
                    let state = DeliveryState(rawValue: stateName) ?? .pending
                    deliveries.append(
                        DeliveryStatus(
                            webhook: webhook, state: state, attempts: Int(attempts),
                            nextAttemptAt: state == .pending ? Date(timeIntervalSince1970: next) : nil,
                            lastStatus: lastStatus.map(Int.init), lastError: lastError,
                            finishedAt: finished.map(Date.init(timeIntervalSince1970:))))
                }
                result.append(EventDeliveries(entry: entry, deliveries: deliveries))
            }
            return result
        }
    }

    public func requeueFailed(eventId: String, now: Date, deliverUntil: Date) async throws -> Int {
        try await connection { connection in
            return try await connection.query(
                """
                UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt_at = \(now.timeIntervalSince1970),
                    expires_at = \(deliverUntil.timeIntervalSince1970), finished_at = NULL, claimed_until = NULL, claimed_by = NULL
                WHERE state = 'failed' AND event_sequence = (SELECT sequence FROM outbox WHERE id = \(eventId))
                RETURNING 1
                """, logger: self.logger
            ).collect().count
        }
    }
}
