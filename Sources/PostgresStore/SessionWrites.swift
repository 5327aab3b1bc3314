import Foundation
import Logging
import PlatformCore
import PostgresNIO

/// One command's write of an existing session: the session as the command left it, the write
/// count of the row it was decided on, its changed answers and its events. The optimistic path
/// sends it (batched) where that count is still the row's; the locked path sends it on the row it
/// holds, where it always is.
struct SessionWrite: Sendable {
    var session: JSONValue
    var removedAnswers: [JSONValue]
    var upsertedAnswers: [JSONValue]
    var events: [JSONValue]
    var sessionID: String
    /// A completion's profile (at most one row), its records and its outbox events, each row
    /// tagged with `write_id` (the session's id) so they are written only with the session.
    var profiles: [JSONValue] = []
    var records: [JSONValue] = []
    var outbox: [JSONValue] = []
    /// What two writes in one statement must not share: the session, and the profile a
    /// completion upserts (`ON CONFLICT DO UPDATE` cannot touch one row twice in a statement).
    var exclusiveKeys: [String]

    init(
        _ state: SessionState, events: [FlowEvent], replacing old: SessionState, writes: Int64,
        profile: Profile? = nil, outbox: [OutboxEvent] = []
    ) throws {
        exclusiveKeys = ["session:" + state.id]
        let writeID = JSONValue.string(state.id)
        if let profile {
            exclusiveKeys.append("profile:" + profile.tenant + "\u{1F}" + profile.userId)
            profiles = [[
                "write_id": writeID, "tenant": .string(profile.tenant), "user_id": .string(profile.userId),
                "completed_at": .double(profile.completedAt.timeIntervalSince1970),
            ]]
            records = profile.records.sorted(by: { $0.key < $1.key }).map { name, body in
                [
                    "write_id": writeID, "tenant": .string(profile.tenant), "user_id": .string(profile.userId),
                    "name": .string(name), "body_json": .string(body.serialized()),
                    "updated_at": .double(state.updatedAt.timeIntervalSince1970),
                ]
            }
        }
        for item in outbox { precondition(item.event.tenant == state.tenant, "an event must stay in its tenant") }
        self.outbox = try Self.rows(of: outbox, writeID: writeID)
        let text = try SessionTextColumns(state)
        sessionID = state.id
        session = [
            "id": .string(state.id), "tenant": .string(state.tenant), "status": .string(state.status.rawValue),
            "revision": .int(Int64(state.revision)), "user_json": .string(text.user), "path_json": .string(text.path),
            "progress_json": .string(text.progress), "arrived_at": .double(state.arrivedAt.timeIntervalSince1970),
            "last_submit_digest": state.lastSubmitDigest.map(JSONValue.string) ?? .null,
            "completion_json": text.completion.map(JSONValue.string) ?? .null,
            "rejection_json": text.rejection.map(JSONValue.string) ?? .null,
            "updated_at": .double(state.updatedAt.timeIntervalSince1970), "flow_version": .string(state.flowVersion),
            "flow_fingerprint": .string(state.flowFingerprint),
            "abandoned_at": state.abandonedAt.map { .double($0.timeIntervalSince1970) } ?? .null, "writes": .int(writes),
        ]
        let answers = AnswerRowChanges(state, replacing: old)
        removedAnswers = answers.removed.map { ["session_id": .string(state.id), "tenant": .string(state.tenant), "step": .string($0)] }
        upsertedAnswers = Self.rows(of: answers.upserted, in: state)
        self.events = Self.rows(of: events, in: state)
    }

    /// The outbox events' rows, as `outboxInsert` reads them; `writeID` ties them to a session
    /// write (null: written unconditionally).
    static func rows(of outbox: [OutboxEvent], writeID: JSONValue) throws -> [JSONValue] {
        try outbox.map { item in
            let event = item.event
            return [
                "write_id": writeID, "id": .string(event.id), "tenant": .string(event.tenant), "type": .string(event.type.rawValue),
                "user_id": .string(event.userId), "session_id": event.sessionId.map(JSONValue.string) ?? .null,
                "occurred_at": .double(event.occurredAt.timeIntervalSince1970),
                "body_json": .string(try JSONValue(encoding: event).serialized()),
                "webhooks": .array(item.webhooks.map(JSONValue.string)),
                "deliver_until": .double(item.deliverUntil.timeIntervalSince1970),
            ]
        }
    }

