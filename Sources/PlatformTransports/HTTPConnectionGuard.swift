import Foundation
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import PlatformCore
import PlatformServer
import PlatformStorage

/// What bounds an HTTP connection before it has logged in (the contract's "Ids, doors and
/// limits"): how long a request head may take, how long a connection may go without a whole
/// request, how many connections may be open, and the bytes all bodies being read may hold.
struct HTTPConnectionLimits: Sendable {
    var headerTimeout: TimeAmount = .seconds(10)
    var idleTimeout: TimeAmount = .seconds(300)
    let table: HTTPConnectionTable
    let budget: PartialLineBudget
}

/// Hummingbird's HTTP/1.1 channel with its WebSocket upgrade, with the two guards below put in
/// its pipeline: one before the HTTP decoder (bytes: timers, the connection limit, frames after
/// an upgrade) and one after it (heads and bodies: Host, the body budget, refusals, headers).
/// Hummingbird adds its own handlers only once the first head has arrived, so nothing of its
/// own could bound a connection that never sends one.
struct GuardedHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel
    let limits: HTTPConnectionLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let limits = limits
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionGuard(limits: limits), position: .first)
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(HTTPRequestGuard(budget: limits.budget, table: limits.table), position: .after(decoder.handler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        var connectionLogger = logger
        connectionLogger.handler = ClientCausedErrorsAtDebug(logger.handler)
        await inner.handle(value: value, logger: connectionLogger)
    }
}

/// Hummingbird's lines about one connection, with its one `error` line ("Error handling upgrade
/// result": the connection closed, or was refused with a 400, before its first head resolved the
/// upgrade) written at `debug`: any client causes it as often as it likes, and at `error` it was a
/// line an attacker could write into the operator's log for each malformed request.
struct ClientCausedErrorsAtDebug: LogHandler {
    var inner: any LogHandler

    init(_ inner: any LogHandler) { self.inner = inner }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }
    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level == .error else { return inner.log(event: event) }
        guard inner.logLevel <= .debug else { return }
        var event = event
        event.level = .debug
        inner.log(event: event)
    }
}

