import Foundation
import Logging
import PlatformCore
import PostgresNIO

/// One command's optimistic write: the session as the command left it, the write count of the row
/// it was decided on, its changed answers and its events.
struct OptimisticWrite: Sendable {
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
        upsertedAnswers = answers.upserted.map { row in
            [
                "session_id": .string(state.id), "tenant": .string(state.tenant), "step": .string(row.step),
                "values_json": .string(row.values), "computed_json": row.computed.map(JSONValue.string) ?? .null,
            ]
        }
        self.events = events.map { event in
            [
                "tenant": .string(state.tenant), "flow": .string(state.flow), "session_id": .string(state.id),
                "kind": .string(event.kind.rawValue), "step": event.step.map(JSONValue.string) ?? .null,
                "action": event.action.map(JSONValue.string) ?? .null, "to_step": event.toStep.map(JSONValue.string) ?? .null,
                "seconds": event.seconds.map(JSONValue.double) ?? .null, "at": .double(event.at.timeIntervalSince1970),
                "flow_version": .string(state.flowVersion),
            ]
        }
    }
}

extension OptimisticWrite {
    /// One statement for these writes (the store sends one per command): the sessions' updates
    /// where their write counts still match, then, for the sessions updated only, their removed and upserted answers and their
    /// events in order. It returns the ids it updated.
    static func statement(_ writes: [OptimisticWrite]) -> PostgresQuery {
        let sessions = JSONValue.array(writes.map(\.session)).serialized()
        let removed = JSONValue.array(writes.flatMap(\.removedAnswers)).serialized()
        let upserted = JSONValue.array(writes.flatMap(\.upsertedAnswers)).serialized()
        let events = JSONValue.array(writes.flatMap(\.events)).serialized()
        return """
            WITH input AS (
                SELECT * FROM json_to_recordset(\(sessions)::json) AS x(
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
                USING json_to_recordset(\(removed)::json) AS r(session_id text, tenant text, step text)
                WHERE a.session_id = r.session_id AND a.tenant = r.tenant AND a.step_id = r.step
                    AND r.session_id IN (SELECT id FROM s)
            ), upserted AS (
                INSERT INTO answers (session_id, tenant, step_id, values_json, computed_json)
                SELECT u.session_id, u.tenant, u.step, u.values_json, u.computed_json
                FROM json_to_recordset(\(upserted)::json) AS u(session_id text, tenant text, step text, values_json text, computed_json text)
                WHERE u.session_id IN (SELECT id FROM s)
                ON CONFLICT (session_id, step_id) DO UPDATE SET
                    values_json = excluded.values_json, computed_json = excluded.computed_json
            ), logged AS (
                INSERT INTO events (tenant, flow, session_id, kind, step, action, to_step, seconds, at, flow_version)
                SELECT e.value->>'tenant', e.value->>'flow', e.value->>'session_id', e.value->>'kind', e.value->>'step',
                    e.value->>'action', e.value->>'to_step', (e.value->>'seconds')::double precision,
                    (e.value->>'at')::double precision, e.value->>'flow_version'
                FROM json_array_elements(\(events)::json) WITH ORDINALITY AS e(value, position)
                WHERE e.value->>'session_id' IN (SELECT id FROM s)
                ORDER BY e.position
            )
            SELECT id FROM s
            """
    }
}