    /// Inserts the outbox events of a CTE `items` (`value`: a row of `rows(of:writeID:)`,
    /// `position`) and their deliveries, after the outbox lock of each tenant among them, taken in
    /// tenant order and held to the commit, so an event's sequence order is its commit order.
    /// `after` is a condition the locks wait for (the row locks every path takes before them).
    /// The statement's `locked`, `event` and `delivered` parts.
    static func outboxInsert(after condition: String = "TRUE") -> String {
        """
        locked AS (
            SELECT count(*) AS tenants FROM (
                SELECT pg_advisory_xact_lock(hashtextextended('outbox:' || t.tenant, 0))
                FROM (
                    SELECT DISTINCT value->>'tenant' AS tenant FROM items
                    WHERE \(condition)
                    ORDER BY 1
                ) AS t
            ) AS l
        ), event AS (
            INSERT INTO outbox (id, tenant, type, user_id, session_id, occurred_at, body_json)
            SELECT i.value->>'id', i.value->>'tenant', i.value->>'type', i.value->>'user_id', i.value->>'session_id',
                (i.value->>'occurred_at')::double precision, i.value->>'body_json'
            FROM locked, items AS i
            ORDER BY i.position
            RETURNING id, sequence
        ), delivered AS (
            INSERT INTO deliveries (event_sequence, webhook_url, tenant, state, attempts, next_attempt_at, expires_at)
            SELECT event.sequence, w.url, i.value->>'tenant', 'pending', 0, (i.value->>'occurred_at')::double precision,
                (i.value->>'deliver_until')::double precision
            FROM event
            JOIN items AS i ON i.value->>'id' = event.id
            CROSS JOIN LATERAL json_array_elements_text(i.value->'webhooks') AS w(url)
        )
        """
    }

    /// The answers' rows, as the statements' `json_to_recordset` read them.
    static func rows(of answers: [AnswerRowChanges.Row], in state: SessionState) -> [JSONValue] {
        answers.map { row in
            [
                "session_id": .string(state.id), "tenant": .string(state.tenant), "step": .string(row.step),
                "values_json": .string(row.values), "computed_json": row.computed.map(JSONValue.string) ?? .null,
            ]
        }
    }

    /// Upserts the answers of `$N` (a JSON array of `rows(of:in:)`); a statement's part.
    static func answerUpsert(from parameter: String, where condition: String = "") -> String {
        """
        INSERT INTO answers (session_id, tenant, step_id, values_json, computed_json)
        SELECT u.session_id, u.tenant, u.step, u.values_json, u.computed_json
        FROM json_to_recordset(\(parameter)::json) AS u(session_id text, tenant text, step text, values_json text, computed_json text)
        \(condition)
        ON CONFLICT (session_id, step_id) DO UPDATE SET
            values_json = excluded.values_json, computed_json = excluded.computed_json
        """
    }

    /// The events' rows, as the statements' `json_array_elements` read them.
    static func rows(of events: [FlowEvent], in state: SessionState) -> [JSONValue] {
        events.map { event in
            [
                "tenant": .string(state.tenant), "flow": .string(state.flow), "session_id": .string(state.id),
                "kind": .string(event.kind.rawValue), "step": event.step.map(JSONValue.string) ?? .null,
                "action": event.action.map(JSONValue.string) ?? .null, "to_step": event.toStep.map(JSONValue.string) ?? .null,
                "seconds": event.seconds.map(JSONValue.double) ?? .null, "at": .double(event.at.timeIntervalSince1970),
                "flow_version": .string(state.flowVersion),
            ]
        }
    }

    /// Inserts the events of `$N` (a JSON array of `rows(of:in:)`) in order; a statement's last part.
    static func eventInsert(from parameter: String, where condition: String = "") -> String {
        """
        INSERT INTO events (tenant, flow, session_id, kind, step, action, to_step, seconds, at, flow_version)
        SELECT e.value->>'tenant', e.value->>'flow', e.value->>'session_id', e.value->>'kind', e.value->>'step',
            e.value->>'action', e.value->>'to_step', (e.value->>'seconds')::double precision,
            (e.value->>'at')::double precision, e.value->>'flow_version'
        FROM json_array_elements(\(parameter)::json) WITH ORDINALITY AS e(value, position)
        \(condition)
        ORDER BY e.position
        """
    }
}

