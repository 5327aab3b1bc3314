import Foundation
import PlatformClient
import PlatformProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the walk before the load, untimed: one user is walked to completion on a connection of
/// its own, each step answered from its served fields (`GenericAnswers`: saved values, defaults,
/// then values made from each field's type and bounds, another candidate for a refused field),
/// and the values each step was accepted with become the plan every connection replays.
struct WalkPlanner {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let exchange: BlockingExchange
    /// Submits after which the walk is given up (a flow that never completes).
    var maxSubmits = 80

    /// The plan for `tenant` (nil: the first tenant `platform.info` lists) and `flow`.
    func plan(tenant: String?, flow: String?, userId: String) throws -> WalkPlan {
        let tenant = try tenant ?? firstTenant()
        var plan = WalkPlan(tenant: tenant, flow: flow, answers: [:], requestsPerWalk: 1)
        var view = try result(of: "flow.start", plan.startRequest(id: 0, userId: userId)["params"] ?? [:], tenant: tenant)
        var answers = GenericAnswers()
        var submits = 0
        while view["status"] != "completed" {
            guard view["status"] == "active" || view["status"] == "deferred", let step = view["step"].nonNull, let stepId = step["id"]?.stringValue else {
                throw Failure(
                    description:
                        "walking \(tenant): the session ended \(view["status"]?.stringValue ?? "?") before completing; the bench walks users to completion")
            }
            guard submits < maxSubmits else { throw Failure(description: "walking \(tenant): not completed after \(maxSubmits) submits") }
            submits += 1
            let fields = step["fields"]?.arrayValue ?? []
            var values = answers.valuesWithoutSearch(for: fields)
            for field in fields where field["type"] == "search" {
                guard let id = field["id"]?.stringValue, values[id] == nil else { continue }
                values[id] = try searchResult(tenant: tenant, sessionId: view["sessionId"] ?? .null, field: id)
            }
            let reply = try exchange.call(
                "flow.submit",
                [
                    "tenant": .string(tenant), "sessionId": view["sessionId"] ?? .null, "stepId": .string(stepId),
                    "revision": view["revision"] ?? .null, "values": .object(values),
                ])
            if let error = reply["error"] {
                guard error["code"] == -32004, answers.retry(after: error["data"]?["errors"]?.arrayValue ?? []) else {
                    throw Failure(description: "walking \(tenant): step \(stepId) refused what its fields allow: \(error.serialized())")
                }
                continue
            }
            guard let next = reply["result"] else { throw Failure(description: "walking \(tenant): flow.submit answered \(reply.serialized())") }
            plan.answers[stepId] = .object(values)
            plan.requestsPerWalk += 1
            // A processing step that sends the person back names what to change on the step it returns to.
            let sentBack = next["step"]?["errors"]?.arrayValue ?? []
            if !sentBack.isEmpty, !answers.retry(after: sentBack) {
                throw Failure(description: "walking \(tenant): sent back with \(JSONValue.array(sentBack).serialized())")
            }
            view = next
        }
        return plan
    }

    func firstTenant() throws -> String {
        let info = try result(of: "platform.info", [:], tenant: nil)
        guard let tenant = info["tenants"]?.arrayValue?.first?["tenant"]?.stringValue else {
            throw Failure(description: "the server hosts no tenant to walk")
        }
        return tenant
    }

    func searchResult(tenant: String, sessionId: JSONValue, field: String) throws -> JSONValue? {
        for query in ["Lon", "New", "San", "a"] {
            let found = try exchange.call(
                "flow.search",
                [
                    "tenant": .string(tenant), "sessionId": sessionId, "field": .string(field), "query": .string(query),
                ])
            if let first = found["result"]?["results"]?.arrayValue?.first?["value"] { return first }
        }
        return nil
    }

    func result(of method: String, _ params: JSONValue, tenant: String?) throws -> JSONValue {
        let reply = try exchange.call(method, params)
        guard let result = reply["result"] else {
            throw Failure(description: "\(tenant.map { "walking \($0): " } ?? "")\(method) failed: \(reply.serialized())")
        }
        return result
    }
}

/// One request at a time over a connection of its own, each reply parsed whole: for the planning
/// walk, where what is read matters more than what reading costs.
final class BlockingExchange {
    let descriptor: Int32
    let framing: BenchEndpoint.Framing
    var buffer: [UInt8] = []
    var lastID: Int64 = 0
    /// How long one reply may take.
    let timeout: Duration

    init(endpoint: BenchEndpoint, timeout: Duration = .seconds(60)) throws {
        descriptor = try endpoint.connect()
        framing = endpoint.framing
        self.timeout = timeout
    }

    deinit { close(descriptor) }

    /// Lets go of the reply buffer's capacity (a connection kept open idle holds nothing more).
    func release() { buffer = [] }

    func call(_ method: String, _ params: JSONValue) throws -> JSONValue {
        lastID += 1
        let request: JSONValue = ["jsonrpc": "2.0", "id": .int(lastID), "method": .string(method), "params": params]
        try LoadDriver.send(framing.request(request.serializedBytes()), on: descriptor)
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let message = framing.message(in: buffer, from: buffer.startIndex) {
                defer { buffer.removeSubrange(..<message.end) }
                do {
                    return try JSONValue.parse(buffer[message.body])
                } catch {
                    throw WalkPlanner.Failure(description: "\(method): the reply is not JSON (\(error))")
                }
            }
            guard ContinuousClock.now < deadline else { throw WalkPlanner.Failure(description: "\(method): no reply within \(timeout)") }
            var polled = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            guard LoadDriver.poll(&polled) else { throw WalkPlanner.Failure(description: "poll failed: errno \(errno)") }
            guard polled[0].revents != 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw WalkPlanner.Failure(description: "\(method): the server closed the connection") }
            buffer.append(contentsOf: chunk[0..<count])
            if case .websocket = framing { LoadDriver.answerPings(in: &buffer, on: descriptor) }
        }
    }
}
