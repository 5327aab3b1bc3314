import HTTPTypes
import Hummingbird
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage
import Synchronization

/// What `POST /rpc` answers. Built by the steps below, whichever path read the request:
/// `DirectRPCHandler` on the connection's pipeline, or Hummingbird's route (the in-process tests,
/// and a server that exports spans).
struct RPCHTTPReply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    static func json(_ status: HTTPResponse.Status, _ text: String) -> RPCHTTPReply {
        json(status, ByteBuffer(string: text))
    }

    static func json(_ status: HTTPResponse.Status, _ body: ByteBuffer) -> RPCHTTPReply {
        RPCHTTPReply(status: status, headers: [.contentType: "application/json"], body: body)
    }

    /// Every request was a notification: nothing to say.
    static let noContent = RPCHTTPReply(status: .noContent, headers: [:], body: ByteBuffer())

    var response: Response {
        Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}

/// What a request's bearer gave, checked before a byte of its body is read.
enum BearerCheck: Sendable {
    /// No `Authorization: Bearer`: the transport's default applies.
    case absent
    case loggedIn(ConnectionState.Login)
    /// A 401 to send as it is.
    case refused(RPCHTTPReply)

    var login: ConnectionState.Login? {
        if case .loggedIn(let login) = self { return login }
        return nil
    }
}

extension HTTPTransport {
    /// The refusal its head alone decides, before the bearer: a body that is not JSON, or one in a
    /// content coding (gzip, …) the server does not decode, which it would otherwise parse as it
    /// came and answer -32700 (RFC 9110 15.5.16: 415, with the codings it takes).
    func rpcRefusal(_ headers: HTTPFields) -> RPCHTTPReply? {
        guard Self.isJSON(headers.value(of: .contentType)) else {
            return .json(
                .unsupportedMediaType, RPCErrorBody.line(code: .invalidRequest, message: "Unsupported Media Type: send Content-Type: application/json"))
        }
        if let coding = headers.value(of: .contentEncoding), !Self.isIdentity(coding) {
            var reply = RPCHTTPReply.json(
                .unsupportedMediaType,
                RPCErrorBody.line(code: .invalidRequest, message: "Unsupported Media Type: the body must not be encoded (Content-Encoding: \(coding))"))
            reply.headers[.acceptEncoding] = "identity"
            return reply
        }
        return nil
    }

    /// `identity` (or nothing), as a Content-Encoding's list says it.
    static func isIdentity(_ coding: String) -> Bool {
        coding.split(separator: ",").allSatisfy { $0.trimmingCharacters(in: .whitespaces).lowercased() == "identity" }
    }

    /// A body past `--max-line-bytes` (said by its Content-Length, or found while it was read).
    var rpcTooLarge: RPCHTTPReply {
        .json(.contentTooLarge, ByteBuffer(bytes: RPCServer.tooLarge(limit: maxBodyBytes, transport: "http")))
    }

    /// Whether the head's Content-Length already says the body is too large.
    func rpcLengthExceedsLimit(_ headers: HTTPFields) -> Bool {
        headers.value(of: .contentLength).flatMap(Int.init).map { $0 > maxBodyBytes } ?? false
    }

    /// The bearer's login. A wrong one is refused here, so it costs the server no buffer for its
    /// body (and its reply cannot echo the request's id, which is in the body).
    func rpcBearer(_ headers: HTTPFields, channel: any Channel) async -> BearerCheck {
        guard let bearer = Self.bearer(headers) else { return .absent }
        switch await login(bearer, label: "http") {
        case .success(let login):
            connections.loggedIn(channel)
            return .loggedIn(login)
        case .failure(let error):
            PlatformMetrics.refused(transport: "http", outcome: .unauthorized)
            return .refused(Self.unauthorizedReply(error.message, id: .null))
        }
    }

