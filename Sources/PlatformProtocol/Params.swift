/// The params of each method, as a client sends them. Optional members are left out when nil.

public struct StartParams: Sendable, Hashable, Codable {
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
public struct GetParams: Sendable, Hashable, Codable {
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

public struct SubmitParams: Sendable, Hashable, Codable {
    public var tenant: String
    public var sessionId: String
    public var stepId: String
    public var revision: Int
    public var action: SubmitAction?
    public var values: [String: JSONValue]?

    public init(tenant: String, sessionId: String, stepId: String, revision: Int, action: SubmitAction? = nil, values: [String: JSONValue]? = nil) {
        self.tenant = tenant
        self.sessionId = sessionId
        self.stepId = stepId
        self.revision = revision
        self.action = action
        self.values = values
    }
}

public struct BackParams: Sendable, Hashable, Codable {
    public var tenant: String
    public var sessionId: String
    public var revision: Int

    public init(tenant: String, sessionId: String, revision: Int) {
        self.tenant = tenant
        self.sessionId = sessionId
        self.revision = revision
    }
}

public struct GotoParams: Sendable, Hashable, Codable {
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

public struct SearchParams: Sendable, Hashable, Codable {
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

public struct DescribeParams: Sendable, Hashable, Codable {
    public var tenant: String
    public var flow: String?

    public init(tenant: String, flow: String? = nil) {
        self.tenant = tenant
        self.flow = flow
    }
}

/// `profile.get`.
public struct ProfileParams: Sendable, Hashable, Codable {
    public var tenant: String
    public var userId: String

    public init(tenant: String, userId: String) {
        self.tenant = tenant
        self.userId = userId
    }
}

public struct ProfileUpdateParams: Sendable, Hashable, Codable {
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

public struct GateCheckParams: Sendable, Hashable, Codable {
    public var tenant: String
    public var userId: String
    public var action: String

    public init(tenant: String, userId: String, action: String) {
        self.tenant = tenant
        self.userId = userId
        self.action = action
    }
}

public struct FunnelParams: Sendable, Hashable, Codable {
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
public struct NoParams: Sendable, Hashable, Codable {
    public init() {}
}

/// `events.list`: the tenant's completion events after a cursor.
public struct EventsListParams: Sendable, Hashable, Codable {
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