/// The session writes' one statement, prepared once per connection: planning it anew for every
/// command cost PostgreSQL more than running it (0.42 ms of planning beside 0.35 ms of execution a
/// call, measured with pg_stat_statements under `platformd bench`).
///
/// It takes the writes as JSON arrays: the sessions' updates, which apply where their write
/// counts still match; then, for the sessions updated only, their removed and upserted answers,
/// their events in order, and a completion's profile, records and outbox events with their
/// deliveries. The outbox events are inserted after the outbox lock of each tenant they belong to
/// (taken in tenant order, held to the statement's commit), so an event's sequence order is its
/// commit order. Its rows are the ids it updated.
///
/// Locks, in the order every path takes them (so two never wait for each other): the sessions'
/// rows, then profiles and records, then the tenants' outbox locks (the lock's subquery reads the
/// profile and record writes first). A session row another transaction holds is skipped, not
/// waited for (`SKIP LOCKED`): that write does not apply and its command goes to the locked path,
/// so a row held long (another host's transaction, an erasure) never stalls the writes of a batch.
struct SessionWriteStatement: PostgresPreparedStatement {
    static let name = "platformd_session_write_v3"
    typealias Row = String

    var sessions: String
    var removed: String
    var upserted: String
    var events: String
    var profiles: String
    var records: String
    var outbox: String

    init(_ writes: [SessionWrite]) {
        sessions = JSONValue.array(writes.map(\.session)).serialized()
        removed = JSONValue.array(writes.flatMap(\.removedAnswers)).serialized()
        upserted = JSONValue.array(writes.flatMap(\.upsertedAnswers)).serialized()
        events = JSONValue.array(writes.flatMap(\.events)).serialized()
        profiles = JSONValue.array(writes.flatMap(\.profiles)).serialized()
        records = JSONValue.array(writes.flatMap(\.records)).serialized()
        outbox = JSONValue.array(writes.flatMap(\.outbox)).serialized()
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        for parameter in [sessions, removed, upserted, events, profiles, records, outbox] { bindings.append(parameter) }
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }

    static let sql = """
        WITH input AS (
            SELECT * FROM json_to_recordset($1::json) AS x(
                id text, tenant text, status text, revision bigint, user_json text, path_json text, progress_json text,
                arrived_at double precision, last_submit_digest text, completion_json text, rejection_json text,
                updated_at double precision, flow_version text, flow_fingerprint text, abandoned_at double precision,
                writes bigint)
        ), target AS (
            SELECT t.id FROM sessions AS t JOIN input i ON t.tenant = i.tenant AND t.id = i.id AND t.writes = i.writes
            FOR UPDATE OF t SKIP LOCKED
        ), s AS (
            UPDATE sessions AS t SET status = i.status, revision = i.revision, user_json = i.user_json,
                path_json = i.path_json, progress_json = i.progress_json, arrived_at = i.arrived_at,
                last_submit_digest = i.last_submit_digest, completion_json = i.completion_json,
                rejection_json = i.rejection_json, updated_at = i.updated_at, flow_version = i.flow_version,
                flow_fingerprint = i.flow_fingerprint, abandoned_at = i.abandoned_at, writes = t.writes + 1
            FROM input i
            WHERE t.tenant = i.tenant AND t.id = i.id AND t.writes = i.writes AND t.id IN (SELECT id FROM target)
            RETURNING t.id
        ), removed AS (
            DELETE FROM answers a
            USING json_to_recordset($2::json) AS r(session_id text, tenant text, step text)
            WHERE a.session_id = r.session_id AND a.tenant = r.tenant AND a.step_id = r.step
                AND r.session_id IN (SELECT id FROM s)
        ), upserted AS (
            \(SessionWrite.answerUpsert(from: "$3", where: "WHERE u.session_id IN (SELECT id FROM s)"))
        ), logged AS (
            \(SessionWrite.eventInsert(from: "$4", where: "WHERE e.value->>'session_id' IN (SELECT id FROM s)"))
        ), profiled AS (
            INSERT INTO profiles (tenant, user_id, completed_at)
            SELECT p.tenant, p.user_id, p.completed_at
            FROM json_to_recordset($5::json) AS p(write_id text, tenant text, user_id text, completed_at double precision)
            WHERE p.write_id IN (SELECT id FROM s)
            ON CONFLICT (tenant, user_id) DO UPDATE SET completed_at = excluded.completed_at
            RETURNING 1
        ), recorded AS (
            INSERT INTO records (tenant, user_id, name, body_json, updated_at)
            SELECT r.tenant, r.user_id, r.name, r.body_json, r.updated_at
            FROM json_to_recordset($6::json) AS r(
                write_id text, tenant text, user_id text, name text, body_json text, updated_at double precision)
            WHERE r.write_id IN (SELECT id FROM s)
            ON CONFLICT (tenant, user_id, name) DO UPDATE SET body_json = excluded.body_json, updated_at = excluded.updated_at
            RETURNING 1
        ), items AS (
            SELECT e.value, e.position FROM json_array_elements($7::json) WITH ORDINALITY AS e(value, position)
            WHERE e.value->>'write_id' IN (SELECT id FROM s)
        ), \(SessionWrite.outboxInsert(after: "(SELECT count(*) FROM profiled) >= 0 AND (SELECT count(*) FROM recorded) >= 0"))
        SELECT id FROM s
        """
}

