import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// A request's context with its connection, so a route that accepts a bearer can mark the
/// connection logged in (`HTTPConnectionTable`): connections that never log in are the first to
/// make room for new ones.
struct PlatformRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
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