/// The headers every HTTP response carries.
enum SecurityHeaders {
    static let all: [(String, String)] = [("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]
}

/// First in an HTTP connection's pipeline, on its bytes: admits the connection under
/// `--max-connections`, closes it when a request head takes longer than `--header-timeout` from
/// its first byte or when it goes `--idle-timeout` without a whole request, answers a refusal
/// itself (400 and a close), and after a WebSocket upgrade closes the connection (1002) on a
/// client frame that is not masked (RFC 6455 5.1).
final class HTTPConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let limits: HTTPConnectionLimits
    private var context: ChannelHandlerContext?
    private var admitted = false
    private var headerTimer: Scheduled<Void>?
    private var idleTimer: Scheduled<Void>?
    /// The first byte of a head that has not ended; its deadline is this plus `headerTimeout`.
    private var headStarted: NIODeadline?
    /// Since when the connection has had no whole request to answer (nil while it has one).
    private var idleSince: NIODeadline?
    /// A request head has arrived and its end has not.
    private var readingRequest = false
    /// Requests whose response has not ended.
    private var outstanding = 0
    private var frames: WebSocketFrameWalk?
    /// The walk over bytes sent behind the handshake, until the upgrade is answered.
    private var framesBehindHandshake: WebSocketFrameWalk?
    private var unmaskedBehindHandshake = false

    init(limits: HTTPConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { activate(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        activate(context)
        context.fireChannelActive()
    }

    private func activate(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        guard limits.table.admit(context.channel) else {
            context.close(promise: nil)
            return
        }
        idleSince = .now()
        armIdleTimer()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        limits.table.remove(context.channel)
        limits.budget.release(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if var walk = frames {
            let unmasked = walk.findsUnmaskedFrame(in: unwrapInboundIn(data))
            frames = walk
            if unmasked {
                closeForUnmaskedFrame(context)
                return
            }
        } else if !readingRequest, headStarted == nil {
            // The first byte of a request head: the whole head must follow within the timeout.
            headStarted = .now()
            armHeaderTimer()
        }
        context.fireChannelRead(data)
    }

    // MARK: - told by HTTPRequestGuard, on the same event loop

    func headReceived() {
        headStarted = nil
        readingRequest = true
        outstanding += 1
        if idleSince == nil {
            idleSince = .now()
            armIdleTimer()
        }
    }

    func requestEnded() {
        readingRequest = false
        // Its response may have ended first (an early answer): then nothing is owed from here on.
        idleSince = outstanding == 0 ? .now() : nil
        armIdleTimer()
    }

    func responseEnded() {
        outstanding = max(0, outstanding - 1)
        if outstanding == 0, !readingRequest, idleSince == nil {
            idleSince = .now()
            armIdleTimer()
        }
    }

    /// The connection speaks WebSocket from its next byte on.
    func upgraded() {
        cancelTimers()
        readingRequest = false
        frames = framesBehindHandshake ?? WebSocketFrameWalk()
        framesBehindHandshake = nil
        if unmaskedBehindHandshake, let context { closeForUnmaskedFrame(context) }
    }

    /// Bytes the client sent behind its handshake, which the HTTP decoder had read and hands on as
    /// it leaves the pipeline for the upgrade (before `upgraded()`): the first frames, walked here
    /// as the later ones are in `channelRead`. False when they hold a frame that is not masked:
    /// then they go no further and the connection is closed (1002) once the upgrade is answered.
    func bytesBehindHandshake(_ bytes: ByteBuffer) -> Bool {
        var walk = framesBehindHandshake ?? WebSocketFrameWalk()
        if walk.findsUnmaskedFrame(in: bytes) { unmaskedBehindHandshake = true }
        framesBehindHandshake = walk
        return !unmaskedBehindHandshake
    }

    private func closeForUnmaskedFrame(_ context: ChannelHandlerContext) {
        // A close frame with 1002 (protocol error), then the connection goes.
        let close = context.channel.allocator.buffer(bytes: [0x88, 0x02, 0x03, 0xEA])
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in channel.close(promise: nil) }
        frames = nil
    }

    /// Answers `status` with a close and closes: a malformed or ambiguous request, whose bytes
    /// cannot be trusted to say where the next request starts.
    func refuse(_ status: String) {
        guard let context else { return }
        var text = "HTTP/1.1 \(status)\r\nConnection: close\r\nContent-Length: 0\r\n"
        for (name, value) in SecurityHeaders.all { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(string: text))).whenComplete { _ in
            channel.close(promise: nil)
        }
        cancelTimers()
    }

    // The timers are not moved for each request: a keep-alive connection's requests would each
    // cancel and schedule two (a few µs of a request's CPU). Each fires at the deadline it was
    // armed for and checks the deadline now: passed, the connection closes; moved on, it is
    // armed again for the new one; none (no head begun, a request being answered), it stops
    // until one is set.

    private enum TimerCheck { case stop, rearm, close }

    private func armHeaderTimer() {
        guard headerTimer == nil, let headStarted else { return }
        headerTimer = schedule(at: headStarted + limits.headerTimeout, header: true) { connection in
            guard let started = connection.headStarted else { return .stop }
            // A head read while the server still answers an earlier request (a pipelined one,
            // its reads paused) waits on the server, not the client: its clock starts again.
            if connection.outstanding > 0 {
                connection.headStarted = .now()
                return .rearm
            }
            return NIODeadline.now() >= started + connection.limits.headerTimeout ? .close : .rearm
        }
    }

    private func armIdleTimer() {
        guard idleTimer == nil, let idleSince else { return }
        idleTimer = schedule(at: idleSince + limits.idleTimeout, header: false) { connection in
            guard let since = connection.idleSince else { return .stop }
            return NIODeadline.now() >= since + connection.limits.idleTimeout ? .close : .rearm
        }
    }

    /// The header or the idle timer, for `deadline`; when it fires, `check` says what now.
    private func schedule(at deadline: NIODeadline, header: Bool, check: @escaping (HTTPConnectionGuard) -> TimerCheck) -> Scheduled<Void>? {
        guard let context else { return nil }
        return context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            guard let self, let context = self.context else { return }
            if header { self.headerTimer = nil } else { self.idleTimer = nil }
            switch check(self) {
            case .stop:
                return
            case .rearm:
                if header { self.armHeaderTimer() } else { self.armIdleTimer() }
            case .close:
                let timeout = header ? self.limits.headerTimeout : self.limits.idleTimeout
                self.limits.table.closedForTimeout(header: header, seconds: timeout.nanoseconds / 1_000_000_000)
                context.close(promise: nil)
            }
        }
    }

    private func cancelTimers() {
        headStarted = nil
        idleSince = nil
        headerTimer?.cancel()
        headerTimer = nil
        idleTimer?.cancel()
        idleTimer = nil
    }
}

/// Walks WebSocket frame headers across reads, looking only at what it must: each frame's mask
/// bit and length, so it knows where the next frame starts.
struct WebSocketFrameWalk {
    /// Bytes of payload (and mask key) still to skip before the next frame's header.
    private var skip: UInt64 = 0
    /// The next frame's header bytes read so far.
    private var header: [UInt8] = []

