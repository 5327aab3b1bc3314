import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import PlatformCore
import PlatformServer
import PlatformStorage
import Prometheus
import ServiceLifecycle
import Synchronization

/// `serve --http HOST:PORT`: the same RPC server and access control as the socket transports,
/// reached over HTTP/1.1 (the contract's version 3 "HTTP" section). `POST /rpc` is one request
/// (or batch) per HTTP request acting for its bearer; `GET /rpc` upgraded to a WebSocket is one
/// connection of the line protocol, a message per text frame; `POST /mcp` is the MCP server for
/// assistants elsewhere; `/health/live`, `/health/ready` and `/metrics` are for operators.
package struct HTTPTransport: Service {
    package init(
        server: RPCServer, mcp: MCPHTTPSessions, platform: Platform, store: any PlatformStore, preview: Bool, readiness: Readiness,
        metrics: PrometheusCollectorRegistry, host: String, port: Int, requireLogin: Bool, maxBodyBytes: Int, idleTimeout: TimeAmount = .seconds(300),
        headerTimeout: TimeAmount = .seconds(10), connections: HTTPConnectionTable, budget: PartialLineBudget, tracing: Bool = false, logger: Logger
    ) {
        self.server = server
        self.mcp = mcp
        self.platform = platform
        self.store = store
        self.preview = preview
        self.readiness = readiness
        self.metrics = metrics
        self.host = host
        self.port = port
        self.requireLogin = requireLogin
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.connections = connections
        self.budget = budget
        self.tracing = tracing
        self.logger = logger
    }

    let server: RPCServer
    let mcp: MCPHTTPSessions
    let platform: Platform
    /// The database, for the dashboard's keys and deliveries.
    let store: any PlatformStore
    /// `serve --preview`: `/preview/TENANT/` opens a flow for a throwaway user.
    let preview: Bool
    let readiness: Readiness
    let metrics: PrometheusCollectorRegistry
    let host: String
    let port: Int
    let requireLogin: Bool
    let maxBodyBytes: Int
    /// Connections without a whole request this long are closed (`--idle-timeout`).
    var idleTimeout: TimeAmount = .seconds(300)
    /// A request head must arrive this soon after its first byte (`--header-timeout`).
    var headerTimeout: TimeAmount = .seconds(10)
    /// Open at once; past it the oldest connections that have not logged in make room.
    let connections: HTTPConnectionTable
    /// Bytes of bodies being read, shared with the socket transports' partial lines.
    let budget: PartialLineBudget
    /// Whether a tracer was bootstrapped (spans are exported).
    var tracing = false
    let logger: Logger
    /// `DirectRPCHandler`'s tasks: `run()` returns only once they have ended, so the store is
    /// not closed under a request whose client left while it was answered.
    let inFlight = TasksInFlight()

    /// The paths that answer, with the methods each takes (anything else there is 405).
    static let routes: [(path: String, methods: [HTTPRequest.Method])] = [
        ("/rpc", [.post, .get]), ("/mcp", [.post, .delete]), ("/health/live", [.get]), ("/health/ready", [.get]), ("/metrics", [.get]),
    ]

    /// Every HTTP route but the WebSocket upgrade: the router `run()` serves, and the one the
    /// in-process tests drive (HummingbirdTesting) without a socket.
    package func router() -> Router<PlatformRequestContext> {
        let router = Router(context: PlatformRequestContext.self)
        // The HTTP request's span (the caller's `traceparent` its parent) when a tracer is set up;
        // without one, the middleware would only cost each request the attributes it builds.
        // The hosted flow's start link carries a user token in its query: a span records it redacted.
        if tracing { router.middlewares.add(TracingMiddleware(recordingHeaders: [.contentType, .userAgent], redactingQueryParameters: ["token"])) }
        router.add(middleware: MethodsOfKnownPaths(routes: Self.routes))
        router.add(middleware: SignedInConnections(table: connections))
        router.post("/rpc") { request, context in try await rpc(request, channel: context.channel) }
        router.post("/mcp") { request, context in try await mcp.post(request, channel: context.channel) }
        router.delete("/mcp") { request, _ in await mcp.delete(request) }
        router.get("/health/live") { _, _ in Self.json(.ok, #"{"status":"ok"}"#) }
        router.get("/health/ready") { _, _ in await ready() }
        router.get("/metrics") { _, _ in exposition() }
        // The hosted flow and the dashboard: pages for people, their style and script served here.
        let web = WebSupport(server: server, credentials: Credentials(store: store), secureCookies: !LoopbackHost.contains(host))
        HostedFlow(web: web, platform: platform, maxBodyBytes: maxBodyBytes).routes(router)
        AdminDashboard(web: web, platform: platform, store: store, maxBodyBytes: maxBodyBytes).routes(router)
        router.get("/assets/platformd.css") { _, _ in WebSupport.asset(WebAssets.css, type: "text/css; charset=utf-8") }
        router.get("/assets/platformd.js") { _, _ in WebSupport.asset(WebAssets.javascript, type: "text/javascript; charset=utf-8") }
        if preview { Preview(web: web, platform: platform, logger: logger).routes(router) }
        // A GET of /rpc with no upgrade: 426, saying what a GET there is for. (Every other method
        // on a known path is 405: `MethodsOfKnownPaths`, above.)
        router.get("/rpc") { _, _ in Self.upgradeRequired() }
        return router
    }

    package func run() async throws {
        let router = router()
        let sockets = Router(context: PlatformWebSocketRequestContext.self)
        sockets.ws("/rpc") { request, context in
            // Checked before the upgrade, so a wrong bearer is a 401, not a socket that closes.
            if let bearer = Self.bearer(request.headers) {
                if case .failure(let error) = await login(bearer, label: "websocket") {
                    connections.refusedUpgrade(context.channel)
                    throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: error.message)
                }
                connections.loggedIn(context.channel)
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            try await lineProtocol(inbound, outbound, request: context.request)
        }

        let limits = HTTPConnectionLimits(headerTimeout: headerTimeout, idleTimeout: idleTimeout, table: connections, budget: budget)
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: connectionHandlers(), idleTimeout: answersRPCDirectly ? nil : idleTimeout),
            // A client that never answers the close frame holds the stop this long (Hummingbird's
            // default is 15 s, longer than the whole stop's deadline).
            ws: .init(maxFrameSize: maxBodyBytes, closeTimeout: Self.webSocketCloseTimeout))
        let webSocketResponder = sockets.buildResponder()
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                GuardedHTTPChannel(
                    inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                    limits: limits)
            },
            // Every connection is accepted: the table makes room (or closes the newcomer) at once,
            // instead of leaving new clients in the backlog behind connections that never log in.
            configuration: .init(address: .hostname(host, port: port), serverName: nil, backlog: Int(SocketTransport.backlog)),
            onServerRunning: { [logger, mcp, host] channel in
                let address = channel.localAddress
                mcp.listening(host: host, port: address?.port ?? port)
                let shown = address?.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? host
                logger.notice("listening on http \(shown):\(address?.port ?? port)")
            },
            logger: logger)
        do {
            try await app.run()
        } catch {
            await inFlight.noneRunning()
            throw error
        }
        await inFlight.noneRunning()
    }

    /// `POST /rpc` answered by `DirectRPCHandler` rather than by the router. Not when spans are
    /// exported: each request's span comes from the router's tracing middleware.
    var answersRPCDirectly: Bool { !tracing }

    /// The handlers each HTTP connection gets after HTTP parsing, once it is known not to be a
    /// WebSocket. With `DirectRPCHandler`, Hummingbird's own idle timeout is off: its connection
    /// state handler, after this one, sees only the requests passed on, and would close a
    /// connection busy with `POST /rpc` (`HTTPConnectionGuard` keeps the idle timeout).
    func connectionHandlers() -> [any RemovableChannelHandler] {
        guard answersRPCDirectly else { return [ConnectionGauge(transport: "http")] }
        return [ConnectionGauge(transport: "http"), DirectRPCHandler(transport: self)]
    }

    /// How long a WebSocket's close handshake may take before the connection is dropped.
    static let webSocketCloseTimeout: Duration = .seconds(2)

    // MARK: - POST /rpc

    /// Hummingbird's route for `POST /rpc`: the in-process tests drive it, and a server that
    /// exports spans serves it (each request its span); otherwise `DirectRPCHandler` answers
    /// first, with the same steps.
    func rpc(_ request: Request, channel: any Channel) async throws -> Response {
        if let refusal = rpcRefusal(request.headers) { return refusal.response }
        let bearer = await rpcBearer(request.headers, channel: channel)
        if case .refused(let refusal) = bearer { return refusal.response }
        guard let body = try await Self.collect(request, upTo: maxBodyBytes) else { return rpcTooLarge.response }
        return await rpcAnswer(body, headers: request.headers, login: bearer.login).response
    }

    func login(_ bearer: String, label: String) async -> Result<ConnectionState.Login, RPCError> {
        await server.login(bearer: bearer, connection: ConnectionState(nil, label: label, transport: "http"))
    }

    // MARK: - GET /rpc upgraded

    /// One connection of the line protocol: its login (the upgrade's bearer, else the
    /// transport's default), its messages answered in order, one reply per text frame.
    func lineProtocol(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, request: Request) async throws {
        PlatformMetrics.connectionOpened(transport: "websocket")
        defer { PlatformMetrics.connectionClosed(transport: "websocket") }
        let label = "websocket"
        let connection: ConnectionState
        if let bearer = Self.bearer(request.headers) {
            guard case .success(let login) = await login(bearer, label: label) else {
                try await outbound.close(.policyViolation, reason: "the bearer is not a valid key or user token")
                return
            }
            connection = ConnectionState(login, label: label, transport: "websocket")
        } else {
            connection = .opened(requireLogin: requireLogin, label: label, transport: "websocket")
        }
        // On a stop the WebSocket layer sends its close frame, but this loop would wait for the
        // client's next frame for ever: a client that never answers held the stop. It is given
        // the close timeout to answer (and a request in flight to finish), then it is ended.
        // (Not a task group beside `gracefulShutdown()`: that waiter did not always end when
        // the client left first, and the connection, then the stop, waited on it.)
        let serving = Task { try await self.serve(inbound, outbound, connection) }
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await serving.value
            } onGracefulShutdown: {
                Task {
                    try? await Task.sleep(for: Self.webSocketCloseTimeout)
                    serving.cancel()
                }
            }
        } onCancel: {
            serving.cancel()
        }
    }

    private func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, _ connection: ConnectionState) async throws {
        var frames = inbound.makeAsyncIterator()
        while let message = try await Self.nextMessage(&frames, maxSize: maxBodyBytes, outbound) {
            // The reply's bytes go out as the text frame's payload as they are: they are the
            // server's own JSON, UTF-8 already, so no String is made and checked on the way.
            if let reply = await server.replyBytes(to: message.readableBytesView, connection: connection) {
                try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: reply))))
            }
        }
    }

    /// The next message's bytes as the client sent them, text or binary, its fragments joined;
    /// nil when the connection is closing (the client's close, or a protocol error or a message
    /// over `maxSize`, closed here with 1002 or 1009). Hummingbird's own messages make a text
    /// message a String, which put U+FFFD in place of bytes that are not UTF-8: an id `"a\xFFb"`
    /// was run and echoed as `"a\u{FFFD}b"`. These bytes go to the parser, which answers invalid
    /// UTF-8 with -32700, as on every other door.
    static func nextMessage(
        _ frames: inout WebSocketInboundStream.AsyncIterator, maxSize: Int, _ outbound: WebSocketOutboundWriter
    ) async throws -> ByteBuffer? {
        guard let first = try await frames.next() else { return nil }
        guard first.opcode != .continuation else {
            try await outbound.close(.protocolError, reason: "a continuation frame without a message to continue")
            return nil
        }
        var message = first.data
        var fin = first.fin
        while !fin {
            guard let frame = try await frames.next() else { return nil }
            guard frame.opcode == .continuation else {
                try await outbound.close(.protocolError, reason: "a new message before the last one ended")
                return nil
            }
            guard message.readableBytes + frame.data.readableBytes <= maxSize else {
                try await outbound.close(.messageTooLarge, reason: "the message is over the limit")
                return nil
            }
            var data = frame.data
            message.writeBuffer(&data)
            fin = frame.fin
        }
        return message
    }

    // MARK: - operators

    func ready() async -> Response {
        if readiness.isStopping {
            return Self.json(.serviceUnavailable, Self.unavailable("the server is stopping"))
        }
        if let reason = await platform.storeUnavailability() {
            return Self.json(.serviceUnavailable, Self.unavailable(reason))
        }
        return Self.json(.ok, #"{"status":"ok"}"#)
    }

    func exposition() -> Response {
        var bytes: [UInt8] = []
        metrics.emit(into: &bytes)
        bytes = ServerMetrics.withHelp(bytes)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func unavailable(_ reason: String) -> String {
        String(decoding: JSONValue.object(["status": "unavailable", "reason": .string(reason)]).serializedBytes(), as: UTF8.self)
    }

    // MARK: - helpers

    /// The body, or nil when it is longer than `limit`. A body that ends before its
    /// `Content-Length` (its connection was closed: the client went, or the body budget cut it) is
    /// an error, not a request: nothing of it is parsed or run.
    static func collect(_ request: Request, upTo limit: Int) async throws -> ByteBuffer? {
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > limit { return nil }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return nil
        }
        if let length, body.readableBytes != length {
            throw HTTPError(.badRequest, message: "the body ended before its Content-Length")
        }
        return body
    }

    static func bearer(_ headers: HTTPFields) -> String? {
        headers.value(of: .authorization).flatMap(bearer(authorization:))
    }

    /// The secret of `Bearer SECRET` (the scheme in any case, spaces before it, spaces and tabs
    /// around the secret), read as bytes: every request of a logged-in backend carries one, and
    /// Foundation's trimming cost more than its login.
    static func bearer(authorization value: String) -> String? {
        let space: UInt8 = 0x20
        let tab: UInt8 = 0x09
        let afterSpaces = Substring(value).utf8.drop { $0 == space }
        let scheme = afterSpaces.prefix { $0 != space }
        // ASCII letters only: a byte ORed with 0x20 equals a lowercase letter only if it was
        // that letter in either case.
        guard scheme.count == 6, zip(scheme, "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        let rest = afterSpaces.dropFirst(6)
        let blank = { (byte: UInt8) in byte == space || byte == tab }
        guard let first = rest.firstIndex(where: { !blank($0) }), let last = rest.lastIndex(where: { !blank($0) })
        else { return nil }
        return String(Substring(rest[first...last]))
    }

    /// The message with `Accept-Language` standing in for each `flow.start` and `gate.check` that
    /// names no `locale`:
    /// the first language the header asks for that the tenant serves (else the first asked for),
    /// as if the client had sent it. Other messages are passed on untouched.
    static func locale(from header: String, into message: JSONValue, platform: Platform) -> JSONValue {
        let wanted = LocaleTag.accepted(header)
        let methods: Set<String> = [PlatformMethod.start.rawValue, PlatformMethod.gateCheck.rawValue]
        guard !wanted.isEmpty else { return message }
        func localized(_ request: JSONValue) -> JSONValue {
            guard let method = request["method"]?.stringValue, methods.contains(method), var params = request["params"]?.objectValue,
                params["locale"] == nil || params["locale"] == .null,
                let locale = platform.copy(for: params["tenant"]?.stringValue ?? "").preferred(wanted),
                var object = request.objectValue
            else { return request }
            params["locale"] = .string(locale)
            object["params"] = .object(params)
            return .object(object)
        }
        return message.arrayValue.map { JSONValue.array($0.map(localized)) } ?? localized(message)
    }

    /// Whether the media type (before any parameters, spaces around it ignored, in any case) is
    /// `application/json`. Compared as bytes: it is read on every `POST /rpc`.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        var media = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }[...]
        while let first = media.first, first == 0x20 || first == 0x09 { media = media.dropFirst() }
        while let last = media.last, last == 0x20 || last == 0x09 { media = media.dropLast() }
        let expected = "application/json".utf8
        return media.count == expected.count
            && zip(media, expected).allSatisfy { given, wanted in
                given == wanted || (0x61...0x7A).contains(wanted) && given == wanted - 0x20
            }
    }

    /// The methods of a request or batch that need a login, in order.
    static func methodsNeedingLogin(_ message: JSONValue) -> [String] {
        let requests = message.arrayValue ?? [message]
        return requests.compactMap { $0["method"]?.stringValue ?? "a request" }.filter { !RPCServer.needsNoLogin($0) }
    }

    /// The id of a single request, for a refusal's reply; null for a batch or what does not parse.
    static func requestID(_ body: ByteBuffer) -> JSONValue {
        guard let message = try? JSONValue.parse(Array(body.readableBytesView)) else { return .null }
        return requestID(message)
    }

    static func requestID(_ message: JSONValue) -> JSONValue {
        guard message.arrayValue == nil else { return .null }
        return message["id"] ?? .null
    }

    /// 401 with a -32001 reply; `message` as an RPCError words it, or a reason to put after "Unauthorized: ".
    static func unauthorized(_ message: String, id: JSONValue) -> Response {
        unauthorizedReply(message, id: id).response
    }

    static func upgradeRequired() -> Response {
        var response = json(
            .upgradeRequired,
            RPCErrorBody.line(
                code: .invalidRequest,
                message:
                    "Upgrade Required: GET /rpc opens a WebSocket (send Connection: Upgrade, Upgrade: websocket, Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key); POST /rpc takes one request or a batch"
            ))
        response.headers[.upgrade] = "websocket"
        response.headers[.connection] = "Upgrade"
        // RFC 6455 4.4: the versions this server speaks, for a handshake that asked for another.
        response.headers[.secWebSocketVersion] = "13"
        response.headers[.allow] = "GET, POST"
        return response
    }

    static func methodNotAllowed(_ allowed: [HTTPRequest.Method]) -> Response {
        var response = json(
            .methodNotAllowed, RPCErrorBody.line(code: .invalidRequest, message: "Method Not Allowed: use \(allowed.map(\.rawValue).joined(separator: " or "))")
        )
        response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
        return response
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        RPCHTTPReply.json(status, text).response
    }

    static func json(_ status: HTTPResponse.Status, _ body: ByteBuffer) -> Response {
        RPCHTTPReply.json(status, body).response
    }
}

/// A JSON-RPC error reply written for an HTTP refusal (no request was run).
enum RPCErrorBody {
    static func line(code: ErrorCode, message: String, id: JSONValue = .null) -> String {
        let reply: JSONValue = ["jsonrpc": "2.0", "id": id, "error": ["code": .int(Int64(code.rawValue)), "message": .string(message)]]
        return String(decoding: reply.serializedBytes(), as: UTF8.self)
    }
}

/// Whether the server is stopping: readiness answers 503 from the first stop signal on, so a
/// load balancer sends nothing more while the last requests are answered.
package final class Readiness: Sendable {
    package init() {}

    private let stopping = Atomic<Bool>(false)

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    package func stop() { stopping.store(true, ordering: .relaxed) }
}

/// Counts an HTTP connection in `platformd_connections` while its HTTP handlers are in its
/// pipeline (from accept to close, or to a WebSocket upgrade, which counts it as a WebSocket).
final class ConnectionGauge: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny
    let transport: String

    init(transport: String) { self.transport = transport }

    func handlerAdded(context: ChannelHandlerContext) {
        PlatformMetrics.connectionOpened(transport: transport)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        PlatformMetrics.connectionClosed(transport: transport)
    }
}
