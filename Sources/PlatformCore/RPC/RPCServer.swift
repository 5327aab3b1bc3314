import Logging

/// JSON-RPC 2.0 over lines: parses one line, runs its request (or batch) through the method
/// table, and returns the reply line. Transports only move bytes in and out of it.
public struct RPCServer: Sendable {
    public typealias Method = @Sendable (RPCParams) async throws -> JSONValue

    let methods: [String: Method]
    let access: AccessControl?
    let logger: Logger

    public init(methods: [String: Method], access: AccessControl? = nil, logger: Logger) {
        self.methods = methods
        self.access = access
        self.logger = logger
    }

    /// The reply to one line, without its newline; nil when nothing is to be sent
    /// (a blank line, a notification, a batch of notifications).
    public func reply<Line: Collection>(
        to line: Line, connection: ConnectionState = .trusted("local")
    ) async -> JSONValue? where Line.Element == UInt8 {
        guard line.contains(where: { !Self.isBlank($0) }) else { return nil }
        let message: JSONValue
        do {
            message = try JSONValue.parse(line)
        } catch {
            return Self.errorResponse(.parseError(error.description), id: .null)
        }
        guard case .array(let batch) = message else { return await handle(message, connection: connection) }
        guard !batch.isEmpty else { return Self.errorResponse(.invalidRequest, id: .null) }
        var replies: [JSONValue] = []
        for item in batch {
            if let reply = await handle(item, connection: connection) { replies.append(reply) }
        }
        guard !replies.isEmpty else { return Optional.none }
        return .array(replies)
    }

    /// The reply to an over-long line that was skipped.
    public static func tooLarge(limit: Int) -> JSONValue {
        errorResponse(.payloadTooLarge(limit: limit), id: .null)
    }

    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    func handle(_ message: JSONValue, connection: ConnectionState) async -> JSONValue? {
        guard let request = message.objectValue,
              request["jsonrpc"] == "2.0",
              let method = request["method"]?.stringValue,
              Self.isValidID(request["id"]),
              request["params"].map({ $0.objectValue != nil || $0.arrayValue != nil }) ?? true
        else {
            return Self.errorResponse(.invalidRequest, id: .null)
        }
        let id = request["id"]
        let result: JSONValue
        do {
            guard let handler = methods[method] else { throw RPCError.methodNotFound(method) }
            // An empty positional list is "no parameters", as some client libraries send it.
            let given = request["params"] == [] ? nil : request["params"]
            guard let params = given.map({ $0.objectValue }) ?? [:] else {
                throw RPCError.invalidParams("params", "params must be an object of named parameters")
            }
            try await access?.admit(method, params, connection: connection)
            result = try await handler(RPCParams(params, connection: connection))
        } catch let error as RPCError {
            if let detail = error.detail { logger.error("\(method) failed: \(detail)") }
            return id.map { Self.errorResponse(error, id: $0) }
        } catch {
            logger.error("\(method) failed: \(error)")
            return id.map { Self.errorResponse(.internalError("\(error)"), id: $0) }
        }
        guard let id else { return nil }
        return Self.render(RPCResponse(id: id, outcome: .result(result)))
    }

    static func isValidID(_ id: JSONValue?) -> Bool {
        switch id {
        case nil, .null?, .string?, .int?: true
        case .double(let number)?: number.isFinite
        default: false
        }
    }

    static func errorResponse(_ error: RPCError, id: JSONValue) -> JSONValue {
        render(RPCResponse(id: id, outcome: .error(error.object)))
    }

    static func render(_ response: RPCResponse) -> JSONValue {
        do {
            return try JSONValue(encoding: response)
        } catch {
            // Only a non-finite number could fail to encode, and the JSON values here have none.
            return ["jsonrpc": "2.0", "id": .null, "error": ["code": -32603, "message": "Internal error"]]
        }
    }
}
