import Foundation
import PlatformProtocol

/// Every error `PlatformClient` throws. (Its methods are declared plain `throws`, not
/// `throws(PlatformClientError)`: Swift 6.3 compilers crash on some `catch` clauses over typed
/// throws, swiftlang/swift#90582 and #89838, and `catch let error as PlatformClientError` is one.)
///
/// Either the server answered with a JSON-RPC error (`kind == .server`: `code`, `message` and
/// `data` are the reply's, `fieldErrors` and `session` are read from `data`), or the call never got
/// an answer it could use (any other `kind`: the connection failed or closed, the reply was not
/// usable, the call timed out or was cancelled; `code` is 0 and `underlying` may hold the cause).
///
/// ```swift
/// do {
///     view = try await client.submit(view, values: ["sport": "basketball"])
/// } catch let error as PlatformClientError where error.errorCode == .validationFailed {
///     show(error.fieldErrors, on: error.session ?? view)
/// }
/// ```
public struct PlatformClientError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The server answered with an error object.
        case server
        /// The connection could not be opened.
        case connectionFailed
        /// The connection ended, or the client was closed, before the reply came; every later call
        /// fails the same way. Open a new client to go on.
        case connectionClosed
        /// A reply line that is not a JSON-RPC response, a result that is not of the method's
        /// type, or a line longer than the transport's limit.
        case invalidReply
        /// The params could not be encoded as JSON (a non-finite number, say); nothing was sent.
        case invalidRequest
        /// No reply within the configured `requestTimeout`. A reply that comes later is dropped.
        case timedOut
        /// The calling task was cancelled while waiting; a reply that comes later is dropped.
        case cancelled
    }

    public var kind: Kind
    /// The JSON-RPC error code for `.server` (see `ErrorCode`), 0 for every other kind.
    public var code: Int
    public var message: String
    /// The reply's `error.data`, as sent.
    public var data: JSONValue?
    /// `data.errors` of -32004: every field the server refused, with a message for the person.
    public var fieldErrors: [FieldError]
    /// `data.session` of -32003, -32004 and -32005: the session as it now stands.
    public var session: SessionView?
    /// What went wrong underneath, for the kinds other than `.server` (a socket error, a decoding error).
    public var underlying: (any Error)?

    /// `code` as one of the contract's codes, nil for an unknown code and for kinds other than `.server`.
    public var errorCode: ErrorCode? {
        kind == .server ? ErrorCode(rawValue: code) : nil
    }

    /// True for every kind but `.server`: the call got no answer from the server.
    public var isTransportFailure: Bool { kind != .server }

    /// `data.param` of -32602: the parameter at fault.
    public var param: String? { data?["param"]?.stringValue }

    /// `data.retryAfterMs` of -32007 and -32008.
    public var retryAfterMs: Int? { data?["retryAfterMs"]?.intValue }

    /// An error the server answered with. `errors` and `session` are read one by one, so a session
    /// this client cannot decode (a newer server's shape) still leaves the field errors readable.
    public init(_ error: RPCErrorObject) {
        kind = .server
        code = error.code
        message = error.message
        data = error.data
        fieldErrors = (try? error.data?["errors"]?.decode([FieldError].self)) ?? []
        session = try? error.data?["session"]?.decode(SessionView.self)
        underlying = nil
    }

    /// A failure on this side of the wire.
    public init(_ kind: Kind, _ message: String, underlying: (any Error)? = nil) {
        self.kind = kind
        code = 0
        self.message = message
        data = nil
        fieldErrors = []
        session = nil
        self.underlying = underlying
    }

    public var description: String {
        switch kind {
        case .server:
            var text = "\(code) \(message)"
            if !fieldErrors.isEmpty {
                text += " [" + fieldErrors.map { "\($0.field ?? "step"): \($0.code.rawValue): \($0.message)" }.joined(separator: "; ") + "]"
            }
            return text
        default:
            return underlying.map { "\(kind.rawValue): \(message) (\($0))" } ?? "\(kind.rawValue): \(message)"
        }
    }
}

extension PlatformClientError: LocalizedError {
    /// The first field error's message when there is one (written for the person), else `message`.
    public var errorDescription: String? {
        fieldErrors.first?.message ?? message
    }
}
