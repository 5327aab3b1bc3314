import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PlatformCore
import Synchronization

/// `POST /mcp`: the MCP server over Streamable HTTP (JSON responses, no server-sent stream),
/// for assistants hosted elsewhere. Each request's bearer must be a user token; the tools act
/// for its tenant and user. `initialize` opens an MCP session (`Mcp-Session-Id`), bound to that
/// tenant and user, that later requests name; its state (the agreed protocol version, the
/// answer tool's schema the client last listed) lives here, one `MCPServer` per session.
final class MCPHTTPSessions: Sendable {
    let platform: Platform
    let server: RPCServer
    let maxBodyBytes: Int
    let logger: Logger

    /// Sessions idle this long are forgotten (a request naming one then gets 404, and the client
    /// initializes again, as the protocol says).
    static let idleLimit: TimeInterval = 3600
    /// Past this many sessions, the idle ones go first, then the oldest.
    static let capacity = 10_000

    struct Session {
        let tenant: String
        let userId: String
        let mcp: MCPServer
        let rpc: RPCServer
        var lastUsed: Date
    }

    private let sessions = Mutex<[String: Session]>([:])

    init(platform: Platform, server: RPCServer, maxBodyBytes: Int, logger: Logger) {
        self.platform = platform
        self.server = server
        self.maxBodyBytes = maxBodyBytes
        self.logger = logger
    }

    static let sessionHeader = HTTPField.Name("Mcp-Session-Id")!
    static let versionHeader = HTTPField.Name("MCP-Protocol-Version")!

    func post(_ request: Request) async throws -> Response {
        if let refusal = Self.crossOrigin(request) { return refusal }
        guard HTTPTransport.isJSON(request.headers[.contentType]) else {
            return HTTPTransport.json(.unsupportedMediaType, RPCErrorBody.line(code: .invalidRequest, message: "Unsupported Media Type: send Content-Type: application/json"))
        }
        guard let body = try await HTTPTransport.collect(request, upTo: maxBodyBytes) else {
            return HTTPTransport.json(.contentTooLarge, String(decoding: RPCServer.tooLarge(limit: maxBodyBytes, transport: "mcp"), as: UTF8.self))
        }
        let id = HTTPTransport.requestID(body)
        guard let bearer = HTTPTransport.bearer(request.headers) else {
            return HTTPTransport.unauthorized("the MCP endpoint needs Authorization: Bearer with a user token (auth.userToken)", id: id)
        }
        let login: ConnectionState.Login
        switch await server.login(bearer: bearer, connection: ConnectionState(nil, label: "mcp", transport: "mcp")) {
        case .failure(let error): return HTTPTransport.unauthorized(error.message, id: id)
        case .success(let given): login = given
        }
        guard login.principal.kind == .user, let tenant = login.principal.tenant, let userId = login.principal.userId else {
            return HTTPTransport.unauthorized("the MCP endpoint acts for one user: the bearer must be a user token, not a key", id: id)
        }
        if let version = request.headers[Self.versionHeader], !MCPServer.supportedVersions.contains(version) {
            return HTTPTransport.json(.badRequest, RPCErrorBody.line(
                code: .invalidRequest,
                message: "Unsupported MCP-Protocol-Version \(version) (supported: \(MCPServer.supportedVersions.joined(separator: ", ")))", id: id))
        }

        let opening = Self.isInitialize(body)
        let sessionID: String
        let session: Session
        if opening {
            let flow = request.uri.queryParameters["flow"].map(String.init) ?? "onboarding"
            do {
                _ = try platform.describe(tenant: tenant, flow: flow)
            } catch {
                return HTTPTransport.json(.notFound, RPCErrorBody.line(code: .notFound, message: RPCError(error).message, id: id))
            }
            sessionID = Platform.randomID()
            // A session the assistant starts is in the language the client's requests ask for.
            let locale = request.headers[.acceptLanguage].flatMap { platform.copy(for: tenant).preferred(LocaleTag.accepted($0)) }
            let mcp = MCPServer(platform: platform, tenant: tenant, userId: userId, flow: flow, locale: locale, logger: logger)
            session = Session(tenant: tenant, userId: userId, mcp: mcp, rpc: mcp.rpcServer(), lastUsed: Date())
            open(session, id: sessionID)
            logger.info("MCP session opened over HTTP", metadata: ["tenant": "\(tenant)", "user": "\(userId)", "flow": "\(flow)"])
        } else {
            guard let named = request.headers[Self.sessionHeader] else {
                return HTTPTransport.json(.badRequest, RPCErrorBody.line(
                    code: .invalidRequest, message: "Bad Request: send initialize first, then the Mcp-Session-Id it answered with", id: id))
            }
            // Another user's session is not found, as if it did not exist.
            guard let found = use(named), found.tenant == tenant, found.userId == userId else {
                return HTTPTransport.json(.notFound, RPCErrorBody.line(
                    code: .notFound, message: "Not found: no MCP session \(named) for this user (it ended or expired): initialize again", id: id))
            }
            sessionID = named
            session = found
        }

        let reply = await session.rpc.replyBytes(to: body.readableBytesView, connection: .trusted("mcp", transport: "mcp"))
        // A JSON response carries one message: notifications the request queued (the answer
        // tool's schema changed) have no way to the client here; it lists the tools again.
        _ = await session.mcp.takeNotifications()
        var response: Response
        if let reply {
            response = HTTPTransport.json(.ok, ByteBuffer(bytes: reply))
        } else {
            response = Response(status: .accepted)
        }
        if opening { response.headers[Self.sessionHeader] = sessionID }
        return response
    }

