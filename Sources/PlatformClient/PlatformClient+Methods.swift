import Foundation
import PlatformProtocol

/// The protocol's methods as Swift calls. The flow commands take the `SessionView` last seen and
/// read `tenant`, `sessionId`, the current step's id and `revision` from it, so a client keeps
/// one variable: `view = try await client.submit(view, values: …)`.
extension PlatformClient {
    // MARK: - Flows

    /// `flow.start`: the user's session of `flow` (default `onboarding`), new or resumed.
    /// `locale` (BCP 47, such as `Locale.current.identifier(.bcp47)`) puts its texts in the
    /// nearest language the tenant serves; nil keeps the session's.
    public nonisolated func start(
        tenant: String, userId: String, flow: String? = nil, user: UserDetails? = nil, locale: String? = nil
    ) async throws -> SessionView {
        try await call(.start, StartParams(tenant: tenant, userId: userId, flow: flow, user: user, locale: locale))
    }

    /// `flow.get` by session id. Never writes.
    public nonisolated func get(tenant: String, sessionId: String) async throws -> SessionView {
        try await call(.get, GetParams(tenant: tenant, sessionId: sessionId))
    }

    /// `flow.get` by user and flow (default `onboarding`). Never writes.
    public nonisolated func get(tenant: String, userId: String, flow: String? = nil) async throws -> SessionView {
        try await call(.get, GetParams(tenant: tenant, userId: userId, flow: flow))
    }

    /// `flow.submit` on the view's current step, at its revision. `values` are field id to value,
    /// written as Swift literals: `["gradYear": 2026, "level": "JV", "goals": ["a", "b"]]`.
    ///
    /// A view without a step (completed, rejected) is sent as is, and the server answers -32005.
    public nonisolated func submit(
        _ view: SessionView, action: SubmitAction = .continue, values: [String: JSONValue] = [:]
    ) async throws -> SessionView {
        try await call(
            .submit,
            SubmitParams(
                tenant: view.tenant, sessionId: view.sessionId, stepId: view.step?.id ?? "", revision: view.revision,
                action: action, values: values))
    }

    /// `flow.back`: the previous step on the path taken, answers kept.
    public nonisolated func back(_ view: SessionView) async throws -> SessionView {
        try await call(
            .back,
            BackParams(
                tenant: view.tenant, sessionId: view.sessionId, revision: view.revision))
    }

    /// `flow.goto`: back to a step on the path taken (a review's Edit).
    public nonisolated func goto(_ view: SessionView, stepId: String) async throws -> SessionView {
        try await call(
            .goto,
            GotoParams(
                tenant: view.tenant, sessionId: view.sessionId, stepId: stepId, revision: view.revision))
    }

    /// `flow.search`: options for a `search` field of the view's session (`limit` 1-50, default 10).
    public nonisolated func search(
        _ view: SessionView, field: String, query: String, limit: Int? = nil
    ) async throws -> SearchResults {
        try await call(
            .search,
            SearchParams(
                tenant: view.tenant, sessionId: view.sessionId, field: field, query: query, limit: limit))
    }

    /// `flow.describe`: a flow (default `onboarding`) as data and as a Mermaid flowchart.
    public nonisolated func describe(tenant: String, flow: String? = nil) async throws -> FlowDescription {
        try await call(.describe, DescribeParams(tenant: tenant, flow: flow))
    }

    // MARK: - Profiles and gates

    /// `profile.get`: the records written when the user completed onboarding.
    public nonisolated func profile(tenant: String, userId: String) async throws -> Profile {
        try await call(.profileGet, ProfileParams(tenant: tenant, userId: userId))
    }

    /// `profile.update`: changes fields the plugin declares editable; `nil` (`.null`) clears an
    /// optional one. Answers the whole profile.
    public nonisolated func updateProfile(
        tenant: String, userId: String, values: [String: JSONValue]
    ) async throws -> Profile {
        try await call(.profileUpdate, ProfileUpdateParams(tenant: tenant, userId: userId, values: values))
    }

    /// `gate.check`: whether the user may take `action`, and what they still need; its copy in
    /// `locale` (BCP 47), or in the language of the user's onboarding session when nil.
    public nonisolated func checkGate(tenant: String, userId: String, action: String, locale: String? = nil) async throws -> GateDecision {
        try await call(.gateCheck, GateCheckParams(tenant: tenant, userId: userId, action: action, locale: locale))
    }

