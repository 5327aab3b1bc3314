import Foundation
import PlatformCore

// Moved to the client library (the load generator answers steps with it too); re-exported so
// tests that walk flows keep finding it here.
@_exported import struct PlatformClient.GenericAnswers

extension PlatformdProcess {
    /// A walk that did not end as asked.
    public struct WalkFailure: Error, CustomStringConvertible {
        public var tenant: String
        public var reason: String
        public var description: String { "walking \(tenant): \(reason)" }
    }

    /// Starts (or resumes) `userId`'s session on `tenant` and submits generic answers
    /// (`GenericAnswers`) step after step until `stop` holds for the view (by default: the
    /// session is completed or rejected). Returns that view (the `result` of the last reply).
    /// Throws `WalkFailure` when a step is refused in a way the answers cannot get past, or after
    /// `maxSubmits`.
    @discardableResult
    public func walk(
        tenant: String, userId: String, user: JSONValue = ["firstName": "Alex"], maxSubmits: Int = 80,
        until stop: (JSONValue) -> Bool = { ["completed", "rejected"].contains($0["status"]?.stringValue ?? "") }
    ) async throws -> JSONValue {
        try await recordedWalk(tenant: tenant, userId: userId, user: user, maxSubmits: maxSubmits, until: stop).view
    }

    /// `walk`, also returning the values of each accepted submit, in order: answers another
    /// client (the MCP tools) can replay on a fresh session of the same tenant.
    public func recordedWalk(
        tenant: String, userId: String, user: JSONValue = ["firstName": "Alex"], maxSubmits: Int = 80,
        until stop: (JSONValue) -> Bool = { ["completed", "rejected"].contains($0["status"]?.stringValue ?? "") }
    ) async throws -> (view: JSONValue, accepted: [[String: JSONValue]]) {
        var accepted: [[String: JSONValue]] = []
        let started = try await call("flow.start", ["tenant": .string(tenant), "userId": .string(userId), "user": user])
        guard var view = started["result"] else {
            throw WalkFailure(tenant: tenant, reason: "flow.start failed: \(started.serialized())")
        }
        var answers = GenericAnswers()
        var submits = 0
        while !stop(view) {
            guard view["status"] == "active" || view["status"] == "deferred", let step = view["step"].nonNull else {
                throw WalkFailure(tenant: tenant, reason: "the session ended before the walk did: \(view.serialized())")
            }
            guard submits < maxSubmits else {
                throw WalkFailure(tenant: tenant, reason: "not done after \(maxSubmits) submits: \(view.serialized())")
            }
            submits += 1
            let sessionId = view["sessionId"] ?? .null
            let values = try await answers.values(for: step["fields"]?.arrayValue ?? []) { field in
                for query in ["Lon", "New", "San", "a"] {
                    let found = try await self.call(
                        "flow.search",
                        [
                            "tenant": .string(tenant), "sessionId": sessionId, "field": .string(field), "query": .string(query),
                        ])
                    if let first = found["result"]?["results"]?.arrayValue?.first?["value"] { return first }
                }
                return nil
            }
            let reply = try await call(
                "flow.submit",
                [
                    "tenant": .string(tenant), "sessionId": sessionId, "stepId": step["id"] ?? .null,
                    "revision": view["revision"] ?? .null, "values": .object(values),
                ])
            if let error = reply["error"] {
                guard error["code"] == -32004, answers.retry(after: error["data"]?["errors"]?.arrayValue ?? []) else {
                    throw WalkFailure(tenant: tenant, reason: "\(step["id"]?.stringValue ?? "?") refused: \(reply.serialized())")
                }
                continue
            }
            guard let next = reply["result"] else {
                throw WalkFailure(tenant: tenant, reason: "flow.submit answered neither result nor error: \(reply.serialized())")
            }
            accepted.append(values)
            // A processing step that sends the person back carries the reasons on the step it returns to.
            let sentBack = next["step"]?["errors"]?.arrayValue ?? []
            if !sentBack.isEmpty, !answers.retry(after: sentBack) {
                throw WalkFailure(tenant: tenant, reason: "sent back with \(JSONValue.array(sentBack).serialized())")
            }
            view = next
        }
        return (view, accepted)
    }

    /// Walks `userId` on `tenant` to a completed session (see `walk`); throws when it does not complete.
    @discardableResult
    public func complete(tenant: String, userId: String, user: JSONValue = ["firstName": "Alex"]) async throws -> JSONValue {
        let view = try await walk(tenant: tenant, userId: userId, user: user)
        guard view["status"] == "completed" else {
            throw WalkFailure(tenant: tenant, reason: "ended \(view["status"]?.stringValue ?? "?"): \(view.serialized())")
        }
        return view
    }
}
