import Foundation
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

/// Answers `POST /rpc` in the connection's pipeline, ahead of Hummingbird: the request's head
/// and body are read here on the event loop and the whole body goes to the RPC server in one
/// hop, the way the socket transports hand over a line. Hummingbird's router, its request
/// context and per-request logger, and the hand-off of every request part into the connection's
/// task cost a `POST /rpc` ~120 µs of CPU more than the same request on the socket (Docs/performance.md).
///
/// Every other request passes through to Hummingbird untouched. The checks are the route's own
/// steps (`RPCOverHTTP.swift`): the media type and the bearer from the head, before more of the
/// body than the read that brought the head is held (a request read whole in that read is checked
/// and answered in one task); the body bounded by `--max-line-bytes`; the guards before this handler (the
/// timers, the connection limit, the shared body budget, Host, the security headers, the close
/// after a refusal whose body was not read) see these requests as they see any other.
///
/// Responses leave a connection in the order its requests came (HTTP/1.1 pipelining): while this
/// handler answers a request, or Hummingbird has not finished the requests passed to it before a
/// `POST /rpc`, what arrives next is held and reading paused once something is held, so what is
/// held is at most what one read had decoded.
///
/// At a stop (Hummingbird's quiesce event) the connection closes once it is quiet: every request
/// read has been answered, and one more read found nothing within `quietPeriod` (reading may have
/// been paused with requests the client sent before the signal still in the kernel). The event
/// then goes on to Hummingbird's connection state handler, which closes the connection, at once
/// or after a request it is answering. A client that keeps sending cannot hold the stop past
/// `stopDeadline`: the connection is closed then, answered or not. A client's half-close is
/// held the same way until what it sent is answered.
final class DirectRPCHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// One `POST /rpc` being read or answered.
    private struct Exchange {
        let head: HTTPRequest
        var body: ByteBuffer
        var bearer: BearerCheck?
        var ended = false
        /// Its bearer is being checked on its own (the request had not ended when it began).
        var checking = false
    }

    private enum Mode {
        case idle
        /// Passing a request to Hummingbird, up to its end.
        case passing
        /// Reading a `POST /rpc` (its bearer being checked until `bearer` is set).
        case reading(Exchange)
        /// The RPC server is answering; nothing more is read until the reply is written.
        case answering
        /// A refusal went before its body was read: the connection closes after it (the rest
        /// of the body is not read to find where a next request would start).
        case discarding
    }

    private let transport: HTTPTransport
    private var context: ChannelHandlerContext?
    private var mode = Mode.idle
    /// Requests passed to Hummingbird whose response has not ended.
    private var passedOn = 0
    /// Parts that arrived while earlier requests were still being answered, in order.
    private var held: [HTTPRequestPart] = []
    private var heldFrom = 0
    /// A read was asked for while reading was paused.
    private var readWanted = false
    /// When the stop was asked for; nil while serving.
    private var stopAsked: NIODeadline?
    /// Parts read since the last quiet check began.
    private var partsSinceCheck = 0
    private var quietCheckRunning = false
    /// The client's half-close, held until the answers owed are sent.
    private var inputClosedHeld = false

    static let quietPeriod = TimeAmount.milliseconds(50)
    static let stopDeadline = TimeAmount.seconds(10)

    init(transport: HTTPTransport) {
        self.transport = transport
    }

    /// Whether this handler answers the request. One asking for an upgrade is Hummingbird's: none
    /// should arrive (`HTTPRequestGuard` takes `Upgrade` off all but a GET handshake), and the
    /// check keeps a request from ever being answered by both.
    static func answers(_ head: HTTPRequest) -> Bool {
        guard head.method == .post, let path = head.path, head.headerFields.value(of: .upgrade) == nil else { return false }
        return path == "/rpc" || path.hasPrefix("/rpc?")
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.context = nil
        held = []
        heldFrom = 0
        context.fireChannelInactive()
    }

    // MARK: - requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        partsSinceCheck += 1
        if heldFrom == held.count, canTake(part) {
            _ = take(part, context: context)
        } else {
            held.append(part)
        }
    }

    /// Whether `part` can be dealt with now, or must wait for what came before it to be answered.
    private func canTake(_ part: HTTPRequestPart) -> Bool {
        switch mode {
        case .idle:
            if case .head(let head) = part, Self.answers(head) { return passedOn == 0 }
            return true
        case .passing, .discarding: return true
        case .reading(let exchange): return !exchange.ended
        case .answering: return false
        }
    }

    /// Deals with `part`; true when it was passed on to Hummingbird.
    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) -> Bool {
        switch mode {
        case .discarding:
            return false
        case .passing:
            if case .end = part { mode = .idle }
            context.fireChannelRead(wrapInboundOut(part))
            return true
        case .idle:
            guard case .head(let head) = part, Self.answers(head) else {
                if case .head(let head) = part {
                    // Nothing of Hummingbird's is owed before it (`passedOn` is 0), so a 100 sent
                    // here comes before its answer; behind another, the client waits its own time.
                    if passedOn == 0, Self.hasContent(head) { continueIfExpected(head) }
                    passedOn += 1
                    mode = .passing
                }
                context.fireChannelRead(wrapInboundOut(part))
                return true
            }
            begin(head, context: context)
            return false
        case .reading(var exchange):
            mode = .answering  // not kept: the exchange is moved out while it changes
            switch part {
            case .head:
                // A decoder never sends a head inside a request; refused rather than trusted.
                refuse(RPCHTTPReply.json(.badRequest, RPCErrorBody.line(code: .invalidRequest, message: "Bad Request")), to: exchange, ended: false)
            case .body(var buffer):
                guard exchange.body.readableBytes + buffer.readableBytes <= transport.maxBodyBytes else {
                    refuse(transport.rpcTooLarge, to: exchange, ended: false)
                    return false
                }
                // A body in one part (the usual case) is kept as it came, not copied.
                if exchange.body.readableBytes == 0 { exchange.body = buffer } else { exchange.body.writeBuffer(&buffer) }
                mode = .reading(exchange)
            case .end:
                exchange.ended = true
                mode = .reading(exchange)
                if exchange.bearer != nil { answer(exchange) }
            }
            return false
        case .answering:
            assertionFailure("a part taken while answering")
            return false
        }
    }

    private func begin(_ head: HTTPRequest, context: ChannelHandlerContext) {
        let exchange = Exchange(head: head, body: context.channel.allocator.buffer(capacity: 0))
        if let refusal = transport.rpcRefusal(head.headerFields) {
            refuse(refusal, to: exchange, ended: false)
            return
        }
        guard HTTPTransport.bearer(head.headerFields) != nil else {
            mode = .reading(exchange)
            bearerChecked(.absent)
            return
        }
        // Checked once what this read brought is dealt with (`checkBearerIfDue`); reading
        // pauses until then, so a wrong bearer is answered before more of its body is held.
        mode = .reading(exchange)
    }

    /// Starts the bearer's check of the request being read, at the end of a read. A request
    /// that has ended by then (the usual case: a head and a small body in one read) is checked
    /// and answered in one task, one hop from the event loop and back; one whose body is still
    /// to come is checked first, on its own, and reading waits for the answer.
    private func checkBearerIfDue() {
        guard case .reading(var exchange) = mode, exchange.bearer == nil, !exchange.checking, let context else { return }
        guard !exchange.ended else { return answer(exchange) }
        exchange.checking = true
        mode = .reading(exchange)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        let transport = transport
        let headers = exchange.head.headerFields
        transport.inFlight.started()
        Task {
            defer { transport.inFlight.ended() }
            let check = await transport.rpcBearer(headers, channel: channel)
            channel.eventLoop.execute { handler.value.bearerChecked(check) }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        checkBearerIfDue()
        context.fireChannelReadComplete()
    }

    private func bearerChecked(_ check: BearerCheck) {
        guard case .reading(var exchange) = mode else { return }
        if case .refused(let refusal) = check {
            refuse(refusal, to: exchange, ended: exchange.ended)
            return
        }
        if transport.rpcLengthExceedsLimit(exchange.head.headerFields) {
            refuse(transport.rpcTooLarge, to: exchange, ended: exchange.ended)
            return
        }
        exchange.bearer = check
        mode = .reading(exchange)
        if exchange.ended {
            answer(exchange)
        } else {
            continueIfExpected(exchange.head)
            readIfWanted()
        }
    }

    /// Whether a body follows the head (a 100 is owed only for one).
    private static func hasContent(_ head: HTTPRequest) -> Bool {
        head.headerFields.value(of: .transferEncoding) != nil || (head.headerFields.value(of: .contentLength).flatMap(Int.init) ?? 0) > 0
    }

    /// RFC 9110 10.1.1: a client that sent `Expect: 100-continue` waits for a 100 before it sends
    /// the body (curl a second, then sends it anyway). A `POST /rpc` gets it once the head's
    /// checks passed: one refused by its head gets its final answer instead, and its body is
    /// never sent. A request for Hummingbird's routes gets it as it is passed on (the route reads
    /// the body, bounded as any other, before it answers).
    private func continueIfExpected(_ head: HTTPRequest) {
        guard let context, let expect = head.headerFields.value(of: .expect), expect.lowercased() == "100-continue" else { return }
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
    }

    /// Answers a request read whole; one whose bearer is still unchecked has it checked first,
    /// in the same task.
    private func answer(_ exchange: Exchange) {
        guard let context else { return }
        mode = .answering
        // (A body shorter than its Content-Length never gets here: the decoder ends a request
        // only at its length, and a connection closed first is dropped with what it sent.)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        let transport = transport
        let head = exchange.head
        let body = exchange.body
        let checked = exchange.bearer
        transport.inFlight.started()
        Task {
            defer { transport.inFlight.ended() }
            // A bearer checked here is refused, or a body too large said, as `bearerChecked` would.
            let check: BearerCheck
            if let checked { check = checked } else { check = await transport.rpcBearer(head.headerFields, channel: channel) }
            let reply: RPCHTTPReply
            if case .refused(let refusal) = check {
                reply = refusal
            } else if checked == nil, transport.rpcLengthExceedsLimit(head.headerFields) {
                reply = transport.rpcTooLarge
            } else {
                reply = await transport.rpcAnswer(body, headers: head.headerFields, login: check.login)
            }
            channel.eventLoop.execute { handler.value.respond(reply, to: head) }
        }
    }

    /// A refusal. Sent before the request's end, it closes the connection after it: the rest of
    /// the body is not read to find where a next request would start. (Said here, not left to
    /// `HTTPRequestGuard`: a request taken from `held` was decoded whole long before.)
    private func refuse(_ reply: RPCHTTPReply, to exchange: Exchange, ended: Bool) {
        guard let context else { return }
        mode = .answering
        guard !ended else { return respond(reply, to: exchange.head) }
        writeThenClose(reply, context: context)
    }

    /// Writes the reply, then takes up what waited behind it.
    private func respond(_ reply: RPCHTTPReply, to head: HTTPRequest) {
        guard let context, case .answering = mode else { return }
        if head.headerFields.asksToClose {
            return writeThenClose(reply, context: context)
        }
        write(reply, context: context)
        context.flush()
        mode = .idle
        takeHeld(context: context)
    }

    /// The last reply of the connection, saying so; nothing more is read.
    private func writeThenClose(_ reply: RPCHTTPReply, context: ChannelHandlerContext) {
        mode = .discarding
        var closing = reply
        closing.headers[.connection] = "close"
        let written = context.eventLoop.makePromise(of: Void.self)
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        write(closing, context: context, ended: written)
        context.flush()
    }

    private func write(_ reply: RPCHTTPReply, context: ChannelHandlerContext, ended: EventLoopPromise<Void>? = nil) {
        var headers = reply.headers
        headers[.contentLength] = String(reply.body.readableBytes)
        headers[.date] = HTTPDate.now
        context.write(wrapOutboundOut(.head(HTTPResponse(status: reply.status, headerFields: headers))), promise: nil)
        if reply.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(reply.body)), promise: nil) }
        context.write(wrapOutboundOut(.end(nil)), promise: ended)
    }

    /// Deals with held parts in order, as far as the mode allows.
    private func takeHeld(context: ChannelHandlerContext) {
        var passed = false
        while heldFrom < held.count, canTake(held[heldFrom]) {
            let part = held[heldFrom]
            heldFrom += 1
            passed = take(part, context: context) || passed
        }
        if heldFrom == held.count {
            held.removeAll(keepingCapacity: true)
            heldFrom = 0
        }
        // Hummingbird's channel hands what it was given to its task at the end of a read.
        if passed { context.fireChannelReadComplete() }
        checkBearerIfDue()
        readIfWanted()
        releaseInputClosed()
        closeWhenQuiet()
    }

    // MARK: - the stop

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, !isQuiet {
            // The client sent its last byte (a half-close): Hummingbird would end the connection
            // on it, and with it the answers still owed. It hears of it once they are sent.
            inputClosedHeld = true
            return
        }
        guard event is ChannelShouldQuiesceEvent, stopAsked == nil else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        stopAsked = .now()
        // A client that keeps sending, or a request that does not end, cannot hold the stop.
        let channel = context.channel
        context.eventLoop.scheduleTask(in: Self.stopDeadline) { channel.close(promise: nil) }
        closeWhenQuiet()
    }

    /// Passes on what waited for the connection to be quiet: the client's half-close.
    private func releaseInputClosed() {
        guard inputClosedHeld, isQuiet, let context else { return }
        inputClosedHeld = false
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    private var isQuiet: Bool {
        guard case .idle = mode else { return false }
        return passedOn == 0 && heldFrom == held.count
    }

    /// Once stopping and quiet: one more read, and if it brings nothing within `quietPeriod`, the
    /// stop goes on to Hummingbird's handler, which closes the connection.
    private func closeWhenQuiet() {
        guard stopAsked != nil, !quietCheckRunning, isQuiet, let context else { return }
        quietCheckRunning = true
        partsSinceCheck = 0
        readWanted = false
        context.read()
        context.eventLoop.assumeIsolated().scheduleTask(in: Self.quietPeriod) { [weak self] in
            guard let self, let context = self.context else { return }
            self.quietCheckRunning = false
            if self.partsSinceCheck == 0, self.isQuiet {
                context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
            } else {
                self.closeWhenQuiet()
            }
        }
    }

    // MARK: - reads and Hummingbird's responses

    /// Reading goes on while a request is answered and nothing is held: a keep-alive client
    /// sends its next request after the reply, so pausing would only turn the socket's read
    /// interest off and on again (two `epoll_ctl`s a request). What a read brings meanwhile is
    /// held, and then reading pauses.
    private var readingPaused: Bool {
        if heldFrom < held.count { return true }
        switch mode {
        case .answering, .idle, .passing, .discarding: return false
        case .reading(let exchange): return exchange.ended || exchange.bearer == nil
        }
    }

    func read(context: ChannelHandlerContext) {
        if readingPaused {
            readWanted = true
        } else {
            context.read()
        }
    }

    private func readIfWanted() {
        guard readWanted, !readingPaused, let context else { return }
        readWanted = false
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
        guard case .end = unwrapOutboundIn(data) else { return }
        passedOn = max(0, passedOn - 1)
        if passedOn == 0, heldFrom < held.count || stopAsked != nil || inputClosedHeld {
            // Taken up after this write returns, not inside it.
            context.eventLoop.assumeIsolated().execute { [weak self] in
                guard let self, let context = self.context else { return }
                self.takeHeld(context: context)
            }
        }
    }
}

/// The `Date` header's value, formatted at most once a second.
enum HTTPDate {
    private static let cached = Mutex<(second: Int, text: String)>((-1, ""))

    static var now: String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let second = spec.tv_sec
        return cached.withLock { cache in
            if cache.second == second { return cache.text }
            cache = (second, format(second))
            return cache.text
        }
    }

    static func format(_ second: Int) -> String {
        var time = second
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
