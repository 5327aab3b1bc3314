import Logging
import PlatformCore
import PlatformStorage
import Tracing

/// JSON-RPC 2.0 over lines: parses one line, runs its request (or batch) through the method
/// table, and returns the reply line. Transports only move bytes in and out of it.
public struct RPCServer: Sendable {
    public typealias Method = @Sendable (RPCParams) async throws -> JSONValue
    /// A method that answers with its result's JSON text, already written: the platform's flow
    /// methods write their `SessionView` straight to bytes (`JSONRenderable`), with no `JSONValue`
    /// built in between.
    public typealias RenderingMethod = @Sendable (RPCParams) async throws -> [UInt8]
    /// A method that answers with its result as the value it is (a `SessionView`, say), for
    /// callers in this process (the hosted pages): no JSON text in between.
    public typealias TypedMethod = @Sendable (RPCParams) async throws -> any Sendable

    /// One method of the table, both ways it can answer.
    public struct Entry: Sendable {
        public let rendering: RenderingMethod
        public let typed: TypedMethod

        public init(rendering: @escaping RenderingMethod, typed: @escaping TypedMethod) {
            self.rendering = rendering
            self.typed = typed
        }
    }

    /// The contract's limits on one message.
    public static let maxBatchItems = 100
    public static let maxReplyBytes = 16 << 20

    let methods: [String: Entry]
    let access: AccessControl?
    let logger: Logger
    /// -32008 comes to every request at once while the store is away: one line per 5 s says so.
    let unavailableLog = LogThrottle(interval: .seconds(5))

    public init(methods: [String: Method], access: AccessControl? = nil, logger: Logger) {
        self.init(
            entries: methods.mapValues { method in
                Entry(rendering: { params in try await method(params).serializedBytes() }, typed: { params in try await method(params) })
            },
            access: access, logger: logger)
    }

    public init(entries: [String: Entry], access: AccessControl? = nil, logger: Logger) {
        self.methods = entries
        self.access = access
        self.logger = logger
    }

    /// The reply line to one line, without its newline; nil when nothing is to be sent (a blank
    /// line, a notification, a batch of notifications). Each request's `id` is echoed exactly as
    /// it was written.
    public func replyBytes<Line: Collection>(
        to line: Line, connection: ConnectionState = .trusted("local")
    ) async -> [UInt8]? where Line.Element == UInt8 {
        guard line.contains(where: { !Self.isBlank($0) }) else { return nil }
        switch Result(catching: { () throws(JSONParseError) in try JSONValue.parseMessage(line) }) {
        case .success(let parsed):
            return await replyBytes(to: parsed.value, rawIDs: parsed.rawIDs, connection: connection)
        case .failure(let error):
            return parseFailure(error, connection: connection)
        }
    }

    /// The reply line to a line that did not parse (-32700), counted as every request is.
    public func parseFailure(_ error: JSONParseError, connection: ConnectionState) -> [UInt8] {
        PlatformMetrics.request(
            transport: connection.transport, method: PlatformMetrics.otherMethod,
            outcome: "\(ErrorCode.parseError.rawValue)", duration: .zero)
        return Self.errorResponse(.parseError(error.description), id: .null).line
    }

    /// The reply line to a message a transport has parsed already (`JSONValue.parseMessage`, the
    /// ids' source texts with it): HTTP reads the body once, for its login check, its
    /// `Accept-Language` and the request itself.
    public func replyBytes(to message: JSONValue, rawIDs: [Int: String], connection: ConnectionState) async -> [UInt8]? {
        guard case .array(let batch) = message else {
            return await handle(message, rawID: rawIDs[0], connection: connection)?.line
        }
        guard !batch.isEmpty else { return Self.errorResponse(.invalidRequest, id: .null).line }
        guard batch.count <= Self.maxBatchItems else {
            logger.info("refused a batch of \(batch.count) requests (at most \(Self.maxBatchItems))")
            return Self.errorResponse(
                RPCError(
                    code: ErrorCode.invalidRequest.rawValue,
                    message: "Invalid Request: a batch holds at most \(Self.maxBatchItems) requests"),
                id: .null
            ).line
        }
        var replies: [[UInt8]] = []
        var size = 2
        for (index, item) in batch.enumerated() {
            guard let reply = await handle(item, rawID: rawIDs[index], connection: connection) else { continue }
            // The whole batch's reply stays under the limit too: an item that would pass it is
            // answered with -32006 instead of its result.
            if size + reply.line.count + 1 > Self.maxReplyBytes {
                replies.append(Self.errorResponse(.replyTooLarge, id: reply.id, rawID: rawIDs[index]).line)
            } else {
                replies.append(reply.line)
            }
            size += replies[replies.count - 1].count + 1
        }
        guard !replies.isEmpty else { return nil }
        return [UInt8(ascii: "[")] + Array(replies.joined(separator: [UInt8(ascii: ",")])) + [UInt8(ascii: "]")]
    }

