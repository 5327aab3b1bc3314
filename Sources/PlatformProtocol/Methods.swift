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
    case experiment = "analytics.experiment"
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
        case .experiment:
            "An experiment's results: each variant's exposed, completed within the window, completion rate, time to complete and funnel, the SRM check, and each variant against the control as an always-valid confidence sequence with its decision."
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

    /// The params type a client sends and the server decodes; `rpc.discover` lists its members.
    public var paramsType: any MethodParams.Type {
        switch self {
        case .platformInfo, .discover: NoParams.self
        case .login: LoginParams.self
        case .userToken: UserTokenParams.self
        case .revokeToken: RevokeTokenParams.self
        case .start: StartParams.self
        case .get: GetParams.self
        case .submit: SubmitParams.self
        case .back: BackParams.self
        case .goto: GotoParams.self
        case .search: SearchParams.self
        case .describe: DescribeParams.self
        case .profileGet, .userExport, .userErase: ProfileParams.self
        case .profileUpdate: ProfileUpdateParams.self
        case .gateCheck: GateCheckParams.self
        case .funnel: FunnelParams.self
        case .experiment: ExperimentParams.self
        case .eventsList: EventsListParams.self
        }
    }

    /// Parameters in the order a positional client would list them, with their schemas.
    var params: [ParamMember] { paramsType.members }

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
        case .experiment: "ExperimentResults"
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
        case .start, .describe, .search, .funnel, .experiment: [.notFound, .unavailable]
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