    /// Whether a frame in `buffer` (or one that began before it) is not masked.
    mutating func findsUnmaskedFrame(in buffer: ByteBuffer) -> Bool {
        var bytes = buffer.readableBytesView[...]
        while !bytes.isEmpty {
            if skip > 0 {
                let skipped = min(UInt64(bytes.count), skip)
                bytes = bytes.dropFirst(Int(skipped))
                skip -= skipped
                continue
            }
            header.append(bytes.removeFirst())
            guard header.count >= 2 else { continue }
            if header[1] & 0x80 == 0 { return true }
            let length7 = header[1] & 0x7F
            let extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0
            guard header.count == 2 + extended else { continue }
            var length = UInt64(length7)
            if extended > 0 { length = header[2...].reduce(0) { $0 << 8 | UInt64($1) } }
            // The 4-byte mask key, then the payload. A length near 2^64 (RFC 6455 forbids the top
            // bit; the frame decoder closes 1009 on anything over the limit) is skipped for ever.
            let (withKey, overflow) = length.addingReportingOverflow(4)
            skip = overflow ? .max : withKey
            header = []
        }
        return false
    }
}

/// After the HTTP decoder, on request and response parts: refuses (400, close) a malformed head
/// and an HTTP/1.1 request without Host, counts each body being read against the shared budget,
/// closes a connection whose request was refused before its body was read (the body is not
/// read to find where the next request starts), lets only a WebSocket handshake reach NIO's
/// upgrade handler (any other request asking for an upgrade is answered as itself, then the
/// connection closed), puts the security headers on every response and tells
/// `HTTPConnectionGuard` where the connection is. It leaves the pipeline when the connection
/// upgrades to WebSocket.
final class HTTPRequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let budget: PartialLineBudget
    let table: HTTPConnectionTable
    private var connection: HTTPConnectionGuard?
    private var bodyBytes = 0
    private var readingBody = false
    private var closeAfterResponse = false
    /// Requests whose head was read, and final responses (not 1xx) whose head was written.
    private var requestsRead = 0
    private var responsesStarted = 0
    private var responsesEnded = 0
    /// A malformed request came behind requests still being answered: its 400 (and the close)
    /// waits for their answers, which would otherwise be lost with the connection.
    private var refusalOwed = false
    /// The request (by `requestsRead`) after whose answer the connection goes: one that asked for
    /// another protocol and did not get it, a CONNECT, or one that asked for the close, after
    /// which llhttp parses nothing more.
    private var lastAnswered: Int?
    /// That request has been read whole: nothing more is read from the socket (what the client
    /// sends after it would only pile up in the decoder's buffer).
    private var readsNoMore = false
    private var refused = false

    init(budget: PartialLineBudget, table: HTTPConnectionTable) {
        self.budget = budget
        self.table = table
    }

