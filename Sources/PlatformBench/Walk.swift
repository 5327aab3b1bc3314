import PlatformProtocol

/// What every user's walk sends: the tenant, the flow, and the values each step was accepted
/// with, found once before the load from the fields the server served (`WalkPlanner`). The bench
/// names no plugin: any tenant a server hosts can be walked.
struct WalkPlan: Sendable {
    var tenant: String
    /// nil: the tenant's default flow.
    var flow: String?
    /// The values accepted for each step, by step id.
    var answers: [String: JSONValue]
    /// Requests one walk takes to completion: its start and one submit a step.
    var requestsPerWalk: Int
    /// `--starts-only`: each walk is its start alone.
    var startsOnly = false
    /// `--scattered-users`: each user a random id, as an app's are, not the connection's prefix
    /// and a counter (ids that sort together, so the rows keyed by person are written to a few
    /// pages at the end of their indexes instead of random ones).
    var scatteredUsers = false

    mutating func startOnly() {
        startsOnly = true
        requestsPerWalk = 1
    }

    func startRequest(id: Int64, userId: String) -> JSONValue {
        var params: [String: JSONValue] = ["tenant": .string(tenant), "userId": .string(userId), "user": ["firstName": "Bench"]]
        if let flow { params["flow"] = .string(flow) }
        return ["jsonrpc": "2.0", "id": .int(id), "method": "flow.start", "params": .object(params)]
    }
}

/// One connection's walks: users started one after another, each submitted the plan's values for
/// whichever step the server shows until the session completes.
struct Walk {
    let plan: WalkPlan
    let prefix: String
    var user = 0
    /// The session being walked (nil: the next request starts a new user).
    var session: ReplySummary?
    var requestID: Int64 = 0

    init(plan: WalkPlan, prefix: String) {
        self.plan = plan
        self.prefix = prefix
    }

    mutating func nextRequest() -> [UInt8] {
        requestID += 1
        let request: JSONValue
        if let session, let stepId = session.stepId {
            request = [
                "jsonrpc": "2.0", "id": .int(requestID), "method": "flow.submit",
                "params": [
                    "tenant": .string(plan.tenant), "sessionId": .string(session.sessionId ?? ""), "stepId": .string(stepId),
                    "revision": .int(session.revision ?? -1), "values": plan.answers[stepId] ?? [:],
                ],
            ]
        } else {
            user += 1
            session = nil
            let userId = plan.scatteredUsers ? String(UInt64.random(in: .min ... .max), radix: 16) : "\(prefix)-u\(user)"
            request = plan.startRequest(id: requestID, userId: userId)
        }
        return request.serializedBytes() + [0x0A]
    }

    /// A pipelined reader's read of `session`.
    mutating func readRequest(of session: String) -> JSONValue {
        requestID += 1
        return [
            "jsonrpc": "2.0", "id": .int(requestID), "method": "flow.get",
            "params": ["tenant": .string(plan.tenant), "sessionId": .string(session)],
        ]
    }

    /// Takes the reply; false when it was an error (the walk starts a new user then).
    mutating func accept(_ reply: ReplySummary) -> Bool {
        guard !reply.isError, reply.sessionId != nil, reply.revision != nil else {
            session = nil
            return false
        }
        session = !plan.startsOnly && (reply.status == "active" || reply.status == "deferred") ? reply : nil
        return true
    }
}