    /// The reply to a whole body: parsed once (the login check, Accept-Language and the RPC
    /// server all read the one parse), run, rendered.
    func rpcAnswer(_ body: ByteBuffer, headers: HTTPFields, login: ConnectionState.Login?) async -> RPCHTTPReply {
        // An empty body is no request at all: said, as a body that is not JSON is (a reply, not
        // the 204 of a batch of notifications).
        if body.readableBytesView.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            return .json(.ok, RPCErrorBody.line(code: .parseError, message: "Parse error: the body is empty; send one JSON-RPC request or a batch"))
        }
        let label = "http"
        let parsed = Result { () throws(JSONParseError) in try JSONValue.parseMessage(body.readableBytesView) }
        let connection: ConnectionState
        if let login {
            connection = ConnectionState(login, label: label, transport: "http")
        } else if requireLogin {
            // Only what needs no login may go without a bearer (rpc.discover, auth.login).
            if case .success(let message) = parsed, let method = Self.methodsNeedingLogin(message.value).first {
                let known = server.methodNames.contains(method) ? method : PlatformMetrics.otherMethod
                PlatformMetrics.refused(transport: "http", method: known, outcome: .unauthorized)
                return Self.unauthorizedReply(
                    "\(method) needs a login: send Authorization: Bearer with a key's secret or a user token", id: Self.requestID(message.value))
            }
            connection = ConnectionState(nil, label: label, transport: "http")
        } else {
            connection = .trusted(label, transport: "http")
        }
        let reply: [UInt8]?
        switch parsed {
        case .failure(let error):
            reply = server.parseFailure(error, connection: connection)
        case .success(let message):
            let localized = headers.value(of: .acceptLanguage).map { Self.locale(from: $0, into: message.value, platform: platform) } ?? message.value
            reply = await server.replyBytes(to: localized, rawIDs: message.rawIDs, connection: connection)
        }
        guard let reply else { return .noContent }
        return .json(.ok, ByteBuffer(bytes: reply))
    }

    /// 401 with a -32001 reply; `message` as an RPCError words it, or a reason to put after "Unauthorized: ".
    static func unauthorizedReply(_ message: String, id: JSONValue) -> RPCHTTPReply {
        let worded = message.hasPrefix("Unauthorized") ? message : "Unauthorized: \(message)"
        var reply = RPCHTTPReply.json(.unauthorized, RPCErrorBody.line(code: .unauthorized, message: worded, id: id))
        reply.headers[.wwwAuthenticate] = "Bearer"
        return reply
    }
}

/// Tasks started outside any task group (a channel handler's requests), counted so a stop can
/// wait for the last of them.
final class TasksInFlight: Sendable {
    private let state = Mutex<(count: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

    func started() {
        state.withLock { $0.count += 1 }
    }

    func ended() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once none is running.
    func noneRunning() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let none = state.withLock { state -> Bool in
                guard state.count > 0 else { return true }
                state.waiters.append(waiter)
                return false
            }
            if none { waiter.resume() }
        }
    }
}

extension HTTPFields {
    /// The field's value as `self[name]` gives it (the values of several fields of the name
    /// joined by ", "; not for Cookie, joined by "; "), read in one pass. The subscript scans
    /// twice and joins through a generic lazy sequence even for one value: the five reads of a
    /// `POST /rpc` cost ~1.5 % of its CPU.
    func value(of name: HTTPField.Name) -> String? {
        var found: String?
        for field in self where field.name == name {
            found = found.map { $0 + ", " + field.value } ?? field.value
        }
        return found
    }

    /// Whether `Connection` lists the `close` option (RFC 9110 7.6.1: a comma-separated list of
    /// case-insensitive tokens), as NIO's parser reads it for the connection guard; not a value
    /// that merely contains the letters.
    var asksToClose: Bool {
        guard let connection = value(of: .connection) else { return false }
        return connection.split(separator: ",").contains { $0.trimmingWhitespace.lowercased() == "close" }
    }
}
