import Hummingbird
import HummingbirdWebSocket
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage

/// A request's context with its connection, so a route that accepts a bearer can mark the
/// connection logged in (`HTTPConnectionTable`): connections that never log in are the first to
/// make room for new ones.
package struct PlatformRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// The WebSocket router's context, with its connection for the same reason.
struct PlatformWebSocketRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}

/// Marks a connection logged in when a page answered it as a signed-in person: a hosted-flow page
/// or a dashboard page below `/admin/` answered under 400 to a request carrying its cookie (an
/// unknown cookie gets 401 there), so browsers' connections are not the first to make room.
struct SignedInConnections: RouterMiddleware {
    typealias Context = PlatformRequestContext
    let table: HTTPConnectionTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard response.status.code < 400, let cookies = request.headers[.cookie] else { return response }
        let path = request.uri.path
        let flowPage = path.hasPrefix("/flow/") && cookies.contains(HostedFlow.cookie + "=")
        let dashboardPage = path.hasPrefix("/admin/") && path.split(separator: "/").count >= 3 && cookies.contains(AdminDashboard.cookie + "=")
        if flowPage || dashboardPage { table.loggedIn(context.channel) }
        return response
    }
}

/// Any method a known path does not take, the ones no route names among them (TRACE, PROPFIND,
/// CONNECT, …): 405 with the path's methods in `Allow` (RFC 9110 15.5.6), where the router would
/// answer 404 for a method it has no route for.
struct MethodsOfKnownPaths: RouterMiddleware {
    typealias Context = PlatformRequestContext
    let allowed: [String: [HTTPRequest.Method]]

    init(routes: [(path: String, methods: [HTTPRequest.Method])]) {
        allowed = Dictionary(routes.map { ($0.path, $0.methods) }, uniquingKeysWith: { $0 + $1 })
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let methods = allowed[request.uri.path], !methods.contains(request.method) { return HTTPTransport.methodNotAllowed(methods) }
        return try await next(request, context)
    }
}
