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
        let table: [PlatformMethod: Answer] = [
            .platformInfo: answer { _ in self.info() },
            .discover: answer { _ in Self.discovery },
            .start: answer { params in
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
                return try await self.start(
                    tenant: params.tenant(), userId: userId,
                    flow: params.optionalString("flow") ?? "onboarding", user: user, locale: params.locale())
            },
            .get: answer { params in
                let tenant = try params.tenant()
                if let sessionId = try params.optionalID("sessionId") {
                    return try await self.get(tenant: tenant, key: .id(sessionId))
                }
                guard try params.optionalString("userId") != nil else {
                    throw RPCError.invalidParams("sessionId", "give sessionId, or userId and flow")
                }
                let userId = try params.userId()
                return try await self.get(
                    tenant: tenant, key: .user(userId: userId, flow: params.optionalString("flow") ?? "onboarding"))
            },
            .submit: answer { params in
                let command = FlowEngine.Submit(
                    stepId: try params.string("stepId"), revision: try params.int("revision"),
                    action: try params.optionalString("action") ?? "continue",
                    values: try params.optionalObject("values") ?? [:])
                return try await self.submit(
                    tenant: params.tenant(), sessionId: params.sessionId(), command: command)
            },
            .back: answer { params in
                try await self.back(
                    tenant: params.tenant(), sessionId: params.sessionId(),
                    revision: params.int("revision"))
            },
            .goto: answer { params in
                try await self.goto(
                    tenant: params.tenant(), sessionId: params.sessionId(),
                    stepId: params.string("stepId"), revision: params.int("revision"))
            },
            .search: answer { params in
                let limit = try params.integer(ParamBounds.searchLimit)
                return try await self.search(
                    tenant: params.tenant(), sessionId: params.sessionId(),
                    field: params.string("field"), query: params.string(ParamBounds.searchQuery), limit: limit)
            },
            .describe: answer { params in
                try self.describe(tenant: params.tenant(), flow: params.optionalString("flow") ?? "onboarding")
            },
            .profileGet: answer { params in
                try await self.profile(tenant: params.tenant(), userId: params.userId())
            },
            .profileUpdate: answer { params in
                guard let values = try params.optionalObject("values") else {
                    throw RPCError.invalidParams("values", "values is required")
                }
                return try await self.updateProfile(
                    tenant: params.tenant(), userId: params.userId(), values: values)
            },
            .funnel: answer { params in
                func date(_ name: String) throws -> Date? {
                    guard let text = try params.optionalString(name) else { return nil }
                    guard let date = Timestamp.date(text) else {
                        throw RPCError.invalidParams(name, "\(name) must be an ISO 8601 timestamp such as 2026-11-21T00:00:00Z")
                    }
                    return date
                }
                return try await self.funnel(
                    tenant: params.tenant(), flow: params.optionalString("flow") ?? "onboarding",
                    since: date("since"), until: date("until"), version: params.optionalString("version"))
            },
            .gateCheck: answer { params in
                try await self.checkGate(
                    tenant: params.tenant(), userId: params.userId(), action: params.string("action"), locale: params.locale())
            },
            .userExport: answer { params in try await self.exportUser(tenant: params.tenant(), userId: params.userId()) },
            .userErase: answer { params in try await self.eraseUser(tenant: params.tenant(), userId: params.userId()) },
            .eventsList: answer { params in
                let tenant = try params.tenant()
                var after: Int64 = 0
                if let cursor = try params.optionalString("after") {
                    guard let position = EventCursor.sequence(cursor) else {
                        throw RPCError.invalidParams("after", "after must be a cursor from an events.list reply's next")
                    }
                    after = position
                }
                let limit = try params.integer(ParamBounds.eventsLimit)
                return try await self.events(tenant: tenant, after: after, limit: limit)
            },
        ]
        return Dictionary(uniqueKeysWithValues: table.map { ($0.key.rawValue, $0.value) })
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

    /// A method whose platform call answers with a wire type or throws the domain's error.
    func answer<Result: Encodable & Sendable>(_ call: @escaping @Sendable (RPCParams) async throws -> Result) -> Answer {
        let result: @Sendable (RPCParams) async throws -> Result = { params in
            do {
                return try await call(params)
            } catch let error as FlowError {
                throw RPCError(error)
            }
        }
        return Answer(
            value: { params in try Self.value(of: try await result(params)) },
            rendering: { params in try Self.text(of: try await result(params)) },
            typed: { params in try await call(params) })
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
    public func rpcServer(credentials: Credentials?) -> RPCServer {
        let access = AccessControl(platform: self, credentials: credentials, logger: logger)
        var table = entries
        table[PlatformMethod.login.rawValue] = answer { params in try await access.login(params) }.entry
        table[PlatformMethod.userToken.rawValue] = answer { params in try await access.userToken(params) }.entry
        table[PlatformMethod.revokeToken.rawValue] = answer { params in try await access.revokeToken(params) }.entry
        return RPCServer(entries: table, access: access, logger: logger)
    }

    /// The method table with no access control, as every connection were admin (tests).
    public func rpcServer() -> RPCServer {
        RPCServer(entries: entries, logger: logger)
    }
}
