/// The params of each method, as a client sends them. Optional members are left out when nil.

public struct StartParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, .userId, .flow, ParamMember("user", required: false, schema: Schema.ref("UserDetails")),
        .locale("BCP 47 (es, es-MX): the language of the session's texts, kept with it; the nearest served one is used."),
    ]

    public var tenant: String
    public var userId: String
    public var flow: String?
    public var user: UserDetails?
    /// BCP 47 (`es`, `es-MX`): the language of the session's texts (protocol 3).
    public var locale: String?

    public init(tenant: String, userId: String, flow: String? = nil, user: UserDetails? = nil, locale: String? = nil) {
        self.tenant = tenant
        self.userId = userId
        self.flow = flow
        self.user = user
        self.locale = locale
    }
}

/// `flow.get` by session id, or by user and flow.
public struct GetParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, ParamMember("sessionId", required: false, schema: Schema.string(description: "Give sessionId, or userId (and flow).")),
        ParamMember.userId.optional, .flow,
    ]

    public var tenant: String
    public var sessionId: String?
    public var userId: String?
    public var flow: String?

    public init(tenant: String, sessionId: String) {
        self.tenant = tenant
        self.sessionId = sessionId
    }

    public init(tenant: String, userId: String, flow: String? = nil) {
        self.tenant = tenant
        self.userId = userId
        self.flow = flow
    }

    public init(tenant: String, sessionId: String?, userId: String?, flow: String?) {
        self.tenant = tenant
        self.sessionId = sessionId
        self.userId = userId
        self.flow = flow
    }
}

/// What a client may post on a step (`back` is its own method).
///
/// The step must offer the action among its buttons (``StepAction``), else the submit is refused.
public enum SubmitAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// Posts the step's values: they are checked, saved, and the step's transition decides.
    case `continue`
    /// Leaves the step unanswered (its saved answers cleared); the step's transition decides.
    case skip
    /// Defers the session, which stays where it is.
    case later
}

public struct SubmitParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, .sessionId, .stepId, .revision,
        ParamMember("action", required: false, schema: Schema.enumeration(SubmitAction.allCases.map(\.rawValue), description: "Default \"continue\".")),
        ParamMember("values", required: false, schema: Schema.object(description: "Field id to value.")),
    ]

    public var tenant: String
    public var sessionId: String
    public var stepId: String
    public var revision: Int
    /// A ``SubmitAction``'s name, kept as text: a name the step does not offer (`back`, say) is
    /// the server's -32005 with the session, not a malformed request.
    public var action: String?
    public var values: [String: JSONValue]?

    public init(tenant: String, sessionId: String, stepId: String, revision: Int, action: SubmitAction? = nil, values: [String: JSONValue]? = nil) {
        self.init(tenant: tenant, sessionId: sessionId, stepId: stepId, revision: revision, actionName: action?.rawValue, values: values)
    }

    public init(tenant: String, sessionId: String, stepId: String, revision: Int, actionName: String?, values: [String: JSONValue]?) {
        self.tenant = tenant
        self.sessionId = sessionId
        self.stepId = stepId
        self.revision = revision
        self.action = actionName
        self.values = values
    }
}

public struct BackParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [.tenant, .sessionId, .revision]

    public var tenant: String
    public var sessionId: String
    public var revision: Int

    public init(tenant: String, sessionId: String, revision: Int) {
        self.tenant = tenant
        self.sessionId = sessionId
        self.revision = revision
    }
}

public struct GotoParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [.tenant, .sessionId, .stepId, .revision]

    public var tenant: String
    public var sessionId: String
    public var stepId: String
    public var revision: Int

    public init(tenant: String, sessionId: String, stepId: String, revision: Int) {
        self.tenant = tenant
        self.sessionId = sessionId
        self.stepId = stepId
        self.revision = revision
    }
}

public struct SearchParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, .sessionId, ParamMember("field", required: true, schema: Schema.string),
        .bounded(ParamBounds.searchQuery, required: true), .bounded(ParamBounds.searchLimit),
    ]

    public var tenant: String
    public var sessionId: String
    public var field: String
    public var query: String
    /// 1-50, default 10.
    public var limit: Int?

    public init(tenant: String, sessionId: String, field: String, query: String, limit: Int? = nil) {
        self.tenant = tenant
        self.sessionId = sessionId
        self.field = field
        self.query = query
        self.limit = limit
    }
}

public struct DescribeParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [.tenant, .flow]

    public var tenant: String
    public var flow: String?

    public init(tenant: String, flow: String? = nil) {
        self.tenant = tenant
        self.flow = flow
    }
}

/// `profile.get`, `user.export` and `user.erase`: one user of a tenant.
public struct ProfileParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [.tenant, .userId]

    public var tenant: String
    public var userId: String

    public init(tenant: String, userId: String) {
        self.tenant = tenant
        self.userId = userId
    }
}

public struct ProfileUpdateParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, .userId,
        ParamMember("values", required: true, schema: Schema.object(description: "Editable field id to value; null clears an optional field.")),
    ]

    public var tenant: String
    public var userId: String
    /// Editable fields; `null` clears an optional one.
    public var values: [String: JSONValue]

    public init(tenant: String, userId: String, values: [String: JSONValue]) {
        self.tenant = tenant
        self.userId = userId
        self.values = values
    }
}

public struct GateCheckParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, .userId, ParamMember("action", required: true, schema: Schema.string),
        .locale("BCP 47: the language of the copy; default: the locale of the user's onboarding session."),
    ]

    public var tenant: String
    public var userId: String
    public var action: String
    /// BCP 47: the language of the copy; nil: the locale of the user's onboarding session.
    public var locale: String?

    public init(tenant: String, userId: String, action: String, locale: String? = nil) {
        self.tenant = tenant
        self.userId = userId
        self.action = action
        self.locale = locale
    }
}

public struct FunnelParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, .flow, ParamMember("since", required: false, schema: Schema.timestamp),
        ParamMember("until", required: false, schema: Schema.timestamp), ParamMember("version", required: false, schema: Schema.string),
    ]

    public var tenant: String
    public var flow: String?
    /// ISO 8601; the cohort is the sessions started in [since, until).
    public var since: String?
    public var until: String?
    /// Only sessions started on this version of the flow (protocol 3).
    public var version: String?

    public init(tenant: String, flow: String? = nil, since: String? = nil, until: String? = nil, version: String? = nil) {
        self.version = version
        self.tenant = tenant
        self.flow = flow
        self.since = since
        self.until = until
    }
}

/// For methods without params (`platform.info`, `rpc.discover`).
public struct NoParams: MethodParams, Hashable {
    public static let members: [ParamMember] = []

    public init() {}
}

/// `events.list`: the tenant's completion events after a cursor.
public struct EventsListParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, ParamMember("after", required: false, schema: Schema.ref("EventCursor")), .bounded(ParamBounds.eventsLimit),
    ]

    public var tenant: String
    /// An `EventsPage.next`; absent: from the first event.
    public var after: String?
    /// 1-1000; the server's default 100.
    public var limit: Int?

    public init(tenant: String, after: String? = nil, limit: Int? = nil) {
        self.tenant = tenant
        self.after = after
        self.limit = limit
    }
}
