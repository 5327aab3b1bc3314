/// Every method of the protocol, with what `rpc.discover` says of it. The server's method table
/// and the client both name methods through this type.
public enum PlatformMethod: String, Sendable, Hashable, CaseIterable {
    case platformInfo = "platform.info"
    case discover = "rpc.discover"
    case start = "flow.start"
    case get = "flow.get"
    case submit = "flow.submit"
    case back = "flow.back"
    case goto = "flow.goto"
    case search = "flow.search"
    case describe = "flow.describe"
    case profileGet = "profile.get"
    case profileUpdate = "profile.update"
    case gateCheck = "gate.check"
    case funnel = "analytics.funnel"
    case login = "auth.login"
    case userToken = "auth.userToken"
    case revokeToken = "auth.revokeToken"
    case eventsList = "events.list"
    case userExport = "user.export"
    case userErase = "user.erase"

    public var summary: String {
        switch self {
        case .platformInfo: "The server's name, version, protocol and tenants."
        case .discover: "This OpenRPC document."
        case .start: "Starts the user's session of a flow, or returns the existing one (resuming where the flow's policy says)."
        case .get: "Reads a session by id, or by user and flow. Never writes."
        case .submit: "Answers the current step. Accepted answers are durable before the reply."
        case .back: "Moves to the previous step on the path taken; answers are kept."
        case .goto: "Moves back to a step on the path taken (a review's Edit)."
        case .search: "Options for a field of type search."
        case .describe: "A flow as data and as a Mermaid flowchart."
        case .profileGet: "The records written when the user completed onboarding."
        case .profileUpdate: "Changes fields the plugin declares editable after onboarding."
        case .gateCheck: "Whether the user may take an action, and what they still need."
        case .funnel: "The flow's funnel over the sessions started in [since, until) (on version, when given), with each version's started and completed."
        case .login: "Logs the connection in with a key's secret or a user token; it then acts as that principal."
        case .userToken: "Mints a short-lived token that lets an app's client act for one user of one tenant."
        case .revokeToken:
            "Revokes one user token of a tenant (token), or every token of one of its users (userId); every host refuses them from their next request."
        case .eventsList: "The tenant's completion events, oldest first, after a cursor: for backends that poll instead of taking webhooks."
        case .userExport: "Everything the store holds about one user of a tenant, as one document."
        case .userErase:
            "Erases every session, answer, profile, record and funnel event of one user of a tenant, cancels their pending deliveries, and reports user.erased."
        }
    }

    /// Parameters in the order a positional client would list them, with their schemas.
    var params: [(name: String, required: Bool, schema: JSONValue)] {
        let tenant = ("tenant", true, Schema.ref("TenantId"))
        let userId = ("userId", true, Schema.ref("UserId"))
        let sessionId = ("sessionId", true, Schema.string)
        let revision = ("revision", true, Schema.integer(minimum: 0))
        let flow = ("flow", false, Schema.string(description: "Default \"onboarding\"."))
        switch self {
        case .platformInfo, .discover: return []
        case .login:
            return [
                ("key", false, Schema.string(description: "A key's secret (give key or token).")),
                ("token", false, Schema.string(description: "A user token from auth.userToken.")),
            ]
        case .userToken:
            return [tenant, userId, (ParamBounds.tokenLifetime.name, false, ParamBounds.tokenLifetime.schema)]
        case .revokeToken:
            return [
                tenant, ("token", false, Schema.string(description: "The token to revoke (give token or userId).")),
                ("userId", false, Schema.ref("UserId")),
            ]
        case .start:
            return [
                tenant, userId, flow, ("user", false, Schema.ref("UserDetails")),
                (
                    "locale", false,
                    Schema.string(
                        description: "BCP 47 (es, es-MX): the language of the session's texts, kept with it; the nearest served one is used.",
                        maxLength: ParamBounds.locale.maxLength, minLength: ParamBounds.locale.minLength)
                ),
            ]
        case .get:
            return [
                tenant, ("sessionId", false, Schema.string(description: "Give sessionId, or userId (and flow).")),
                ("userId", false, Schema.ref("UserId")), flow,
            ]
        case .submit:
            return [
                tenant, sessionId, ("stepId", true, Schema.string), revision,
                ("action", false, Schema.enumeration(SubmitAction.allCases.map(\.rawValue), description: "Default \"continue\".")),
                ("values", false, Schema.object(description: "Field id to value.")),
            ]
        case .back: return [tenant, sessionId, revision]
        case .goto: return [tenant, sessionId, ("stepId", true, Schema.string), revision]
        case .search:
            return [
                tenant, sessionId, ("field", true, Schema.string),
                (ParamBounds.searchQuery.name, true, ParamBounds.searchQuery.schema),
                (ParamBounds.searchLimit.name, false, ParamBounds.searchLimit.schema),
            ]
        case .describe: return [tenant, flow]
        case .profileGet: return [tenant, userId]
        case .profileUpdate:
            return [tenant, userId, ("values", true, Schema.object(description: "Editable field id to value; null clears an optional field."))]
        case .gateCheck:
            return [
                tenant, userId, ("action", true, Schema.string),
                (
                    "locale", false,
                    Schema.string(
                        description: "BCP 47: the language of the copy; default: the locale of the user's onboarding session.",
                        maxLength: ParamBounds.locale.maxLength, minLength: ParamBounds.locale.minLength)
                ),
            ]
        case .funnel:
            return [tenant, flow, ("since", false, Schema.timestamp), ("until", false, Schema.timestamp), ("version", false, Schema.string)]
        case .userExport, .userErase: return [tenant, userId]
        case .eventsList:
            return [
                tenant, ("after", false, Schema.ref("EventCursor")),
                (ParamBounds.eventsLimit.name, false, ParamBounds.eventsLimit.schema),
            ]
        }
    }

    /// The result's schema name under `components.schemas`.
    var resultSchema: String {
        switch self {
        case .platformInfo: "PlatformInfo"
        case .discover: "OpenRPCDocument"
        case .start, .get, .submit, .back, .goto: "SessionView"
        case .search: "SearchResults"
        case .describe: "FlowDescription"
        case .profileGet, .profileUpdate: "Profile"
        case .gateCheck: "GateDecision"
        case .funnel: "Funnel"
        case .login: "LoginResult"
        case .userToken: "UserToken"
        case .revokeToken: "RevokedTokens"
        case .eventsList: "EventsPage"
        case .userExport: "UserExport"
        case .userErase: "UserErasure"
        }
    }

    /// The error codes a client should expect from it, besides the ones any method may answer.
    var errors: [ErrorCode] {
        switch self {
        case .platformInfo, .discover: []
        case .start, .describe, .search, .funnel: [.notFound, .unavailable]
        case .get, .profileGet, .gateCheck: [.notFound]
        case .submit: [.notFound, .conflict, .validationFailed, .invalidState, .unavailable]
        case .back, .goto: [.notFound, .conflict, .invalidState, .unavailable]
        case .profileUpdate: [.notFound, .validationFailed, .unavailable]
        case .login: [.unauthorized]
        case .userToken: [.unauthorized, .notFound, .unavailable]
        case .revokeToken: [.unauthorized, .notFound, .unavailable]
        case .eventsList, .userExport, .userErase: [.notFound, .unavailable]
        }
    }
}