    /// `DELETE /mcp`: the client ends its session.
    func delete(_ request: Request) async -> Response {
        guard let bearer = HTTPTransport.bearer(request.headers),
              case .success(let login) = await server.login(bearer: bearer, connection: ConnectionState(nil, label: "mcp", transport: "mcp")),
              login.principal.kind == .user
        else {
            return HTTPTransport.unauthorized("the MCP endpoint needs Authorization: Bearer with a user token", id: .null)
        }
        guard let named = request.headers[Self.sessionHeader] else {
            return HTTPTransport.json(.badRequest, RPCErrorBody.line(code: .invalidRequest, message: "Bad Request: name the session in Mcp-Session-Id"))
        }
        let removed = sessions.withLock { sessions -> Bool in
            guard let found = sessions[named], found.tenant == login.principal.tenant, found.userId == login.principal.userId else { return false }
            sessions.removeValue(forKey: named)
            return true
        }
        return removed ? Response(status: .noContent) : HTTPTransport.json(.notFound, RPCErrorBody.line(code: .notFound, message: "Not found: no MCP session \(named)"))
    }

    private func open(_ session: Session, id: String) {
        sessions.withLock { sessions in
            if sessions.count >= Self.capacity {
                let now = Date()
                sessions = sessions.filter { now.timeIntervalSince($0.value.lastUsed) < Self.idleLimit }
                if sessions.count >= Self.capacity {
                    for key in sessions.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }).prefix(Self.capacity / 10).map(\.key) {
                        sessions.removeValue(forKey: key)
                    }
                }
            }
            sessions[id] = session
        }
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
    /// assistant's token (DNS rebinding): an `Origin` whose host is not the one addressed is 403.
    static func crossOrigin(_ request: Request) -> Response? {
        guard let origin = request.headers[.origin], origin != "null" else { return nil }
        let originHost = URL(string: origin)?.host
        let addressed = request.head.authority.map { host in
            host.hasPrefix("[") ? String(host.dropFirst().prefix { $0 != "]" }) : String(host.split(separator: ":").first ?? "")
        }
        guard let originHost, let addressed, originHost.lowercased() == addressed.lowercased() else {
            return HTTPTransport.json(.forbidden, RPCErrorBody.line(code: .invalidRequest, message: "Forbidden: requests from another origin are refused"))
        }
        return nil
    }
}