    func handlerAdded(context: ChannelHandlerContext) {
        connection = try? context.pipeline.syncOperations.handler(type: HTTPConnectionGuard.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard let part = context.channel._channelCore.tryUnwrapData(data, as: HTTPServerRequestPart.self) else {
            // Bytes behind a WebSocket handshake: the HTTP decoder hands them on as it leaves the
            // pipeline, before this handler does (at the 101). They are the first frames, for
            // the upgrade handler to replay; unwrapped as a request part, they stopped the process.
            if let bytes = context.channel._channelCore.tryUnwrapData(data, as: ByteBuffer.self), connection?.bytesBehindHandshake(bytes) == false {
                return
            }
            context.fireChannelRead(data)
            return
        }
        var data = data
        switch part {
        case .head(var head):
            connection?.headReceived()
            requestsRead += 1
            // RFC 9112 3.2: a request with more than one Host, or an HTTP/1.1 one with none, is 400.
            let hosts = head.headers["Host"].count
            if hosts > 1 || (hosts == 0 && head.version.major == 1 && head.version.minor >= 1) {
                refuse("400 Bad Request")
                return
            }
            if head.version.major == 1, head.version.minor == 0, head.headers.contains(name: "Expect") {
                // RFC 9110 10.1.1: an HTTP/1.0 request's 100-continue is ignored (no 100 is sent).
                head.headers.remove(name: "Expect")
                data = wrapInboundOut(.head(head))
            }
            if Self.removeUpgrade(from: &head.headers, method: head.method, version: head.version) {
                data = wrapInboundOut(.head(head))
                lastAnswered = lastAnswered ?? requestsRead
            } else if head.method == .CONNECT || !head.isKeepAlive {
                // After `Connection: close` (or an HTTP/1.0 request without keep-alive) llhttp
                // parses nothing more: what follows is an error, not a request (RFC 9112 9.6).
                lastAnswered = lastAnswered ?? requestsRead
            }
            readingBody = true
            bodyBytes = 0
        case .body(let buffer):
            bodyBytes += buffer.readableBytes
            // What the route's collected body keeps: a buffer that grows by doubling, so its
            // capacity (the memory really held) is the next power of two of what arrived.
            budget.hold(Self.capacity(holding: bodyBytes), on: context.channel)
        case .end:
            readingBody = false
            if bodyBytes > 0 { budget.hold(0, on: context.channel) }
            bodyBytes = 0
            if lastAnswered == requestsRead { readsNoMore = true }
            connection?.requestEnded()
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guard !readsNoMore else { return }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            for (name, value) in SecurityHeaders.all where !head.headers.contains(name: name) { head.headers.add(name: name, value: value) }
            if head.status == .switchingProtocols {
                // Flushed here: NIO's upgrade writes it with writeAndFlush, whose flush would reach
                // this handler's context after it has left the pipeline, and be lost.
                context.writeAndFlush(wrapOutboundOut(.head(head)), promise: promise)
                connection?.upgraded()
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            if head.status == .badRequest, table.takeRefusedUpgrade(context.channel) {
                // Hummingbird answers every refused upgrade 400; a wrong bearer is the contract's 401.
                head.status = .unauthorized
                head.headers.replaceOrAdd(name: "WWW-Authenticate", value: "Bearer")
            }
            if head.status.code >= 200 { responsesStarted += 1 }
            if responsesStarted == lastAnswered || (readingBody && head.status.code >= 400) {
                // The last request the parser will read, or one refused before its body was
                // read (the rest of it is not read): the connection goes after this answer.
                closeAfterResponse = true
                head.headers.replaceOrAdd(name: "Connection", value: "close")
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closeAfterResponse else {
                context.write(data, promise: promise)
                connection?.responseEnded()
                responsesEnded += 1
                if refusalOwed, responsesEnded >= requestsRead {
                    refusalOwed = false
                    context.flush()
                    refuse("400 Bad Request")
                }
                return
            }
            let written = context.eventLoop.makePromise(of: Void.self)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        // Bytes after a request that asked for the close: that request is answered and the
        // connection closed after it; what came after is not read (RFC 9112 9.6), not a 400
        // sent in place of the answer.
        if let parse = error as? HTTPParserError, parse == .closedConnection, readsNoMore { return }
        // A malformed head, both Content-Length and Transfer-Encoding, a bare LF: 400 and a close,
        // once the requests read before it (pipelined) are answered.
        if responsesEnded < requestsRead {
            refusalOwed = true
            readsNoMore = true
            return
        }
        refuse("400 Bad Request")
    }

    /// Takes `Upgrade` off a request that is not a WebSocket handshake NIO will complete (RFC 6455
    /// 4.1 and 4.2.1: an HTTP/1.1 GET without a body, `Connection` naming upgrade, one key of 16
    /// bytes in base64, version 13);
    /// true when it did. Such a request is then answered as itself, and its connection closed.
    /// Left on, NIO's upgrade handler fails a request whose body follows its head and leaves it
    /// unanswered until the idle timeout; drops a head it refuses (a missing or second key, a
    /// version not 13) or finds no upgrader for; and upgrades a handshake whose `Connection` does
    /// not name upgrade while llhttp goes on parsing, so a request sent after it reached the
    /// WebSocket decoder as a parsed head and stopped the process. llhttp parses nothing after a
    /// request whose `Connection` names upgrade: hence the close.
    static func removeUpgrade(from headers: inout HTTPHeaders, method: HTTPMethod, version: HTTPVersion = .http1_1) -> Bool {
        guard headers.contains(name: "Upgrade") else { return false }
        let connection = headers[canonicalForm: "Connection"]
        let handshake =
            method == .GET && (version.major, version.minor) >= (1, 1) && !headers.contains(name: "Transfer-Encoding")
            && headers["Content-Length"].allSatisfy { $0 == "0" }
            && headers[canonicalForm: "Upgrade"].contains { $0.lowercased() == "websocket" }
            && connection.contains { $0.lowercased() == "upgrade" }
            && headers["Sec-WebSocket-Key"].count == 1 && isWebSocketKey(headers["Sec-WebSocket-Key"][0])
            && headers["Sec-WebSocket-Version"] == ["13"]
        guard !handshake else { return false }
        headers.remove(name: "Upgrade")
        let kept = connection.filter { $0.lowercased() != "upgrade" }
        headers.remove(name: "Connection")
        if !kept.isEmpty { headers.add(name: "Connection", value: kept.joined(separator: ", ")) }
        return true
    }

    /// RFC 6455 4.1: the key is 16 bytes in base64. NIO's upgrader takes any text, and
    /// answered `Sec-WebSocket-Key: x` with a 101.
    static func isWebSocketKey(_ key: String) -> Bool {
        key.utf8.count == 24 && Data(base64Encoded: key)?.count == 16
    }

    static func capacity(holding bytes: Int) -> Int {
        bytes <= 1 ? bytes : 1 << (Int.bitWidth - (bytes - 1).leadingZeroBitCount)
    }

    private func refuse(_ status: String) {
        refused = true
        connection?.refuse(status)
    }
}
