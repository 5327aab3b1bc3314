import NIOCore
import NIOPosix

/// The built-in transport: a Unix domain socket or a TCP connection through SwiftNIO, framed
/// into lines by `LineSplitter` with the configured limit.
///
/// Received lines wait in a queue on the channel's event loop until the client's reader takes
/// them; the client's reader takes each line as it comes, and the server sends one reply per
/// request, so the queue holds at most the replies to the requests in flight.
final class SocketTransport: PlatformTransport {
    private let channel: any Channel
    private let receiver: NIOLoopBound<LineReceiver>

    private init(channel: any Channel, receiver: NIOLoopBound<LineReceiver>) {
        self.channel = channel
        self.receiver = receiver
    }

    static func connect(
        to endpoint: PlatformClient.Endpoint, maxLineBytes: Int, connectTimeout: Duration
    ) async throws -> SocketTransport {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(connectTimeout))
        let initializer: @Sendable (any Channel) -> EventLoopFuture<SocketTransport> = { channel in
            channel.eventLoop.makeCompletedFuture {
                let receiver = LineReceiver()
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder(maxLineBytes: maxLineBytes)))
                try channel.pipeline.syncOperations.addHandler(receiver)
                return SocketTransport(channel: channel, receiver: NIOLoopBound(receiver, eventLoop: channel.eventLoop))
            }
        }
        switch endpoint {
        case .unix(let path):
            return try await bootstrap.connect(unixDomainSocketPath: path, channelInitializer: initializer)
        case .tcp(let host, let port):
            return try await bootstrap.connect(host: host, port: port, channelInitializer: initializer)
        }
    }

    func send(_ line: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: line))
    }

    func receiveLine() async throws -> [UInt8]? {
        let receiver = self.receiver
        return try await channel.eventLoop.flatSubmit { receiver.value.next(on: receiver.eventLoop) }.get()
    }

    func close() async throws {
        do {
            try await channel.close()
        } catch ChannelError.alreadyClosed {
            // Closed by the server, or by an earlier close.
        }
    }
}

/// Frames the bytes of a connection into lines (without their line ending).
private struct LineDecoder: ByteToMessageDecoder {
    typealias InboundOut = [UInt8]

    var splitter: LineSplitter

    init(maxLineBytes: Int) {
        splitter = LineSplitter(maxLineBytes: maxLineBytes)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard buffer.readableBytes > 0 else { return .needMoreData }
        splitter.append(buffer.readableBytesView)
        buffer.moveReaderIndex(to: buffer.writerIndex)
        while let line = try splitter.nextLine() {
            context.fireChannelRead(wrapInboundOut(line))
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        _ = try decode(context: context, buffer: &buffer)
        // A last line without its newline is still a line, as the server reads its input.
        if seenEOF, let last = splitter.remainder(), !last.isEmpty {
            context.fireChannelRead(wrapInboundOut(last))
        }
        return .needMoreData
    }
}

/// Holds received lines until `next` takes them; remembers how the connection ended. Lives on the
/// channel's event loop.
private final class LineReceiver: ChannelInboundHandler {
    typealias InboundIn = [UInt8]

    private var lines = CircularBuffer<[UInt8]>()
    /// Set once the connection ended: nil error for a clean close.
    private var ended: (any Error)??
    private var waiter: EventLoopPromise<[UInt8]?>?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        if let waiter {
            self.waiter = nil
            waiter.succeed(line)
        } else {
            lines.append(line)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tooLong = error as? LineSplitter.LineTooLong {
            finish(PlatformClientError(.invalidReply, "A reply line is longer than \(tooLong.limit) bytes.", underlying: tooLong))
        } else {
            finish(error)
        }
        context.close(promise: nil)
    }

    /// The next line, or nil after a clean end, or the error the connection ended with.
    func next(on eventLoop: any EventLoop) -> EventLoopFuture<[UInt8]?> {
        if let line = lines.popFirst() { return eventLoop.makeSucceededFuture(line) }
        if let ended {
            if let error = ended { return eventLoop.makeFailedFuture(error) }
            return eventLoop.makeSucceededFuture(nil)
        }
        precondition(waiter == nil, "receiveLine called from two tasks at once")
        let promise = eventLoop.makePromise(of: [UInt8]?.self)
        waiter = promise
        return promise.futureResult
    }

    private func finish(_ error: (any Error)?) {
        guard ended == nil else { return }
        ended = .some(error)
        if let waiter {
            self.waiter = nil
            if let error { waiter.fail(error) } else { waiter.succeed(nil) }
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (nanos, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self = .nanoseconds(overflow ? .max : nanos.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue)
    }
}
