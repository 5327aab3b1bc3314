import Foundation
import PlatformCore
import PlatformProtocol
import PlatformStorage

/// A params type the server reads from a request's named members, with the contract's -32602
/// errors: the same type the client encodes and `rpc.discover` describes.
protocol RequestParams: MethodParams {
    init(reading params: RPCParams) throws(RPCError)
}

extension RPCParams {
    /// A member the params type declares required: its absence is the -32602 naming it.
    func required(_ member: ParamMember) throws(RPCError) -> String {
        try string(member.name)
    }
}

extension NoParams: RequestParams {
    init(reading params: RPCParams) {
        self.init()
    }
}

extension StartParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        let user = try params.optionalObject("user").map { details throws(RPCError) -> UserDetails in
            for key in UserDetails.members {
                if let value = details[key], !value.isNull {
                    guard let text = value.stringValue else {
                        throw RPCError.invalidParams("user.\(key)", "user.\(key) must be a string")
                    }
                    guard text.count <= ParamBounds.userDetail.maxLength else {
                        throw RPCError.invalidParams("user.\(key)", "user.\(key) must be at most \(ParamBounds.userDetail.maxLength) characters")
                    }
                }
            }
            return UserDetails(
                firstName: details["firstName"]?.stringValue, lastName: details["lastName"]?.stringValue,
                email: details["email"]?.stringValue, displayName: details["displayName"]?.stringValue)
        }
        let userId = try params.userId()
        self.init(tenant: try params.tenant(), userId: userId, flow: try params.optionalString("flow"), user: user, locale: try params.locale())
    }
}

extension GetParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        let tenant = try params.tenant()
        if let sessionId = try params.optionalID("sessionId") {
            // The session's id names it; userId and flow are carried, not needed.
            self.init(tenant: tenant, sessionId: sessionId, userId: try params.optionalString("userId"), flow: try params.optionalString("flow"))
            return
        }
        guard try params.optionalString("userId") != nil else {
            throw RPCError.invalidParams("sessionId", "give sessionId, or userId and flow")
        }
        self.init(tenant: tenant, userId: try params.userId(), flow: try params.optionalString("flow"))
    }
}

extension SubmitParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        // The command's order of checks is the contract's: step and revision before the session.
        let stepId = try params.required(.stepId)
        let revision = try params.int("revision")
        let actionName = try params.optionalString("action")
        let values = try params.optionalObject("values")
        self.init(
            tenant: try params.tenant(), sessionId: try params.sessionId(), stepId: stepId, revision: revision,
            actionName: actionName, values: values)
    }
}

extension BackParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        self.init(tenant: try params.tenant(), sessionId: try params.sessionId(), revision: try params.int("revision"))
    }
}

extension GotoParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        self.init(
            tenant: try params.tenant(), sessionId: try params.sessionId(), stepId: try params.required(.stepId),
            revision: try params.int("revision"))
    }
}

extension SearchParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        let limit = try params.optionalInteger(ParamBounds.searchLimit)
        self.init(
            tenant: try params.tenant(), sessionId: try params.sessionId(), field: try params.string("field"),
            query: try params.string(ParamBounds.searchQuery), limit: limit)
    }
}

extension DescribeParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        self.init(tenant: try params.tenant(), flow: try params.optionalString("flow"))
    }
}

extension ProfileParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        self.init(tenant: try params.tenant(), userId: try params.userId())
    }
}

extension ProfileUpdateParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        guard let values = try params.optionalObject("values") else {
            throw RPCError.invalidParams("values", "values is required")
        }
        self.init(tenant: try params.tenant(), userId: try params.userId(), values: values)
    }
}

extension GateCheckParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        self.init(tenant: try params.tenant(), userId: try params.userId(), action: try params.string("action"), locale: try params.locale())
    }
}

extension FunnelParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        let tenant = try params.tenant()
        let flow = try params.optionalString("flow")
        self.init(
            tenant: tenant, flow: flow, since: try params.timestamp("since"), until: try params.timestamp("until"),
            version: try params.optionalString("version"))
    }

    var sinceDate: Date? { since.flatMap(Timestamp.date) }
    var untilDate: Date? { until.flatMap(Timestamp.date) }
}

extension ExperimentParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        self.init(tenant: try params.tenant(), experiment: try params.string(ParamBounds.experiment))
    }
}

extension EventsListParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        let tenant = try params.tenant()
        let after = try params.optionalString("after")
        if let after, EventCursor.sequence(after) == nil {
            throw RPCError.invalidParams("after", "after must be a cursor from an events.list reply's next")
        }
        self.init(tenant: tenant, after: after, limit: try params.optionalInteger(ParamBounds.eventsLimit))
    }

    /// The position after which the page starts (0: from the first event).
    var position: Int64 { after.flatMap(EventCursor.sequence) ?? 0 }
}

extension LoginParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        self.init(key: try params.optionalString("key"), token: try params.optionalString("token"))
    }
}

extension UserTokenParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        let tenant = try params.tenant()
        let userId = try params.userId()
        self.init(tenant: tenant, userId: userId, ttlSeconds: try params.optionalInteger(ParamBounds.tokenLifetime))
    }
}

extension RevokeTokenParams: RequestParams {
    init(reading params: RPCParams) throws(RPCError) {
        let tenant = try params.tenant()
        if let token = try params.optionalString("token") {
            if params.present("userId") != nil {
                throw RPCError.invalidParams("userId", "give either token or userId")
            }
            self.init(tenant: tenant, token: token)
        } else {
            self.init(tenant: tenant, userId: try params.userId())
        }
    }
}

extension RPCParams {
    /// An integer within `bound`'s range, or nil when absent (the handler applies the default).
    func optionalInteger(_ bound: IntegerParam) throws(RPCError) -> Int? {
        guard present(bound.name) != nil else { return nil }
        return try integer(bound)
    }

    /// An optional ISO 8601 timestamp member, kept as the text given.
    func timestamp(_ name: String) throws(RPCError) -> String? {
        guard let text = try optionalString(name) else { return nil }
        guard Timestamp.date(text) != nil else {
            throw RPCError.invalidParams(name, "\(name) must be an ISO 8601 timestamp such as 2026-11-21T00:00:00Z")
        }
        return text
    }
}
