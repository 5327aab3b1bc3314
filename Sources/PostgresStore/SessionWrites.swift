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

    init(_ state: SessionState, events: [FlowEvent], replacing old: SessionState, writes: Int64) throws {
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
/// It takes the writes as four JSON arrays: the sessions' updates, which apply where their write
/// counts still match; then, for the sessions updated only, their removed and upserted answers and
/// their events in order. Its rows are the ids it updated.
struct SessionWriteStatement: PostgresPreparedStatement {
    static let name = "platformd_session_write_v1"
    typealias Row = String

    var sessions: String
    var removed: String
    var upserted: String
    var events: String

    init(_ writes: [SessionWrite]) {
        sessions = JSONValue.array(writes.map(\.session)).serialized()
        removed = JSONValue.array(writes.flatMap(\.removedAnswers)).serialized()
        upserted = JSONValue.array(writes.flatMap(\.upsertedAnswers)).serialized()
        events = JSONValue.array(writes.flatMap(\.events)).serialized()
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(sessions)
        bindings.append(removed)
        bindings.append(upserted)
        bindings.append(events)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }

    static let sql = "WITH " + sessionParts + "\nSELECT id FROM s"

    /// The session writes' common table expressions (`input`, `s`: the ids updated, `removed`,
    /// `upserted`, `logged`) over parameters $1 to $4, for statements that write more after them.
    static let sessionParts = """
        input AS (
            SELECT * FROM json_to_recordset($1::json) AS x(
                id text, tenant text, status text, revision bigint, user_json text, path_json text, progress_json text,
                arrived_at double precision, last_submit_digest text, completion_json text, rejection_json text,
                updated_at double precision, flow_version text, flow_fingerprint text, abandoned_at double precision,
                writes bigint)
        ), s AS (
            UPDATE sessions AS t SET status = i.status, revision = i.revision, user_json = i.user_json,
                path_json = i.path_json, progress_json = i.progress_json, arrived_at = i.arrived_at,
                last_submit_digest = i.last_submit_digest, completion_json = i.completion_json,
                rejection_json = i.rejection_json, updated_at = i.updated_at, flow_version = i.flow_version,
                flow_fingerprint = i.flow_fingerprint, abandoned_at = i.abandoned_at, writes = t.writes + 1
            FROM input i
            WHERE t.tenant = i.tenant AND t.id = i.id AND t.writes = i.writes
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
        )
        """
}

/// A completion's profile and records in one round trip: the profile's completion time, then each
/// record (the user's other records kept).
struct ProfileWriteStatement: PostgresPreparedStatement {
    static let name = "platformd_profile_write_v1"
    typealias Row = Void

    var tenant: String
    var userId: String
    var completedAt: Double
    var records: String
    var updatedAt: Double

    init(_ profile: Profile, at time: Date) {
        tenant = profile.tenant
        userId = profile.userId
        completedAt = profile.completedAt.timeIntervalSince1970
        records = JSONValue.array(profile.records.sorted(by: { $0.key < $1.key }).map { name, body in
            ["name": .string(name), "body_json": .string(body.serialized())]
        }).serialized()
        updatedAt = time.timeIntervalSince1970
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(tenant)
        bindings.append(userId)
        bindings.append(completedAt)
        bindings.append(records)
        bindings.append(updatedAt)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}

    static let sql = """
        WITH profile AS (
            INSERT INTO profiles (tenant, user_id, completed_at) VALUES ($1, $2, $3)
            ON CONFLICT (tenant, user_id) DO UPDATE SET completed_at = excluded.completed_at
        )
        INSERT INTO records (tenant, user_id, name, body_json, updated_at)
        SELECT $1, $2, r.name, r.body_json, $5
        FROM json_to_recordset($4::json) AS r(name text, body_json text)
        ON CONFLICT (tenant, user_id, name) DO UPDATE SET body_json = excluded.body_json, updated_at = excluded.updated_at
        """
}

/// One outbox event and its deliveries in one round trip, after the tenant's outbox lock (taken
/// first: the insert reads from it), so the event's sequence order is its commit order.
struct OutboxWriteStatement: PostgresPreparedStatement {
    static let name = "platformd_outbox_write_v1"
    typealias Row = Void

    var lock: String
    var id: String
    var tenant: String
    var type: String
    var userId: String
    var sessionId: String?
    var occurredAt: Double
    var body: String
    var webhooks: [String]
    var deliverUntil: Double

    init(_ item: OutboxEvent) throws {
        let event = item.event
        lock = "outbox:" + event.tenant
        id = event.id
        tenant = event.tenant
        type = event.type.rawValue
        userId = event.userId
        sessionId = event.sessionId
        occurredAt = event.occurredAt.timeIntervalSince1970
        body = try JSONValue(encoding: event).serialized()
        webhooks = item.webhooks
        deliverUntil = item.deliverUntil.timeIntervalSince1970
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 10)
        bindings.append(lock)
        bindings.append(id)
        bindings.append(tenant)
        bindings.append(type)
        bindings.append(userId)
        bindings.append(sessionId)
        bindings.append(occurredAt)
        bindings.append(body)
        bindings.append(webhooks)
        bindings.append(deliverUntil)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}

    static let sql = """
        WITH locked AS (
            SELECT pg_advisory_xact_lock(hashtextextended($1, 0))
        ), event AS (
            INSERT INTO outbox (id, tenant, type, user_id, session_id, occurred_at, body_json)
            SELECT $2, $3, $4, $5, $6, $7, $8 FROM locked
            RETURNING sequence
        )
        INSERT INTO deliveries (event_sequence, webhook_url, tenant, state, attempts, next_attempt_at, expires_at)
        SELECT event.sequence, w.url, $3, 'pending', 0, $7, $10
        FROM event, unnest($9::text[]) AS w(url)
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

/// A completion decided outside any transaction, in one statement: the session's write where its
/// write count is still the one decided on and, only then, the profile, its records, and the
/// outbox events with their deliveries, after the tenant's outbox lock (held to the statement's
/// commit, so sequence order is commit order as on the locked path). Its rows are the ids it
/// updated: none when the row moved, and nothing at all was written.
struct CompletionWriteStatement: PostgresPreparedStatement {
    static let name = "platformd_completion_write_v1"
    typealias Row = String

    var session: SessionWriteStatement
    var profile: String
    var records: String
    var outboxLock: String
    var outbox: String

    init(_ write: SessionWrite, profile: Profile?, outbox: [OutboxEvent], at time: Date) throws {
        session = SessionWriteStatement([write])
        let tenant = write.session["tenant"] ?? .null
        self.profile = JSONValue.array(profile.map { profile in
            [["tenant": .string(profile.tenant), "user_id": .string(profile.userId),
              "completed_at": .double(profile.completedAt.timeIntervalSince1970)]]
        } ?? []).serialized()
        records = JSONValue.array((profile?.records ?? [:]).sorted(by: { $0.key < $1.key }).map { name, body in
            ["tenant": tenant, "user_id": .string(profile?.userId ?? ""), "name": .string(name),
             "body_json": .string(body.serialized()), "updated_at": .double(time.timeIntervalSince1970)]
        }).serialized()
        outboxLock = "outbox:" + (tenant.stringValue ?? "")
        self.outbox = JSONValue.array(try outbox.map { item in
            let event = item.event
            return [
                "id": .string(event.id), "tenant": .string(event.tenant), "type": .string(event.type.rawValue),
                "user_id": .string(event.userId), "session_id": event.sessionId.map(JSONValue.string) ?? .null,
                "occurred_at": .double(event.occurredAt.timeIntervalSince1970),
                "body_json": .string(try JSONValue(encoding: event).serialized()),
                "webhooks": .array(item.webhooks.map(JSONValue.string)),
                "deliver_until": .double(item.deliverUntil.timeIntervalSince1970),
            ]
        }).serialized()
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = try session.makeBindings()
        bindings.append(profile)
        bindings.append(records)
        bindings.append(outboxLock)
        bindings.append(outbox)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> String { try row.decode(String.self) }

    static let sql = "WITH " + SessionWriteStatement.sessionParts + """
        , profile AS (
            INSERT INTO profiles (tenant, user_id, completed_at)
            SELECT p.tenant, p.user_id, p.completed_at
            FROM json_to_recordset($5::json) AS p(tenant text, user_id text, completed_at double precision)
            WHERE EXISTS (SELECT 1 FROM s)
            ON CONFLICT (tenant, user_id) DO UPDATE SET completed_at = excluded.completed_at
        ), recorded AS (
            INSERT INTO records (tenant, user_id, name, body_json, updated_at)
            SELECT r.tenant, r.user_id, r.name, r.body_json, r.updated_at
            FROM json_to_recordset($6::json) AS r(tenant text, user_id text, name text, body_json text, updated_at double precision)
            WHERE EXISTS (SELECT 1 FROM s)
            ON CONFLICT (tenant, user_id, name) DO UPDATE SET body_json = excluded.body_json, updated_at = excluded.updated_at
        ), locked AS (
            SELECT pg_advisory_xact_lock(hashtextextended($7, 0)) FROM s WHERE json_array_length($8::json) > 0
        ), event AS (
            INSERT INTO outbox (id, tenant, type, user_id, session_id, occurred_at, body_json)
            SELECT e.value->>'id', e.value->>'tenant', e.value->>'type', e.value->>'user_id', e.value->>'session_id',
                (e.value->>'occurred_at')::double precision, e.value->>'body_json'
            FROM locked, json_array_elements($8::json) WITH ORDINALITY AS e(value, position)
            ORDER BY e.position
            RETURNING id, sequence
        ), delivered AS (
            INSERT INTO deliveries (event_sequence, webhook_url, tenant, state, attempts, next_attempt_at, expires_at)
            SELECT event.sequence, w.url, e.value->>'tenant', 'pending', 0, (e.value->>'occurred_at')::double precision,
                (e.value->>'deliver_until')::double precision
            FROM event
            JOIN json_array_elements($8::json) AS e(value) ON e.value->>'id' = event.id
            CROSS JOIN LATERAL json_array_elements_text(e.value->'webhooks') AS w(url)
        )
        SELECT id FROM s
        """
}