    /// The reply to one line as JSON (tests and in-process callers); ids as parsed.
    public func reply<Line: Collection>(
        to line: Line, connection: ConnectionState = .trusted("local")
    ) async -> JSONValue? where Line.Element == UInt8 {
        guard let bytes = await replyBytes(to: line, connection: connection) else { return nil }
        return try? JSONValue.parse(bytes)
    }

    /// The reply to an over-long line that was skipped.
    public static func tooLarge(limit: Int, transport: String = "local") -> [UInt8] {
        PlatformMetrics.request(
            transport: transport, method: PlatformMetrics.otherMethod,
            outcome: "\(ErrorCode.payloadTooLarge.rawValue)", duration: .zero)
        return errorResponse(.payloadTooLarge(limit: limit), id: .null).line
    }

    /// The login a bearer secret gives (HTTP's `Authorization: Bearer`), or the -32001 refusal.
    /// A server without access control treats every request as admin's.
    public func login(bearer: String, connection: ConnectionState) async -> Result<ConnectionState.Login, RPCError> {
        guard let access else { return .success(.init(principal: .admin)) }
        do {
            return .success(try await access.login(bearer: bearer, connection: connection))
        } catch {
            return .failure(error)
        }
    }

    /// Takes one request from `tenant`'s rate limit for a door that runs no JSON-RPC method of
    /// this table (MCP's tools, a page): nil when taken, else the milliseconds until one is there.
    /// A server without access control has no limits.
    public func takeRate(tenant: String) -> Int? {
        guard let access, let wait = access.limiter.take(tenant) else { return nil }
        access.logger.info("refused: tenant over its rate limit", metadata: ["tenant": "\(tenant)", "door": "mcp"])
        return wait
    }

    /// Whether a method may be called with no login (`auth.login`, `rpc.discover`).
    public static func needsNoLogin(_ method: String) -> Bool {
        AccessControl.open.contains(method)
    }

    /// The methods of the table, for the metrics' labels.
    public var methodNames: [String] { methods.keys.sorted() }

    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// One rendered reply.
    struct Reply {
        var id: JSONValue
        var line: [UInt8]
    }

    func handle(_ message: JSONValue, rawID: String?, connection: ConnectionState) async -> Reply? {
        guard let request = message.objectValue,
            request["jsonrpc"] == "2.0",
            let method = request["method"]?.stringValue,
            Self.isValidID(request["id"]),
            request["params"].map({ $0.objectValue != nil || $0.arrayValue != nil }) ?? true
        else {
            PlatformMetrics.request(
                transport: connection.transport, method: PlatformMetrics.otherMethod,
                outcome: "\(ErrorCode.invalidRequest.rawValue)", duration: .zero)
            return Self.errorResponse(.invalidRequest, id: .null)
        }
        let id = request["id"]
        // An empty positional list is "no parameters", as some client libraries send it.
        let given = request["params"] == [] ? nil : request["params"]
        let outcome = await dispatch(method, params: given.map { $0.objectValue } ?? [:], connection: connection) { entry, params in
            let result = try await entry.rendering(params)
            guard let id else { return [UInt8]() }
            let line = Self.resultLine(result, id: id, rawID: rawID)
            guard line.count <= Self.maxReplyBytes else {
                logger.warning("\(method): the reply would be \(line.count) bytes, over the \(Self.maxReplyBytes)-byte limit")
                throw RPCError.replyTooLarge
            }
            return line
        }
        guard let id else { return nil }
        switch outcome {
        case .failure(let refusal): return Self.errorResponse(refusal.error, id: id, rawID: rawID)
        case .success(let line): return Reply(id: id, line: line)
        }
    }

    /// Calls `method` in process as a request on `connection` is run (the same login and
    /// principal rules, rate limit, metrics, span and log lines as a JSON-RPC request) and
    /// answers with the method's own result value, `Result` (a `SessionView`, say): no JSON text
    /// is written or parsed on the way. What the hosted pages call methods through.
    public func call<Answer: Sendable>(
        _ method: PlatformMethod, _ params: [String: JSONValue], connection: ConnectionState, as _: Answer.Type = Answer.self
    ) async -> Result<Answer, Refusal> {
        await dispatch(method.rawValue, params: params, connection: connection) { entry, params in
            let value = try await entry.typed(params)
            if let result = value as? Answer { return result }
            // A table built from `JSONValue` methods (tests) answers with JSON: decoded then.
            if let json = value as? JSONValue, let decodable = Answer.self as? any Decodable.Type,
                let decoded = try? json.decode(decodable) as? Answer
            {
                return decoded
            }
            throw RPCError.internalError("\(method.rawValue) answered \(type(of: value)), not \(Answer.self)")
        }
    }

