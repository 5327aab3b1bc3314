import PlatformCore
import PlatformStorage

/// A JSON-RPC error as the server answers it: the wire object plus a detail for the log.
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

    init(_ code: ErrorCode, _ reason: String? = nil, data: RPCErrorObject.Details? = nil, detail: String? = nil) {
        self.init(
            code: code.rawValue, message: reason.map { "\(code.title): \($0)" } ?? code.title,
            data: data.map { (try? JSONValue(encoding: $0)) ?? .null }, detail: detail)
    }

    /// The domain's refusal, in the contract's codes: the one place where the two meet.
    public init(_ error: FlowError) {
        switch error {
        case .notFound(let what): self.init(.notFound, what)
        case .unknownTenant(let tenant, let hosted): self.init(.notFound, "tenant \(tenant)", data: .init(tenants: hosted))
        case .conflict(let reason, let session): self.init(.conflict, reason, data: .init(session: session))
        case .validationFailed(let errors, let session): self.init(.validationFailed, data: .init(errors: errors, session: session))
        case .invalidState(let reason, let session): self.init(.invalidState, reason, data: .init(session: session))
        case .invalidArgument(let name, let reason): self = .invalidParams(name, reason)
        case .unavailable(let reason): self.init(.unavailable, "the store cannot take the request now; retry", detail: reason)
        case .unknownFlowVersion(let tenant, let flow, let version, let fingerprint):
            self.init(
                .unavailable, "the session runs on a version of its flow this host does not know yet; retry",
                detail: "\(tenant)/\(flow) version \(version) fingerprint \(fingerprint)")
        case .defect(let detail): self = .internalError(detail)
        }
    }

    /// The wire object.
    public var object: RPCErrorObject {
        RPCErrorObject(code: code, message: message, data: data)
    }

    /// `data.session`, decoded.
    public var session: SessionView? { object.details.session }
    /// `data.errors`, decoded.
    public var fieldErrors: [FieldError] { object.details.errors ?? [] }

    public static func parseError(_ detail: String? = nil) -> RPCError {
        RPCError(.parseError, detail)
    }
    public static let invalidRequest = RPCError(.invalidRequest)
    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(.methodNotFound, method)
    }
    public static func invalidParams(_ param: String, _ detail: String) -> RPCError {
        RPCError(.invalidParams, detail, data: .init(param: param))
    }
    public static func internalError(_ detail: String) -> RPCError {
        RPCError(.internalError, detail: detail)
    }
    public static func unauthorized(_ reason: String) -> RPCError {
        RPCError(.unauthorized, reason)
    }
    public static func rateLimited(retryAfterMs: Int) -> RPCError {
        RPCError(.rateLimited, "the tenant is over its request rate; retry later", data: .init(retryAfterMs: retryAfterMs))
    }
    public static func payloadTooLarge(limit: Int) -> RPCError {
        RPCError(.payloadTooLarge, "a message may be at most \(limit) bytes")
    }
}
