import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage
import Synchronization

/// `POST /mcp`: the MCP server over Streamable HTTP (JSON responses, no server-sent stream),
/// for assistants hosted elsewhere. Each request's bearer must be a user token; the tools act
/// for its tenant and user. `initialize` opens an MCP session (`Mcp-Session-Id`), bound to that
/// tenant and user, that later requests name; its state (the agreed protocol version, the
/// answer tool's schema the client last listed) lives here, one `MCPServer` per session.
package final class MCPHTTPSessions: Sendable {
    let platform: Platform
    let server: RPCServer
    let maxBodyBytes: Int
    /// The origins a browser page may call from (`--allowed-origin`), besides the listener's own.
    let allowedOrigins: Set<String>
    let connections: HTTPConnectionTable?
    let logger: Logger

    /// Sessions idle this long are forgotten (a request naming one then gets 404, and the client
    /// initializes again, as the protocol says).
    static let idleLimit: TimeInterval = 3600
    /// Sessions one person may hold: a new one past it closes that person's oldest.
    static let perUser = 16
    /// Sessions one tenant's people may hold together: past it a new one is refused (429) until
    /// some end or go idle, so one tenant's people never close another's sessions, nor one
    /// person another's.
    static let perTenant = 2_000

    struct Session {
        let tenant: String
        let userId: String
        let mcp: MCPServer
        let rpc: RPCServer
        var lastUsed: Date
    }

    private let sessions = Mutex<[String: Session]>([:])
    /// The listener's own origins, known once it is bound (its port may have been 0).
    private let listenerOrigins = Mutex<Set<String>>([])

    /// The listener is bound: pages it serves itself may call.
    func listening(host: String, port: Int) {
        var hosts = [host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host]
        if LoopbackHost.contains(host) { hosts += ["localhost", "127.0.0.1", "[::1]"] }
        listenerOrigins.withLock { origins in
            for name in hosts { origins.insert(Self.origin("http://\(name):\(port)")) }
        }
    }

    package init(
        platform: Platform, server: RPCServer, maxBodyBytes: Int, allowedOrigins: Set<String> = [],
        connections: HTTPConnectionTable? = nil, logger: Logger
    ) {
        self.platform = platform
        self.server = server
        self.maxBodyBytes = maxBodyBytes
        self.allowedOrigins = Set(allowedOrigins.map { $0.lowercased() })
        self.connections = connections
        self.logger = logger
    }

    static let sessionHeader = HTTPField.Name("Mcp-Session-Id")!
    static let versionHeader = HTTPField.Name("MCP-Protocol-Version")!

    func post(_ request: Request, channel: (any Channel)? = nil) async throws -> Response {
        if let refusal = crossOrigin(request) { return refusal }
        guard HTTPTransport.isJSON(request.headers[.contentType]) else {
            return HTTPTransport.json(
                .unsupportedMediaType, RPCErrorBody.line(code: .invalidRequest, message: "Unsupported Media Type: send Content-Type: application/json"))
        }
        // The bearer before the body: nothing is read, nor held, for a client that cannot log in.
        guard let bearer = HTTPTransport.bearer(request.headers) else {
            PlatformMetrics.refused(transport: "mcp", outcome: .unauthorized)
            return HTTPTransport.unauthorized("the MCP endpoint needs Authorization: Bearer with a user token (auth.userToken)", id: .null)
        }
        let login: ConnectionState.Login
        switch await server.login(bearer: bearer, connection: ConnectionState(nil, label: "mcp", transport: "mcp")) {
        case .failure(let error):
            PlatformMetrics.refused(transport: "mcp", outcome: .unauthorized)
            return HTTPTransport.unauthorized(error.message, id: .null)
        case .success(let given): login = given
        }
        guard login.principal.kind == .user, let tenant = login.principal.tenant, let userId = login.principal.userId else {
            PlatformMetrics.refused(transport: "mcp", outcome: .unauthorized)
            return HTTPTransport.unauthorized("the MCP endpoint acts for one user: the bearer must be a user token, not a key", id: .null)
        }
        if let channel { connections?.loggedIn(channel) }
        guard let body = try await HTTPTransport.collect(request, upTo: maxBodyBytes) else {
            return HTTPTransport.json(.contentTooLarge, String(decoding: RPCServer.tooLarge(limit: maxBodyBytes, transport: "mcp"), as: UTF8.self))
        }
        let id = HTTPTransport.requestID(body)
        if let version = request.headers[Self.versionHeader], !MCPServer.supportedVersions.contains(version) {
            return HTTPTransport.json(
                .badRequest,
                RPCErrorBody.line(
                    code: .invalidRequest,
                    message: "Unsupported MCP-Protocol-Version \(version) (supported: \(MCPServer.supportedVersions.joined(separator: ", ")))", id: id))
        }

        if Self.isInitialize(body) {
            let flow = request.uri.queryParameters["flow"].map(String.init) ?? "onboarding"
            do {
                _ = try platform.describe(tenant: tenant, flow: flow)
            } catch {
                return HTTPTransport.json(.notFound, RPCErrorBody.line(code: .notFound, message: RPCError(error).message, id: id))
            }
            let sessionID = Platform.randomID()
            // A session the assistant starts is in the language the client's requests ask for.
            let locale = request.headers[.acceptLanguage].flatMap { platform.copy(for: tenant).preferred(LocaleTag.accepted($0)) }
            let server = server
            let mcp = MCPServer(
                platform: platform, tenant: tenant, userId: userId, flow: flow, locale: locale,
                rateLimit: { server.takeRate(tenant: tenant) }, dispatcher: server, logger: logger)
            let session = Session(tenant: tenant, userId: userId, mcp: mcp, rpc: mcp.rpcServer(), lastUsed: Date())
            // initialize takes from the rate limit itself (as on stdio); refused, no session is kept.
            let reply = await session.rpc.replyBytes(to: body.readableBytesView, connection: .trusted("mcp", transport: "mcp"))
            if let reply, let refusal = try? JSONValue.parse(reply)["error"], refusal["code"] == .int(Int64(ErrorCode.rateLimited.rawValue)) {
                return Self.rateLimited(String(decoding: reply, as: UTF8.self), wait: refusal["data"]?["retryAfterMs"]?.intValue ?? 1000)
            }
            guard open(session, id: sessionID) else {
                return Self.rateLimited(
                    RPCErrorBody.line(
                        code: .rateLimited, message: "Too many MCP sessions for this tenant (\(Self.perTenant)): end one, or retry once idle ones expire",
                        id: id), wait: 60_000)
            }
            logger.info("MCP session opened over HTTP", metadata: ["tenant": "\(tenant)", "user": "\(userId)", "flow": "\(flow)"])
            return await respond(reply, session: session, opened: sessionID)
        } else {
            guard let named = request.headers[Self.sessionHeader] else {
                return HTTPTransport.json(
                    .badRequest,
                    RPCErrorBody.line(
                        code: .invalidRequest, message: "Bad Request: send initialize first, then the Mcp-Session-Id it answered with", id: id))
            }
            // Another user's session is not found, as if it did not exist.
            guard let found = use(named), IDBytes.equal(found.tenant, tenant), IDBytes.equal(found.userId, userId) else {
                return HTTPTransport.json(
                    .notFound,
                    RPCErrorBody.line(
                        code: .notFound, message: "Not found: no MCP session \(named) for this user (it ended or expired): initialize again", id: id))
            }
            let reply = await found.rpc.replyBytes(to: body.readableBytesView, connection: .trusted("mcp", transport: "mcp"))
            return await respond(reply, session: found, opened: nil)
        }
    }

    /// The HTTP answer to one MCP message's reply (none for a notification).
    func respond(_ reply: [UInt8]?, session: Session, opened: String?) async -> Response {
        // A JSON response carries one message: notifications the request queued (the answer
        // tool's schema changed) have no way to the client here; it lists the tools again.
        _ = await session.mcp.takeNotifications()
        var response: Response
        if let reply {
            response = HTTPTransport.json(.ok, ByteBuffer(bytes: reply))
        } else {
            response = Response(status: .accepted)
        }
        if let opened { response.headers[Self.sessionHeader] = opened }
        return response
    }

    /// `DELETE /mcp`: the client ends its session.
    func delete(_ request: Request) async -> Response {
        guard let bearer = HTTPTransport.bearer(request.headers),
            case .success(let login) = await server.login(bearer: bearer, connection: ConnectionState(nil, label: "mcp", transport: "mcp")),
            login.principal.kind == .user
        else {
            PlatformMetrics.refused(transport: "mcp", outcome: .unauthorized)
            return HTTPTransport.unauthorized("the MCP endpoint needs Authorization: Bearer with a user token", id: .null)
        }
        guard let named = request.headers[Self.sessionHeader] else {
            return HTTPTransport.json(.badRequest, RPCErrorBody.line(code: .invalidRequest, message: "Bad Request: name the session in Mcp-Session-Id"))
        }
        let removed = sessions.withLock { sessions -> Bool in
            guard let found = sessions[named], IDBytes.equal(found.tenant, login.principal.tenant), IDBytes.equal(found.userId, login.principal.userId) else {
                return false
            }
            sessions.removeValue(forKey: named)
            return true
        }
        return removed
            ? Response(status: .noContent) : HTTPTransport.json(.notFound, RPCErrorBody.line(code: .notFound, message: "Not found: no MCP session \(named)"))
    }

    /// Keeps a new session; false when its tenant holds as many as it may. A person past their
    /// own cap loses their own oldest session, never anyone else's.
    private func open(_ session: Session, id: String) -> Bool {
        sessions.withLock { sessions in
            let now = Date()
            let tenant = IDKey(session.tenant)
            let user = IDKey(joining: session.tenant, session.userId)
            var ofTenant = sessions.filter { IDKey($0.value.tenant) == tenant }
            if ofTenant.count >= Self.perTenant {
                for (key, idle) in ofTenant where now.timeIntervalSince(idle.lastUsed) >= Self.idleLimit {
                    sessions.removeValue(forKey: key)
                }
                ofTenant = sessions.filter { IDKey($0.value.tenant) == tenant }
            }
            let own = ofTenant.filter { IDKey(joining: $0.value.tenant, $0.value.userId) == user }.sorted { $0.value.lastUsed < $1.value.lastUsed }
            if own.count >= Self.perUser {
                for (key, _) in own.prefix(own.count - Self.perUser + 1) { sessions.removeValue(forKey: key) }
            } else if ofTenant.count >= Self.perTenant {
                return false
            }
            sessions[id] = session
            return true
        }
    }

    static func rateLimited(_ body: String, wait: Int) -> Response {
        var response = HTTPTransport.json(.tooManyRequests, body)
        response.headers[.retryAfter] = "\(max(1, (wait + 999) / 1000))"
        return response
    }

    private func use(_ id: String) -> Session? {
        sessions.withLock { sessions in
            guard var session = sessions[id] else { return nil }
            let now = Date()
            guard now.timeIntervalSince(session.lastUsed) < Self.idleLimit else {
                sessions.removeValue(forKey: id)
                return nil
            }
            session.lastUsed = now
            sessions[id] = session
            return session
        }
    }

    static func isInitialize(_ body: ByteBuffer) -> Bool {
        guard let message = try? JSONValue.parse(Array(body.readableBytesView)) else { return false }
        return message["method"]?.stringValue == "initialize"
    }

    /// A browser page on another site must not drive a person's onboarding through their
    /// assistant's token: an `Origin` (a browser sends one) must be one of `--allowed-origin` or
    /// the listener's own address, as the server was told it; the `Host` the request names is
    /// not trusted (DNS rebinding points another name at this address). `Origin: null` (a
    /// sandboxed frame, a file) is refused. Clients that are not browsers send no Origin.
    func crossOrigin(_ request: Request) -> Response? {
        guard let origin = request.headers[.origin] else { return nil }
        let given = Self.origin(origin)
        guard !allowedOrigins.contains(given), !listenerOrigins.withLock({ $0.contains(given) }) else { return nil }
        logger.info("refused an MCP request from origin \(origin.prefix(200))")
        return HTTPTransport.json(
            .forbidden, RPCErrorBody.line(code: .invalidRequest, message: "Forbidden: requests from this origin are refused (see --allowed-origin)"))
    }

    /// An origin as compared: lowercased, without a trailing slash.
    package static func origin(_ text: String) -> String {
        var origin = text.trimmingCharacters(in: .whitespaces).lowercased()
        while origin.hasSuffix("/") { origin.removeLast() }
        return origin
    }
}
