import Foundation
import Logging
import PlatformCore
import PlatformStorage

/// A Model Context Protocol server over one tenant's flow for one user: the methods an MCP host
/// calls (initialize, ping, tools, resources, prompts), as a method table for `RPCServer`, which
/// already speaks JSON-RPC 2.0 over lines (the MCP stdio framing). The tools call `Platform`
/// like any client, so the engine still decides every rule; this layer only fills in the
/// session's id, step and revision (read afresh before each command) and renders the results
/// for an assistant: `structuredContent` for programs, a text written for the person.
public actor MCPServer {
    /// Protocol versions this server speaks; the client's is answered when it is one of them.
    public static let supportedVersions = ["2025-11-25", "2025-06-18"]
    /// Answered to a client asking for a version not in `supportedVersions`.
    public static let fallbackVersion = "2025-06-18"

    public static let toolNames = ["onboarding_status", "onboarding_answer", "onboarding_back", "onboarding_edit", "onboarding_search"]
    public static let promptName = "guide_onboarding"

    let platform: Platform
    /// The locale a session this server starts asks for (`mcp --locale`, `Accept-Language`).
    let locale: String?
    /// The tenant's texts: the MCP text's own words are in the session's locale.
    let copy: CopyBook
    public let tenant: String
    public let userId: String
    public let flow: String
    let user: UserDetails?
    /// Checked before every tool call and resource read when the deployment requires logins: a
    /// reason when the login no longer holds (the token expired), else nil.
    let authorize: (@Sendable () async -> String?)?
    /// Takes one request from the tenant's rate limit, as a JSON-RPC request does: nil when
    /// taken, else the milliseconds until one is there. `initialize`, each tool call and each
    /// resource read count; MCP is a door like the others.
    let rateLimit: (@Sendable () -> Int?)?
    /// What the tools call methods through: the dispatcher every door uses (its principal rules,
    /// metrics, spans and log lines), as this user. The tool call has taken its one request from
    /// the rate limit already, so the methods it runs take none.
    let dispatcher: RPCServer
    let caller: ConnectionState
    let logger: Logger

    /// The version agreed at `initialize`.
    private(set) var protocolVersion: String?
    /// The answer tool's input schema as the client last listed it (nil until it lists the tools).
    var advertisedSchema: JSONValue?
    /// Whether `notifications/tools/list_changed` was sent since the client last listed them.
    var changeNotified = false
    /// Notifications to write before the current reply.
    var outbox: [JSONValue] = []

    public init(
        platform: Platform, tenant: String, userId: String, flow: String = "onboarding", user: UserDetails? = nil,
        locale: String? = nil, authorize: (@Sendable () async -> String?)? = nil,
        rateLimit: (@Sendable () -> Int?)? = nil, dispatcher: RPCServer? = nil, logger: Logger
    ) {
        self.rateLimit = rateLimit
        self.dispatcher = dispatcher ?? platform.rpcServer()
        let principal = Principal(kind: .user, tenant: tenant, userId: userId)
        self.caller = ConnectionState(.init(principal: principal), label: "mcp", transport: "mcp", countsRequests: false)
        self.locale = locale
        self.copy = platform.copy(for: tenant)
        self.platform = platform
        self.tenant = tenant
        self.userId = userId
        self.flow = flow
        self.user = user
        self.authorize = authorize
        self.logger = logger
    }

    /// The JSON-RPC server for a transport: the MCP methods, no platform access control (the
    /// process acts for its one user only, checked at start-up and by `authorize`).
    public nonisolated func rpcServer() -> RPCServer {
        RPCServer(methods: methods, logger: logger)
    }

    /// The method table. Notifications from the client (`notifications/initialized`,
    /// `notifications/cancelled`) are accepted and need nothing done: every request is answered
    /// before the next is read.
    public nonisolated var methods: [String: RPCServer.Method] {
        [
            "initialize": { params in
                try self.takeRate()
                return await self.initialize(params.object)
            },
            "notifications/initialized": { _ in .null },
            "notifications/cancelled": { _ in .null },
            "ping": { _ in [:] },
            "tools/list": { _ in try await self.listTools() },
            "tools/call": { params in try await self.callTool(params) },
            "resources/list": { _ in self.listResources() },
            "resources/templates/list": { _ in ["resourceTemplates": []] },
            "resources/read": { params in try await self.readResource(params) },
            "prompts/list": { _ in self.listPrompts() },
            "prompts/get": { params in try self.getPrompt(params) },
        ]
    }

    /// -32007 when the tenant is over its rate limit.
    nonisolated func takeRate() throws(RPCError) {
        if let wait = rateLimit?() { throw RPCError.rateLimited(retryAfterMs: wait) }
    }

    /// Notifications the request just handled queued, to send before its reply
    /// (`notifications/tools/list_changed` when the step, and so the answer tool's schema, changed).
    public func takeNotifications() -> [JSONValue] {
        defer { outbox = [] }
        return outbox
    }

    // MARK: - lifecycle

    func initialize(_ params: [String: JSONValue]) -> JSONValue {
        let requested = params["protocolVersion"]?.stringValue ?? Self.fallbackVersion
        let version = Self.supportedVersions.contains(requested) ? requested : Self.fallbackVersion
        protocolVersion = version
        let client = params["clientInfo"]?["name"]?.stringValue ?? "unknown"
        logger.info("MCP client initialised", metadata: ["client": "\(client)", "protocolVersion": "\(version)", "requested": "\(requested)"])
        return [
            "protocolVersion": .string(version),
            "capabilities": [
                "tools": ["listChanged": true],
                "resources": [:],
                "prompts": [:],
            ],
            "serverInfo": [
                "name": "platformd",
                "title": .string("\(tenant) onboarding"),
                "version": .string(Platform.version),
            ],
            "instructions": .string(Self.instructions(tenant: tenant)),
        ]
    }

    static func instructions(tenant: String) -> String {
        """
        These tools walk one person through the \(tenant) onboarding, one step at a time; the server \
        checks every answer. Start with onboarding_status. Ask the person each step's question in \
        your own words with its options, answer with onboarding_answer using only what they said, \
        and show any error message as it is written.
        """
    }

    // MARK: - tools

    func listTools() async throws -> JSONValue {
        let view = await storedView()
        let schema = AnswerSchema.inputSchema(for: view)
        advertisedSchema = schema
        changeNotified = false
        return ["tools": .array(Self.tools(answerSchema: schema, step: view?.step))]
    }

    static func tools(answerSchema: JSONValue, step: StepView?) -> [JSONValue] {
        let object: JSONValue = ["type": "object", "properties": [:]]
        let answerDescription =
            step.map { step in
                "Answer the current step, “\(step.title)” [\(step.id)], and move on. values maps its field ids to the person's answers."
            } ?? "Answer the current step and move on. values maps its field ids to the person's answers."
        return [
            [
                "name": "onboarding_status",
                "title": "Onboarding: where are we",
                "description":
                    "Starts the person's onboarding if it has not started, and shows the current step: its question, fields, options and buttons, or the completion message. Call it first.",
                "inputSchema": object,
                "annotations": ["readOnlyHint": false, "idempotentHint": true, "destructiveHint": false, "openWorldHint": false],
            ],
            [
                "name": "onboarding_answer",
                "title": "Onboarding: answer the step",
                "description": .string(
                    answerDescription
                        + " The server checks every answer: a refused one comes back with isError and the app's message for each field, and nothing is saved. Content steps take an empty values object. Use only values the person gave or chose; never invent them."
                ),
                "inputSchema": answerSchema,
                "annotations": ["readOnlyHint": false, "idempotentHint": false, "destructiveHint": false, "openWorldHint": false],
            ],
            [
                "name": "onboarding_back",
                "title": "Onboarding: go back",
                "description": "Goes back one step, with the answers given kept and shown.",
                "inputSchema": object,
                "annotations": ["readOnlyHint": false, "idempotentHint": false, "destructiveHint": false, "openWorldHint": false],
            ],
            [
                "name": "onboarding_edit",
                "title": "Onboarding: change an earlier answer",
                "description":
                    "Goes back to an earlier step on the path taken (the review's Edit), to change its answers; the person then walks forward again with their answers kept.",
                "inputSchema": [
                    "type": "object",
                    "properties": [
                        "stepId": ["type": "string", "description": "The id of a step already passed, as shown in [step …] or a review section's edit."]
                    ],
                    "required": ["stepId"],
                ],
                "annotations": ["readOnlyHint": false, "idempotentHint": false, "destructiveHint": false, "openWorldHint": false],
            ],
            [
                "name": "onboarding_search",
                "title": "Onboarding: look up options",
                "description":
                    "Finds options for a search field (a city, say) from what the person typed. Show them the labels, let them pick, then answer the field with the chosen result's value.",
                "inputSchema": [
                    "type": "object",
                    "properties": [
                        "field": ["type": "string", "description": "The search field's id, e.g. location."],
                        "query": ["type": "string", "maxLength": .int(Int64(ParamBounds.searchQuery.maxLength)), "description": "What the person typed."],
                        "limit": [
                            "type": "integer", "minimum": .int(Int64(ParamBounds.searchLimit.range.lowerBound)),
                            "maximum": .int(Int64(ParamBounds.searchLimit.range.upperBound)),
                            "description": .string("How many results (default \(ParamBounds.searchLimit.defaultValue))."),
                        ],
                    ],
                    "required": ["field", "query"],
                ],
                "annotations": ["readOnlyHint": true, "idempotentHint": true, "destructiveHint": false, "openWorldHint": false],
            ],
        ]
    }

    func callTool(_ params: RPCParams) async throws -> JSONValue {
        let name = try params.string("name")
        guard Self.toolNames.contains(name) else {
            throw RPCError.invalidParams("name", "Unknown tool: \(name) (tools: \(Self.toolNames.joined(separator: ", ")))")
        }
        let arguments = params.object["arguments"]?.objectValue ?? [:]
        if let authorize, let refusal = await authorize() {
            logger.info("tool refused", metadata: ["tool": "\(name)", "reason": "\(refusal)"])
            return Self.toolError("\(refusal). Nothing was done: the onboarding server needs a new login before it can carry on.")
        }
        if let wait = rateLimit?() {
            return Self.toolError(
                "Too many requests for \(tenant) right now. Nothing was done: wait \(wait) ms, then call the tool again.",
                code: ErrorCode.rateLimited.rawValue, message: "the tenant is over its request rate; retry in \(wait) ms")
        }
        let result: JSONValue
        var session: SessionView?
        do {
            (result, session) = try await run(name, arguments)
        } catch {
            result = await failure(error, tool: name)
        }
        await noteSchemaChange(session: session)
        return result
    }

    /// Runs `method` through the dispatcher as this user; the domain's refusal is thrown as it
    /// is (`failure` words it for the assistant), any other as the `RPCError` a client would get.
    func call<Answer: Sendable>(_ method: PlatformMethod, _ params: [String: JSONValue], as _: Answer.Type = Answer.self) async throws -> Answer {
        var params = params
        params["tenant"] = .string(tenant)
        switch await dispatcher.call(method, params, connection: caller, as: Answer.self) {
        case .success(let answer): return answer
        case .failure(let refusal):
            if let flowError = refusal.flowError { throw flowError }
            throw refusal.error
        }
    }

    /// The user's session as stored, read without a rate token (for the tools' schema); nil when none.
    func storedView() async -> SessionView? {
        try? await platform.get(tenant: tenant, key: .user(userId: userId, flow: flow))
    }

    /// Reads the user's session (`flow.get`, which finds it on the variant's flow an experiment
    /// gave them); not found when there is none.
    func readView() async throws -> SessionView {
        try await call(.get, ["userId": .string(userId), "flow": .string(flow)])
    }

    /// Reads the user's session; starts it when there is none yet.
    func currentView() async throws -> SessionView {
        do {
            return try await readView()
        } catch FlowError.notFound {
            var params: [String: JSONValue] = ["userId": .string(userId), "flow": .string(flow)]
            if let user { params["user"] = try JSONValue(encoding: user) }
            if let locale { params["locale"] = .string(locale) }
            return try await call(.start, params)
        }
    }

    /// A tool argument of the wrong shape: an error result the assistant can correct.
    struct ArgumentProblem: Error {
        var message: String
    }

    /// The tool's result, and the session as the tool left it (what the answer tool's schema
    /// follows).
    func run(_ name: String, _ arguments: [String: JSONValue]) async throws -> (JSONValue, SessionView) {
        switch name {
        case "onboarding_status":
            let view = try await currentView()
            logger.info("tool", metadata: ["tool": "\(name)", "step": "\(view.step?.id ?? view.status.rawValue)"])
            return (self.success(view), view)
        case "onboarding_answer":
            var values: [String: JSONValue] = [:]
            if let given = arguments["values"], !given.isNull {
                guard let object = given.objectValue else {
                    throw ArgumentProblem(
                        message: "values must be an object mapping the step's field ids to answers, e.g. {\"values\": {\"fieldId\": \"answer\"}}.")
                }
                values = object
            }
            var action = "continue"
            if let given = arguments["action"], !given.isNull {
                guard let text = given.stringValue else { throw ArgumentProblem(message: "action must be a string: continue, skip or later.") }
                action = text
            }
            let view = try await currentView()
            guard !view.status.isFinal, let step = view.step else {
                return (
                    Self.failureResult(
                        copy.text("There is nothing left to answer.", in: view.locale ?? copy.baseLanguage) + "\n\n" + OnboardingText.render(view, copy: copy),
                        code: ErrorCode.invalidState.rawValue, message: "the onboarding has ended", session: view), view
                )
            }
            let next: SessionView = try await call(
                .submit,
                [
                    "sessionId": .string(view.sessionId), "stepId": .string(step.id), "revision": .int(Int64(view.revision)),
                    "action": .string(action), "values": .object(values),
                ])
            logger.info("tool", metadata: ["tool": "\(name)", "step": "\(step.id)", "now": "\(next.step?.id ?? next.status.rawValue)"])
            return (self.success(next), next)
        case "onboarding_back":
            let view = try await currentView()
            let next: SessionView = try await call(.back, ["sessionId": .string(view.sessionId), "revision": .int(Int64(view.revision))])
            logger.info("tool", metadata: ["tool": "\(name)", "now": "\(next.step?.id ?? next.status.rawValue)"])
            return (self.success(next), next)
        case "onboarding_edit":
            guard let stepId = arguments["stepId"]?.stringValue else {
                throw ArgumentProblem(message: "stepId is required: the id of an earlier step on the path, e.g. {\"stepId\": \"season_goals\"}.")
            }
            let view = try await currentView()
            let next: SessionView = try await call(
                .goto,
                [
                    "sessionId": .string(view.sessionId), "stepId": .string(stepId), "revision": .int(Int64(view.revision)),
                ])
            logger.info("tool", metadata: ["tool": "\(name)", "now": "\(next.step?.id ?? next.status.rawValue)"])
            return (self.success(next), next)
        case "onboarding_search":
            guard let field = arguments["field"]?.stringValue, let query = arguments["query"]?.stringValue else {
                throw ArgumentProblem(message: "field and query are required strings, e.g. {\"field\": \"location\", \"query\": \"austin\"}.")
            }
            let queryBound = ParamBounds.searchQuery
            let limitBound = ParamBounds.searchLimit
            guard query.count <= queryBound.maxLength else { throw ArgumentProblem(message: "\(queryBound.tooLong).") }
            var limit = limitBound.defaultValue
            if let given = arguments["limit"], !given.isNull {
                guard let number = given.intValue, limitBound.range.contains(number) else {
                    throw ArgumentProblem(message: "limit must be a whole number from \(limitBound.range.lowerBound) to \(limitBound.range.upperBound).")
                }
                limit = number
            }
            let view = try await currentView()
            let results: SearchResults = try await call(
                .search,
                [
                    "sessionId": .string(view.sessionId), "field": .string(field), "query": .string(query), "limit": .int(Int64(limit)),
                ])
            logger.info("tool", metadata: ["tool": "\(name)", "field": "\(field)", "results": "\(results.results.count)"])
            let result: JSONValue = [
                "content": [["type": "text", "text": .string(OnboardingText(copy: copy, locale: view.locale).render(results, field: field, query: query))]],
                "structuredContent": try JSONValue(encoding: results),
                "isError": false,
            ]
            return (result, view)
        default:
            throw RPCError.invalidParams("name", "Unknown tool: \(name)")
        }
    }

    /// A refusal as a tool result: `isError`, a text that says what to do, and the session.
    func failure(_ error: any Error, tool: String) async -> JSONValue {
        if let problem = error as? ArgumentProblem {
            return Self.toolError(problem.message)
        }
        if let refused = error as? RPCError, refused.code != ErrorCode.internalError.rawValue {
            // Refused by the dispatcher before any method ran (a rule of the principal, a parameter).
            logger.info("tool refused", metadata: ["tool": "\(tool)", "code": "\(refused.code)"])
            return Self.toolError("\(refused.message). Nothing was done.", code: refused.code, message: refused.message)
        }
        guard let error = error as? FlowError else {
            logger.error("tool failed", metadata: ["tool": "\(tool)", "error": "\(error)"])
            return Self.toolError("Something went wrong in the onboarding server; nothing was saved. Try again.")
        }
        let wire = RPCError(error)
        logger.info("tool refused", metadata: ["tool": "\(tool)", "code": "\(wire.code)"])
        switch error {
        case .validationFailed(let errors, let session):
            let view: SessionView? = if let session { session } else { try? await currentView() }
            let fields = view?.step?.fields ?? []
            var text = OnboardingText(copy: copy, locale: view?.locale).render(errors: errors, fields: fields).joined(separator: "\n")
            if let view {
                text +=
                    "\n\n" + copy.text("The step, unchanged:", in: view.locale ?? copy.baseLanguage) + "\n"
                    + OnboardingText.render(view, showErrors: false, copy: copy)
            }
            var structured: [String: JSONValue] = [
                "code": .int(Int64(wire.code)), "message": .string(wire.message),
                "errors": (try? JSONValue(encoding: errors)) ?? [],
            ]
            if let view { structured["session"] = (try? JSONValue(encoding: view)) ?? .null }
            return ["content": [["type": "text", "text": .string(text)]], "structuredContent": .object(structured), "isError": true]
        case .conflict(_, let session):
            return Self.failureResult(
                "The onboarding moved on elsewhere (another device or app) before this was saved; nothing was saved. This is where it is now:\n\n"
                    + OnboardingText.render(session, copy: copy),
                code: wire.code, message: wire.message, session: session)
        case .invalidState(let reason, let session):
            return Self.failureResult(
                "\(Self.sentence(reason)) Nothing was changed.\n\n" + OnboardingText.render(session, copy: copy),
                code: wire.code, message: wire.message, session: session)
        case .notFound(let what):
            return Self.toolError("Not found: \(what).", code: wire.code, message: wire.message)
        case .unknownTenant(let tenant, let hosted):
            return Self.toolError(
                "Not found: tenant \(tenant) (hosted: \(hosted.joined(separator: ", "))).", code: wire.code, message: wire.message)
        case .invalidArgument(let name, let reason):
            return Self.toolError("\(Self.sentence(reason)) (argument \(name))", code: wire.code, message: wire.message)
        case .unavailable, .unknownFlowVersion:
            return Self.toolError("The onboarding store is busy right now; nothing was saved. Try again in a moment.", code: wire.code, message: wire.message)
        case .defect(let detail):
            logger.error("tool failed", metadata: ["tool": "\(tool)", "error": "\(detail)"])
            return Self.toolError("Something went wrong in the onboarding server; nothing was saved. Try again.", code: wire.code, message: wire.message)
        }
    }

    static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        let capitalised = first.uppercased() + text.dropFirst()
        return capitalised.hasSuffix(".") ? capitalised : capitalised + "."
    }

    func success(_ view: SessionView) -> JSONValue {
        [
            "content": [["type": "text", "text": .string(OnboardingText.render(view, copy: copy))]],
            "structuredContent": (try? JSONValue(encoding: view)) ?? [:],
            "isError": false,
        ]
    }

    static func failureResult(_ text: String, code: Int, message: String, session: SessionView) -> JSONValue {
        [
            "content": [["type": "text", "text": .string(text)]],
            "structuredContent": [
                "code": .int(Int64(code)), "message": .string(message), "errors": [],
                "session": (try? JSONValue(encoding: session)) ?? .null,
            ],
            "isError": true,
        ]
    }

    static func toolError(_ text: String, code: Int? = nil, message: String? = nil) -> JSONValue {
        var structured: [String: JSONValue] = ["errors": []]
        if let code { structured["code"] = .int(Int64(code)) }
        structured["message"] = .string(message ?? text)
        return ["content": [["type": "text", "text": .string(text)]], "structuredContent": .object(structured), "isError": true]
    }

    /// After a tool call: when the answer tool's schema is no longer the one the client listed
    /// (the step changed), queue `notifications/tools/list_changed`, once until it lists again.
    /// `session` is the session the tool left; after a refusal it is read again.
    func noteSchemaChange(session: SessionView?) async {
        guard let advertised = advertisedSchema, !changeNotified else { return }
        var view = session
        if view == nil { view = await storedView() }
        guard AnswerSchema.inputSchema(for: view) != advertised else { return }
        changeNotified = true
        outbox.append(["jsonrpc": "2.0", "method": "notifications/tools/list_changed"])
    }

    // MARK: - resources

    /// `platformd://TENANT/flow.mmd`.
    public nonisolated var flowURI: String { "platformd://\(Self.escaped(tenant))/flow.mmd" }
    /// `platformd://TENANT/USER/current-step`.
    public nonisolated var currentStepURI: String { "platformd://\(Self.escaped(tenant))/\(Self.escaped(userId))/current-step" }

    static func escaped(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? segment
    }

    nonisolated func listResources() -> JSONValue {
        [
            "resources": [
                [
                    "uri": .string(flowURI), "name": "flow.mmd", "title": .string("\(tenant) onboarding flow (Mermaid)"),
                    "description": "Every step of the flow and the branches between them, as a Mermaid flowchart.",
                    "mimeType": "text/vnd.mermaid",
                ],
                [
                    "uri": .string(currentStepURI), "name": "current-step", "title": .string("\(userId)'s current onboarding step"),
                    "description": "The person's session as it stands (a SessionView): the step to answer, or the completion.",
                    "mimeType": "application/json",
                ],
            ]
        ]
    }

    func readResource(_ params: RPCParams) async throws -> JSONValue {
        let uri = try params.string("uri")
        if let authorize, let refusal = await authorize() {
            throw RPCError(code: ErrorCode.unauthorized.rawValue, message: "Unauthorized: \(refusal)")
        }
        try takeRate()
        if uri == flowURI {
            let description: FlowDescription
            do {
                description = try await call(.describe, ["flow": .string(flow)])
            } catch let error as FlowError {
                throw RPCError(error)
            }
            return ["contents": [["uri": .string(uri), "mimeType": "text/vnd.mermaid", "text": .string(description.mermaid)]]]
        }
        if uri == currentStepURI {
            // Reading never writes: before the session starts, the resource says so.
            let body: JSONValue
            do {
                body = try JSONValue(encoding: try await readView())
            } catch FlowError.notFound {
                body = ["status": "not_started", "step": nil, "message": "Onboarding has not started: call onboarding_status."]
            } catch let error as FlowError {
                throw RPCError(error)
            }
            return ["contents": [["uri": .string(uri), "mimeType": "application/json", "text": .string(body.serialized())]]]
        }
        // MCP's code for an unknown resource.
        throw RPCError(code: -32002, message: "Resource not found", data: ["uri": .string(uri)])
    }

    // MARK: - prompts

    nonisolated func listPrompts() -> JSONValue {
        [
            "prompts": [
                [
                    "name": .string(Self.promptName),
                    "title": .string("Guide me through \(tenant) onboarding"),
                    "description":
                        "How to walk the person through the onboarding with the onboarding tools: one step at a time, their own answers only, errors shown as written.",
                    "arguments": [],
                ]
            ]
        ]
    }

    nonisolated func getPrompt(_ params: RPCParams) throws -> JSONValue {
        let name = try params.string("name")
        guard name == Self.promptName else {
            throw RPCError.invalidParams("name", "Unknown prompt: \(name) (prompts: \(Self.promptName))")
        }
        return [
            "description": .string("Guide the person through the \(tenant) onboarding"),
            "messages": [["role": "user", "content": ["type": "text", "text": .string(Self.guide(tenant: tenant))]]],
        ]
    }

    static func guide(tenant: String) -> String {
        """
        Please guide me through the \(tenant) onboarding, using the onboarding tools. The server decides \
        every rule; your part is the conversation.

        - Start by calling onboarding_status, and call it again whenever you are unsure where we are.
        - Ask about one step at a time. Say the step's title and copy in a friendly way, then ask for \
        each field, listing the options by their labels. Mention an option marked locked as not available yet.
        - Never invent, guess or fill in an answer I did not give. If I have not said something the step \
        needs, ask me. Content steps (no fields) need no answer: show their message and, once I am ready, \
        answer with an empty values object.
        - Answer with onboarding_answer, using the field ids and option values shown in [brackets].
        - For a search field (a city, say), call onboarding_search with what I typed, show me the results' \
        labels, and answer with the value of the one I pick.
        - If a tool result says isError, show me each message exactly as it is written (they are the app's \
        own words), and ask me again. Nothing was saved.
        - If I want to change something, use onboarding_back for the step before, or onboarding_edit with \
        the step's id (a review lists the step to edit for each section).
        - When the onboarding is complete, tell me the completion message as written.
        """
    }
}