/// Outbox events and their deliveries in one round trip, outside a session write (a profile
/// update, a session replacing an expired one): the same insert as `SessionWriteStatement`'s.
struct OutboxWriteStatement: PostgresPreparedStatement {
    static let name = "platformd_outbox_write_v2"
    typealias Row = Void

    var items: String

    init(_ outbox: [OutboxEvent]) throws {
        items = JSONValue.array(try SessionWrite.rows(of: outbox, writeID: .null)).serialized()
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(items)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}

    static let sql = """
        WITH items AS (
            SELECT e.value, e.position FROM json_array_elements($1::json) WITH ORDINALITY AS e(value, position)
        ), \(SessionWrite.outboxInsert())
        SELECT tenants FROM locked
        """
}

/// A new session, its answers (a session replacing an expired one may bring some) and its first
/// events in one round trip; nothing at all when the user already has a session of that flow
/// (another host started it first). Its row is the session's id when it was inserted.
struct SessionInsertStatement: PostgresPreparedStatement {
    static let name = "platformd_session_insert_v3"
    typealias Row = String

    var state: SessionState
    var text: SessionTextColumns
    var answers: String
    var events: String

    init(_ state: SessionState, events: [FlowEvent]) throws {
        self.state = state
        text = try SessionTextColumns(state)
        answers = JSONValue.array(SessionWrite.rows(of: AnswerRowChanges(state, replacing: nil).upserted, in: state)).serialized()
        self.events = JSONValue.array(SessionWrite.rows(of: events, in: state)).serialized()
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 19)
        bindings.append(state.id)
        bindings.append(state.tenant)
        bindings.append(state.userId)
        bindings.append(state.flow)
        bindings.append(state.status.rawValue)
        bindings.append(Int64(state.revision))
        bindings.append(text.user)
        bindings.append(text.path)
        bindings.append(text.progress)
        bindings.append(state.arrivedAt.timeIntervalSince1970)
        bindings.append(state.lastSubmitDigest)
        bindings.append(text.completion)
        bindings.append(text.rejection)
        bindings.append(state.createdAt.timeIntervalSince1970)
        bindings.append(state.updatedAt.timeIntervalSince1970)
        bindings.append(state.flowVersion)
        bindings.append(state.flowFingerprint)
        bindings.append(events)
        bindings.append(answers)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }

    static let sql = """
        WITH session AS (
            INSERT INTO sessions (id, tenant, user_id, flow, status, revision, user_json, path_json, progress_json,
                arrived_at, last_submit_digest, completion_json, rejection_json, created_at, updated_at,
                flow_version, flow_fingerprint)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
            ON CONFLICT DO NOTHING
            RETURNING id
        ), answered AS (
            \(SessionWrite.answerUpsert(from: "$19", where: "WHERE EXISTS (SELECT 1 FROM session)"))
        ), logged AS (
            \(SessionWrite.eventInsert(from: "$18", where: "WHERE EXISTS (SELECT 1 FROM session)"))
        )
        SELECT id FROM session
        """
}
