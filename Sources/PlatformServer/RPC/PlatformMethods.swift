import Foundation
import PlatformCore
import PlatformStorage

extension Platform {
    /// The contract's method table: each entry reads its params, calls the platform and renders
    /// the wire type it answers with; the domain's errors become the contract's codes here.
    public var methods: [String: RPCServer.Method] {
        answers.mapValues(\.value)
    }

    /// The method table as the RPC server runs it: each method writes its reply's text directly,
    /// or hands its result value to a caller in this process.
    public var entries: [String: RPCServer.Entry] {
        answers.mapValues(\.entry)
    }

    var answers: [String: Answer] {
        let table: [(PlatformMethod, Answer)] = [
            answer(.platformInfo) { (_: NoParams) in self.info() },
            answer(.discover) { (_: NoParams) in Self.discovery },
            answer(.start) { (p: StartParams) in
                try await self.start(tenant: p.tenant, userId: p.userId, flow: p.flow ?? "onboarding", user: p.user, locale: p.locale)
            },
            answer(.get) { (p: GetParams) in
                if let sessionId = p.sessionId { return try await self.get(tenant: p.tenant, key: .id(sessionId)) }
                return try await self.get(tenant: p.tenant, key: .user(userId: p.userId ?? "", flow: p.flow ?? "onboarding"))
            },
            answer(.submit) { (p: SubmitParams) in
                let command = FlowEngine.Submit(
                    stepId: p.stepId, revision: p.revision, action: p.action ?? SubmitAction.continue.rawValue, values: p.values ?? [:])
                return try await self.submit(tenant: p.tenant, sessionId: p.sessionId, command: command)
            },
            answer(.back) { (p: BackParams) in try await self.back(tenant: p.tenant, sessionId: p.sessionId, revision: p.revision) },
            answer(.goto) { (p: GotoParams) in
                try await self.goto(tenant: p.tenant, sessionId: p.sessionId, stepId: p.stepId, revision: p.revision)
            },
            answer(.search) { (p: SearchParams) in
                try await self.search(
                    tenant: p.tenant, sessionId: p.sessionId, field: p.field, query: p.query,
                    limit: p.limit ?? ParamBounds.searchLimit.defaultValue)
            },
            answer(.describe) { (p: DescribeParams) in try self.describe(tenant: p.tenant, flow: p.flow ?? "onboarding") },
            answer(.profileGet) { (p: ProfileParams) in try await self.profile(tenant: p.tenant, userId: p.userId) },
            answer(.profileUpdate) { (p: ProfileUpdateParams) in
                try await self.updateProfile(tenant: p.tenant, userId: p.userId, values: p.values)
            },
            answer(.funnel) { (p: FunnelParams) in
                try await self.funnel(
                    tenant: p.tenant, flow: p.flow ?? "onboarding", since: p.sinceDate, until: p.untilDate, version: p.version)
            },
            answer(.experiment) { (p: ExperimentParams) in try await self.experimentResults(tenant: p.tenant, experiment: p.experiment) },
            answer(.gateCheck) { (p: GateCheckParams) in
                try await self.checkGate(tenant: p.tenant, userId: p.userId, action: p.action, locale: p.locale)
            },
            answer(.userExport) { (p: ProfileParams) in try await self.exportUser(tenant: p.tenant, userId: p.userId) },
            answer(.userErase) { (p: ProfileParams) in try await self.eraseUser(tenant: p.tenant, userId: p.userId) },
            answer(.eventsList) { (p: EventsListParams) in
                try await self.events(tenant: p.tenant, after: p.position, limit: p.limit ?? ParamBounds.eventsLimit.defaultValue)
            },
        ]
        return Dictionary(uniqueKeysWithValues: table.map { ($0.0.rawValue, $0.1) })
    }

    /// Built once: the document only depends on this build.
    static let discovery = OpenRPCDocument(version: version)

    /// One method of the table, as a `JSONValue` (tests, in-process callers) and as reply text
    /// (the RPC server).
    struct Answer: Sendable {
        let value: RPCServer.Method
        let rendering: RPCServer.RenderingMethod
        let typed: RPCServer.TypedMethod

        var entry: RPCServer.Entry { RPCServer.Entry(rendering: rendering, typed: typed) }
    }

    /// `method`, read as its params type `P` (the one the client sends and `rpc.discover`
    /// describes), answering with a wire type or throwing the domain's error.
    func answer<P: RequestParams, Result: Encodable & Sendable>(
        _ method: PlatformMethod, _ call: @escaping @Sendable (P) async throws -> Result
    ) -> (PlatformMethod, Answer) {
        answer(method, withConnection: { (params: P, _) in try await call(params) })
    }

    /// A method that also needs the connection the request came on (the auth methods).
    func answer<P: RequestParams, Result: Encodable & Sendable>(
        _ method: PlatformMethod, withConnection call: @escaping @Sendable (P, ConnectionState?) async throws -> Result
    ) -> (PlatformMethod, Answer) {
        precondition(ObjectIdentifier(P.self) == ObjectIdentifier(method.paramsType), "\(method.rawValue) reads \(P.self), not \(method.paramsType)")
        // The typed path throws the domain's refusal as it is (in-process callers keep it).
        let typed: @Sendable (RPCParams) async throws -> Result = { params in
            try await call(try P(reading: params), params.connection)
        }
        let result: @Sendable (RPCParams) async throws -> Result = { params in
            do {
                return try await typed(params)
            } catch let error as FlowError {
                throw RPCError(error)
            }
        }
        return (
            method,
            Answer(
                value: { params in try Self.value(of: try await result(params)) },
                rendering: { params in try Self.text(of: try await result(params)) },
                typed: { params in try await typed(params) })
        )
    }

    static func value<Result: Encodable>(of result: Result) throws(RPCError) -> JSONValue {
        do {
            return try JSONValue(encoding: result)
        } catch {
            throw RPCError.internalError("rendering a result failed: \(error)")
        }
    }

    /// The result's JSON text: written directly when the type can, else through `JSONValue`.
    static func text<Result: Encodable>(of result: Result) throws(RPCError) -> [UInt8] {
        if let renderable = result as? any JSONRenderable { return renderable.renderedJSON() }
        return try value(of: result).serializedBytes()
    }

    /// The method table behind access control: logins, user tokens, the principals' rules and
    /// the tenants' rate limits. Without a credential store (`nil`), logins are refused.
    public func rpcServer(credentials: Credentials?, confirmationLifetime: Duration = AccessControl.confirmationLifetime) -> RPCServer {
        let access = AccessControl(platform: self, credentials: credentials, confirmationLifetime: confirmationLifetime, logger: logger)
        var table = entries
        for (method, answer) in [
            answer(.login, withConnection: { (p: LoginParams, connection) in try await access.login(p, connection: connection) }),
            answer(.userToken, withConnection: { (p: UserTokenParams, connection) in try await access.userToken(p, connection: connection) }),
            answer(.revokeToken) { (p: RevokeTokenParams) in try await access.revokeToken(p) },
        ] {
            table[method.rawValue] = answer.entry
        }
        return RPCServer(entries: table, access: access, logger: logger)
    }

    /// The method table with no access control, as every connection were admin (tests).
    public func rpcServer() -> RPCServer {
        RPCServer(entries: entries, logger: logger)
    }
}