    // MARK: - Operations

    /// `analytics.funnel` over the sessions started in `[since, until)` (both optional), on
    /// `version` of the flow when given; `versions` counts every version.
    public nonisolated func funnel(
        tenant: String, flow: String? = nil, since: Date? = nil, until: Date? = nil, version: String? = nil
    ) async throws -> Funnel {
        try await call(
            .funnel,
            FunnelParams(
                tenant: tenant, flow: flow, since: since.map(Timestamp.string), until: until.map(Timestamp.string), version: version))
    }

    /// `analytics.experiment` (an admin, or a key of `tenant`): each variant's exposed, completed,
    /// completion rate, time to complete and funnel, the SRM check, and each variant against the
    /// control (`vsControl.interval`, `decision`). Reading it may stop an `autoStop` experiment.
    public nonisolated func experimentResults(tenant: String, experiment: String) async throws -> ExperimentResults {
        try await call(.experiment, ExperimentParams(tenant: tenant, experiment: experiment))
    }

    /// `user.export` (an admin, a key of `tenant`, or the user's own token): everything held
    /// about the user in the tenant.
    public nonisolated func exportUser(tenant: String, userId: String) async throws -> UserExport {
        try await call(.userExport, ProfileParams(tenant: tenant, userId: userId))
    }

    /// `user.erase` (an admin or a key of `tenant`): erases everything held about the user in the
    /// tenant; the counts of what went (zeros for an unknown user).
    public nonisolated func eraseUser(tenant: String, userId: String) async throws -> UserErasure {
        try await call(.userErase, ProfileParams(tenant: tenant, userId: userId))
    }

    /// `events.list` (an admin, or a key of `tenant`): the tenant's completion events after
    /// `after` (an earlier page's `next`; nil: from the first), oldest first, at most `limit`
    /// (1-1000, the server's default 100). Poll with the page's `next` to get what follows.
    public nonisolated func events(tenant: String, after: String? = nil, limit: Int? = nil) async throws -> EventsPage {
        try await call(.eventsList, EventsListParams(tenant: tenant, after: after, limit: limit))
    }

    /// `platform.info`: the server's name, version, protocol and tenants.
    public nonisolated func info() async throws -> PlatformInfo {
        try await call(.platformInfo, NoParams())
    }

    /// `rpc.discover`: the OpenRPC document of every method, shape and error code.
    public nonisolated func discover() async throws -> OpenRPCDocument {
        try await call(.discover, NoParams())
    }

    // MARK: - Authentication (protocol 2; the server answers -32601 until it serves them)

    /// `auth.login` with an admin or tenant key's secret: the connection acts for its principal
    /// from the next request on.
    public nonisolated func login(key: String) async throws -> Principal {
        let result: LoginResult = try await call(.login, LoginParams.key(key))
        return result.principal
    }

    /// `auth.login` with a user token (from `userToken`): the connection acts for that one user.
    public nonisolated func login(token: String) async throws -> Principal {
        let result: LoginResult = try await call(.login, LoginParams.token(token))
        return result.principal
    }

    /// `auth.userToken` (an admin, or a key of `tenant`): a token an app's own client logs in with
    /// to act for `userId` only. `ttlSeconds` 60-86400, the server's default 3600.
    public nonisolated func userToken(
        tenant: String, userId: String, ttlSeconds: Int? = nil
    ) async throws -> UserToken {
        try await call(.userToken, UserTokenParams(tenant: tenant, userId: userId, ttlSeconds: ttlSeconds))
    }

    /// `auth.revokeToken` (an admin, or a key of `tenant`): revokes one user token; every host
    /// refuses it from its next request. Answers how many live tokens were revoked.
    public nonisolated func revokeToken(tenant: String, token: String) async throws -> Int {
        let result: RevokedTokens = try await call(.revokeToken, RevokeTokenParams(tenant: tenant, token: token))
        return result.revoked
    }

    /// `auth.revokeToken` for every token of one user of `tenant`.
    public nonisolated func revokeTokens(tenant: String, userId: String) async throws -> Int {
        let result: RevokedTokens = try await call(.revokeToken, RevokeTokenParams(tenant: tenant, userId: userId))
        return result.revoked
    }
}