    /// The one path every request takes, whatever door it came through: the method looked up,
    /// the principal admitted (login, tenant, rate limit), the method run, its outcome counted
    /// (`platformd_requests_total`), traced and logged. `params` nil: not an object (-32602).
    func dispatch<Output: Sendable>(
        _ method: String, params: [String: JSONValue]?, connection: ConnectionState,
        _ invoke: (Entry, RPCParams) async throws -> Output
    ) async -> Swift.Result<Output, Refusal> {
        // The label is the method's name only when the table has it: what a client sends never
        // becomes a label of its own.
        let label = methods[method] == nil ? PlatformMetrics.otherMethod : method
        let started = ContinuousClock.now
        let outcome: Swift.Result<Output, Refusal>
        if RequestTracing.isEnabled {
            outcome = await withSpan(label, ofKind: .server) { span in
                let outcome = await run(method, params: params, connection: connection, invoke)
                if case .failure(let refusal) = outcome {
                    span.setStatus(SpanStatus(code: .error, message: "\(refusal.error.code)"))
                }
                return outcome
            }
        } else {
            outcome = await run(method, params: params, connection: connection, invoke)
        }
        let code: String
        switch outcome {
        case .success: code = "ok"
        case .failure(let refusal): code = "\(refusal.error.code)"
        }
        PlatformMetrics.request(transport: connection.transport, method: label, outcome: code, duration: .now - started)
        return outcome
    }

    /// Runs one valid request: the method's output, or the error it answers (logged here).
    private func run<Output: Sendable>(
        _ method: String, params: [String: JSONValue]?, connection: ConnectionState,
        _ invoke: (Entry, RPCParams) async throws -> Output
    ) async -> Swift.Result<Output, Refusal> {
        var flowError: FlowError?
        do {
            guard let entry = methods[method] else { throw RPCError.methodNotFound(method) }
            guard let params else {
                throw RPCError.invalidParams("params", "params must be an object of named parameters")
            }
            try await access?.admit(method, params, connection: connection)
            do {
                return .success(try await invoke(entry, RPCParams(params, connection: connection)))
            } catch let error as FlowError {
                // A typed method throws the domain's refusal as it is: kept for in-process callers.
                flowError = error
                throw RPCError(error)
            }
        } catch let error as RPCError {
            if let detail = error.detail {
                if error.code == ErrorCode.internalError.rawValue {
                    logger.error("\(method) failed: \(detail)")
                } else if error.code == ErrorCode.unavailable.rawValue {
                    if let held = unavailableLog.admit() {
                        let since = held > 0 ? " (and \(held) more requests answered -32008 since the last line)" : ""
                        logger.warning("\(method): \(detail)\(since)")
                    }
                } else {
                    logger.warning("\(method): \(detail)")
                }
            }
            return .failure(Refusal(error: error, flowError: flowError))
        } catch {
            logger.error("\(method) failed: \(error)")
            return .failure(Refusal(error: .internalError("\(error)")))
        }
    }

    /// Why a dispatched call was not answered: the error object a client gets, and the domain's
    /// refusal it came from when there was one (in-process callers word their own answers from it).
    public struct Refusal: Error, Sendable {
        public let error: RPCError
        public let flowError: FlowError?

        public init(error: RPCError, flowError: FlowError? = nil) {
            self.error = error
            self.flowError = flowError
        }
    }

    static func isValidID(_ id: JSONValue?) -> Bool {
        switch id {
        // Any number: its source text is echoed, so even one beyond Double's range comes back as sent.
        case nil, .null?, .string?, .int?, .double?: true
        default: false
        }
    }

    static func errorResponse(_ error: RPCError, id: JSONValue, rawID: String? = nil) -> Reply {
        Reply(id: id, line: render(RPCResponse(id: id, outcome: .error(error.object)), rawID: id.isNull ? nil : rawID))
    }

    /// A result's reply line, as `RPCResponse.serializedBytes(rawID:)` writes it (keys sorted:
    /// id, jsonrpc, result), around the result's text written once into one buffer.
    static func resultLine(_ result: [UInt8], id: JSONValue, rawID: String?) -> [UInt8] {
        let idBytes = rawID.map { Array($0.utf8) } ?? id.serializedBytes()
        let head = #"{"id":"#.utf8
        let middle = #","jsonrpc":"2.0","result":"#.utf8
        var line: [UInt8] = []
        line.reserveCapacity(head.count + idBytes.count + middle.count + result.count + 1)
        line.append(contentsOf: head)
        line.append(contentsOf: idBytes)
        line.append(contentsOf: middle)
        line.append(contentsOf: result)
        line.append(UInt8(ascii: "}"))
        return line
    }

    /// The reply's bytes, with the id's source text put back in place of its parsed value.
    static func render(_ response: RPCResponse, rawID: String?) -> [UInt8] {
        response.serializedBytes(rawID: rawID)
    }
}

extension RPCError {
    /// A reply that would pass the 16 MiB limit.
    static let replyTooLarge = RPCError(
        code: ErrorCode.payloadTooLarge.rawValue,
        message: "Payload too large: the reply would be over \(RPCServer.maxReplyBytes) bytes")
}
