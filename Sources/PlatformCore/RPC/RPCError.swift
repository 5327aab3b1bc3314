/// A JSON-RPC error object, with the contract's codes.
public struct RPCError: Error, Sendable, Hashable {
    public var code: Int
    public var message: String
    public var data: JSONValue?
    /// Why, for the log only: never sent to the client.
    public var detail: String?

    public init(code: Int, message: String, data: JSONValue? = nil, detail: String? = nil) {
        self.code = code
        self.message = message
        self.data = data
        self.detail = detail
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = ["code": .int(Int64(code)), "message": .string(message)]
        if let data { object["data"] = data }
        return .object(object)
    }

    public static func parseError(_ detail: String? = nil) -> RPCError {
        RPCError(code: -32700, message: detail.map { "Parse error: \($0)" } ?? "Parse error")
    }
    public static let invalidRequest = RPCError(code: -32600, message: "Invalid Request")
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: -32601, message: "Method not found: \(method)")
    }
    public static func invalidParams(_ param: String, _ detail: String) -> RPCError {
        RPCError(code: -32602, message: "Invalid params: \(detail)", data: ["param": .string(param)])
    }
    public static func internalError(_ detail: String) -> RPCError {
        RPCError(code: -32603, message: "Internal error", detail: detail)
    }
    public static func notFound(_ what: String) -> RPCError {
        RPCError(code: -32002, message: "Not found: \(what)")
    }
    public static func conflict(_ detail: String, session: JSONValue) -> RPCError {
        RPCError(code: -32003, message: "Conflict: \(detail)", data: ["session": session])
    }
    public static func validationFailed(_ errors: [FieldError], session: JSONValue?) -> RPCError {
        var data: [String: JSONValue] = ["errors": .array(errors.map(\.json))]
        if let session { data["session"] = session }
        return RPCError(code: -32004, message: "Validation failed", data: .object(data))
    }
    public static func invalidState(_ detail: String, session: JSONValue) -> RPCError {
        RPCError(code: -32005, message: "Invalid state: \(detail)", data: ["session": session])
    }
    public static func payloadTooLarge(limit: Int) -> RPCError {
        RPCError(code: -32006, message: "Payload too large: a message may be at most \(limit) bytes")
    }
}
