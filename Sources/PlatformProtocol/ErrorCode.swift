/// The contract's JSON-RPC error codes.
public enum ErrorCode: Int, Sendable, Hashable, Codable, CaseIterable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    case unauthorized = -32001
    case notFound = -32002
    case conflict = -32003
    case validationFailed = -32004
    case invalidState = -32005
    case payloadTooLarge = -32006
    case rateLimited = -32007
    case unavailable = -32008

    /// The error's `message` prefix, and its summary in `rpc.discover`.
    public var title: String {
        switch self {
        case .parseError: "Parse error"
        case .invalidRequest: "Invalid Request"
        case .methodNotFound: "Method not found"
        case .invalidParams: "Invalid params"
        case .internalError: "Internal error"
        case .unauthorized: "Unauthorized"
        case .notFound: "Not found"
        case .conflict: "Conflict"
        case .validationFailed: "Validation failed"
        case .invalidState: "Invalid state"
        case .payloadTooLarge: "Payload too large"
        case .rateLimited: "Rate limited"
        case .unavailable: "Unavailable"
        }
    }

    /// What a client should make of it, for `rpc.discover` and the docs.
    public var meaning: String {
        switch self {
        case .parseError: "Not JSON, or invalid UTF-8; id is null."
        case .invalidRequest: "Valid JSON that is not a JSON-RPC 2.0 request (or a batch over 100 items); id is null."
        case .methodNotFound: "No such method."
        case .invalidParams: "A missing, mistyped or over-long parameter; data.param names it."
        case .internalError: "A bug in the server; the detail is on its stderr, none in the reply."
        case .unauthorized: "No login, a wrong, revoked or expired secret, or a principal that may not do this."
        case .notFound: "Tenant, flow, session, user or profile not found (another tenant's or user's session included)."
        case .conflict: "Stale revision or stepId; data.session is the current session."
        case .validationFailed: "Nothing saved; data.errors lists every invalid field, data.session the unchanged session."
        case .invalidState: "The session cannot take this command now; data.session is the current session."
        case .payloadTooLarge: "A line over the limit, or a reply that would be over 16 MiB."
        case .rateLimited: "The tenant's request rate is over its limit; nothing was done; retry after data.retryAfterMs."
        case .unavailable: "The store cannot take the write now (disk full, locked, unreachable); nothing saved; retry."
        }
    }
}

/// The `error` member of a JSON-RPC reply.
public struct RPCErrorObject: Sendable, Hashable, Codable {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The contract's `data` of -32003, -32004 and -32005 (and of -32602, -32007).
    public struct Details: Sendable, Hashable, Codable {
        public var param: String?
        public var errors: [FieldError]?
        public var session: SessionView?
        public var retryAfterMs: Int?
        /// With -32002 for a tenant that is not hosted: the ids that are.
        public var tenants: [String]?

        public init(
            param: String? = nil, errors: [FieldError]? = nil, session: SessionView? = nil, retryAfterMs: Int? = nil,
            tenants: [String]? = nil
        ) {
            self.param = param
            self.errors = errors
            self.session = session
            self.retryAfterMs = retryAfterMs
            self.tenants = tenants
        }
    }

    /// `data` read as the contract's shapes; nil members when absent or of another shape.
    public var details: Details {
        (try? data?.decode(Details.self)) ?? Details()
    }
}

/// A JSON-RPC 2.0 request as a client sends it.
public struct RPCRequest: Sendable, Hashable, Codable {
    public var jsonrpc = "2.0"
    /// Absent for a notification.
    public var id: JSONValue?
    public var method: String
    public var params: JSONValue?

    public init(id: JSONValue?, method: String, params: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }
}

/// A JSON-RPC 2.0 reply: exactly one of `result` and `error`.
public struct RPCResponse: Sendable, Hashable, Codable {
    public var jsonrpc = "2.0"
    /// Null when the request could not be read far enough to know its id.
    public var id: JSONValue
    public var outcome: Outcome

    public enum Outcome: Sendable, Hashable {
        case result(JSONValue)
        case error(RPCErrorObject)
    }

    public init(id: JSONValue, outcome: Outcome) {
        self.id = id
        self.outcome = outcome
    }

    enum CodingKeys: String, CodingKey { case jsonrpc, id, result, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(JSONValue.self, forKey: .id) ?? .null
        if let error = try container.decodeIfPresent(RPCErrorObject.self, forKey: .error) {
            outcome = .error(error)
        } else {
            outcome = .result(try container.decodeIfPresent(JSONValue.self, forKey: .result) ?? .null)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        switch outcome {
        case .result(let result): try container.encode(result, forKey: .result)
        case .error(let error): try container.encode(error, forKey: .error)
        }
    }
}

extension RPCResponse {
    /// The reply line (keys sorted, no newline). `rawID`, when given, is written as the id instead
    /// of the parsed value: the request's own text, so the id is echoed exactly as sent.
    public func serializedBytes(rawID: String? = nil) -> [UInt8] {
        // Keys in sorted order, as every other object the server writes: error, id, jsonrpc, result.
        let id = rawID.map { Array($0.utf8) } ?? self.id.serializedBytes()
        switch outcome {
        case .result(let result):
            return Array(#"{"id":"#.utf8) + id + Array(#","jsonrpc":"2.0","result":"#.utf8) + result.serializedBytes() + [UInt8(ascii: "}")]
        case .error(let error):
            let object = ((try? JSONValue(encoding: error)) ?? .null).serializedBytes()
            return Array(#"{"error":"#.utf8) + object + Array(#","id":"#.utf8) + id + Array(#","jsonrpc":"2.0"}"#.utf8)
        }
    }
}
