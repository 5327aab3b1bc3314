import Dispatch
import Logging
import NIOCore
import NIOPosix
import PlatformCore
import PlatformServer
import PlatformStorage
import ServiceLifecycle
import Synchronization

/// Where a socket server listens.
package enum SocketEndpoint: Sendable, CustomStringConvertible {
    case unix(path: String)
    case tcp(host: String, port: Int)

    /// Parses `HOST:PORT`, `:PORT` or `PORT` (host 127.0.0.1), and `[v6]:PORT`.
    package static func tcp(_ text: String) -> SocketEndpoint? {
        let host: Substring
        let port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            port = rest.dropFirst()
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            host = ""
            port = text[...]
        }
        guard let number = Int(port), (0...65_535).contains(number), !host.contains(":") || text.hasPrefix("[") else {
            return nil
        }
        return .tcp(host: host.isEmpty ? "127.0.0.1" : String(host), port: number)
    }

    /// The `transport` label of its requests' metrics.
    var transport: String {
        switch self {
        case .unix: "unix"
        case .tcp: "tcp"
        }
    }

    package var description: String {
        switch self {
        case .unix(let path): "unix \(path)"
        case .tcp(let host, let port): "tcp \(host.contains(":") ? "[\(host)]" : host):\(port)"
        }
    }
}

/// Line-framed JSON-RPC over a Unix or TCP socket: many concurrent connections, requests on one
/// connection handled in order. A graceful shutdown (a signal) closes the listener and each
/// connection's input, answers the lines already read, and returns once every connection is done.
package struct SocketTransport: Service {
    package init(server: RPCServer, endpoint: SocketEndpoint, limits: Limits, requireLogin: Bool, budget: PartialLineBudget, logger: Logger) {
        self.server = server
        self.endpoint = endpoint
        self.limits = limits
        self.requireLogin = requireLogin
        self.budget = budget
        self.logger = logger
    }

    let server: RPCServer
    let endpoint: SocketEndpoint
    let limits: Limits
    /// Whether connections start logged out (TCP's default) or as admin.
    let requireLogin: Bool
    /// Bytes held for partial lines, shared with HTTP's bodies being read (`--max-buffered-bytes`).
    let budget: PartialLineBudget
    let logger: Logger

    /// What one host allows its clients.
    package struct Limits: Sendable {
        var maxLineBytes = 1 << 20
        /// Connections beyond this many are closed as soon as they are accepted.
        var maxConnections = 1024
        /// A connection that sends nothing for this long is closed.
        var idleTimeout: TimeAmount = .seconds(300)
        /// A connection still sending one line after this long is closed (a slow-drip client).
        var lineTimeout: TimeAmount = .seconds(60)

        package init(maxLineBytes: Int = 1 << 20, maxConnections: Int = 1024, idleTimeout: TimeAmount = .seconds(300), lineTimeout: TimeAmount = .seconds(60)) {
            self.maxLineBytes = maxLineBytes
            self.maxConnections = maxConnections
            self.idleTimeout = idleTimeout
            self.lineTimeout = lineTimeout
        }
    }

    var maxLineBytes: Int { limits.maxLineBytes }

    /// Connections waiting to be accepted; a burst of connects queues instead of being refused.
    static let backlog: Int32 = 4096

    /// At a stop, a connection whose client sent nothing for this long has its input closed.
    static let quietPeriod = TimeAmount.milliseconds(200)
    /// How long a stop waits for connections to take their last replies before closing them.
    static let stopDeadline = TimeAmount.seconds(10)

    struct StartupError: Error, CustomStringConvertible {
        var description: String
    }

    package func run() async throws {
        if case .unix(let path) = endpoint { try await UnixSocketFile.prepare(path) }
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: Self.backlog)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let limit = maxLineBytes
        let idle = limits.idleTimeout
        let lineTimeout = limits.lineTimeout
        let budget = budget
        let unclaimed = UnclaimedConnections()
        let initializer: @Sendable (any Channel) -> EventLoopFuture<Connection> = { channel in
            channel.eventLoop.makeCompletedFuture {
                let activity = ReadActivity(lineTimeout: lineTimeout)
                try channel.pipeline.syncOperations.addHandler(activity)
                try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idle))
                try channel.pipeline.syncOperations.addHandler(CloseWhenIdle())
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limit, budget: budget)))
                try channel.pipeline.syncOperations.addHandler(FrameCounter(activity))
                let async = try NIOAsyncChannel<LineFramer.Frame, ByteBuffer>(wrappingChannelSynchronously: channel)
                let connection = Connection(channel: channel, async: async, activity: activity, budget: budget)
                unclaimed.add(connection)
                return connection
            }
        }
        let listener: NIOAsyncChannel<Connection, Never>
        switch endpoint {
        case .unix(let path):
            // Created 0600: with no login needed by default, only this user may connect.
            let previous = umask(0o177)
            defer { umask(previous) }
            listener = try await bootstrap.bind(unixDomainSocketPath: path, childChannelInitializer: initializer)
        case .tcp(let host, let port):
            listener = try await bootstrap.bind(host: host, port: port, childChannelInitializer: initializer)
        }
        logger.notice("listening on \(describe(listener.channel.localAddress))")

        let registry = ConnectionRegistry()
        // A shutdown that came while binding runs this handler at once.
        try await withGracefulShutdownHandler {
            try await listener.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        unclaimed.claim(connection.channel)
                        group.addTask { await serve(connection, registry: registry) }
                    }
                }
            }
        } onGracefulShutdown: { [logger] in
            logger.info("stopping: closing the listener, answering what was sent")
            listener.channel.close(promise: nil)
            // Each connection keeps being read until its client has gone quiet (nothing received
            // for `quietPeriod`), so every request sent before the signal is still read, however
            // busy the machine; then its input is closed and the lines read are all answered. A
            // client that keeps sending, or never reads its replies, cannot hold the stop up:
            // after the deadline its connection is closed outright.
            for (channel, activity) in registry.stop() {
                Self.closeInputWhenQuiet(channel, activity, deadline: .now() + Self.stopDeadline)
            }
        }
        // A connection accepted while the listener closed never reached the loop above: closed
        // here, through its wrapper (dropping the wrapper unclosed would stop the process).
        try? await listener.channel.closeFuture.get()
        for connection in unclaimed.takeAll() {
            try? await connection.async.executeThenClose { _, _ in }
        }
        if case .unix(let path) = endpoint { UnixSocketFile.remove(path) }
    }

    /// A quiet connection is asked for one more read before its input closes: a connection whose
    /// reads were paused (its handler was behind) may have bytes in the kernel that no read has
    /// fetched yet, though its client sent them before the signal. The read runs on the event
    /// loop before the next check, so a check that still finds it quiet found nothing there.
    static func closeInputWhenQuiet(_ channel: any Channel, _ activity: ReadActivity, deadline: NIODeadline) {
        @Sendable func check(asked: Bool) {
            if activity.isQuiet(for: quietPeriod) {
                guard asked else {
                    channel.read()
                    channel.eventLoop.scheduleTask(in: .milliseconds(20)) { check(asked: true) }
                    return
                }
                channel.close(mode: .input).whenFailure { _ in channel.close(promise: nil) }
                channel.eventLoop.scheduleTask(deadline: deadline) { channel.close(promise: nil) }
            } else if NIODeadline.now() >= deadline {
                channel.close(promise: nil)
            } else {
                channel.eventLoop.scheduleTask(in: .milliseconds(50)) { check(asked: false) }
            }
        }
        channel.eventLoop.execute { check(asked: false) }
    }

    struct Connection: Sendable {
        let channel: any Channel
        let async: NIOAsyncChannel<LineFramer.Frame, ByteBuffer>
        let activity: ReadActivity
        let budget: PartialLineBudget
    }

    func serve(_ connection: Connection, registry: ConnectionRegistry) async {
        let id = ObjectIdentifier(connection.channel)
        defer {
            registry.remove(id)
            connection.budget.release(connection.channel)
        }
        do {
            try await connection.async.executeThenClose { inbound, _ in
                switch registry.add(id, connection.channel, connection.activity, limit: limits.maxConnections) {
                case .added: break
                case .stopping: return
                case .full(let open):
                    // Once per burst, not once per connection: a flood must not flood the log too.
                    if let refused = registry.refusalToReport() {
                        logger.notice("refused \(refused) connection(s): \(open) are open, the limit (--max-connections)")
                    }
                    return
                }
                let label = "\(registry.nextLabel())"
                let state = ConnectionState.opened(requireLogin: requireLogin, label: label, transport: endpoint.transport)
                PlatformMetrics.connectionOpened(transport: endpoint.transport)
                defer { PlatformMetrics.connectionClosed(transport: endpoint.transport) }
                try await answer(inbound, on: connection, state: state, label: label)
            }
        } catch {
            logger.debug("connection ended: \(error)")
        }
    }

    /// Answers a connection's lines in order, each reply handed to NIO as it is made. Replies are
    /// not waited for while the channel is writable (that would cost a thread hand-off per
    /// request); a client that does not read its replies stops being read (past NIO's
    /// high-water mark the write is waited for). The last reply is waited for before returning,
    /// also when reading ended in an error, so closing the connection never drops one.
    func answer(
        _ inbound: NIOAsyncChannelInboundStream<LineFramer.Frame>, on connection: Connection, state: ConnectionState, label: String
    ) async throws {
        var unconfirmed: EventLoopFuture<Void>?
        do {
            for try await frame in inbound {
                // A write failed (the client is gone): what it sent since is not run.
                guard connection.channel.isActive else { break }
                let reply: [UInt8]?
                switch frame {
                case .line(let line):
                    logger.trace("handling a \(line.count)-byte line", metadata: ["connection": "\(label)"])
                    reply = await server.replyBytes(to: line, connection: state)
                case .tooLong: reply = RPCServer.tooLarge(limit: maxLineBytes, transport: endpoint.transport)
                }
                if let reply {
                    var buffer = connection.channel.allocator.buffer(capacity: reply.count + 1)
                    buffer.writeBytes(reply)
                    buffer.writeInteger(UInt8(0x0A))
                    let written = connection.channel.eventLoop.makePromise(of: Void.self)
                    connection.channel.writeAndFlush(buffer, promise: written)
                    if connection.channel.isWritable {
                        unconfirmed = written.futureResult
                    } else {
                        try await written.futureResult.get()
                        unconfirmed = nil
                    }
                }
                connection.activity.answered.add(1, ordering: .relaxed)
                logger.trace("answered a line", metadata: ["connection": "\(label)", "replied": "\(reply != nil)"])
            }
        } catch {
            try? await unconfirmed?.get()
            throw error
        }
        try await unconfirmed?.get()
    }

    func describe(_ address: SocketAddress?) -> String {
        guard let address else { return endpoint.description }
        switch address {
        case .unixDomainSocket: return endpoint.description
        default: return "tcp \(address.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "?"):\(address.port ?? 0)"
        }
    }
}

/// Connections accepted but not yet taken by the accept loop. NIO wraps each in its initializer,
/// before the listener's stream hands it over; one accepted while the listener closes is never
/// handed over, and a wrapper released without `executeThenClose` is a precondition failure in
/// NIO (its writer was never finished). Held here until claimed, or closed after the listener.
final class UnclaimedConnections: Sendable {
    private let connections = Mutex<[ObjectIdentifier: SocketTransport.Connection]>([:])

    func add(_ connection: SocketTransport.Connection) {
        connections.withLock { $0[ObjectIdentifier(connection.channel)] = connection }
    }

    func claim(_ channel: any Channel) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func takeAll() -> [SocketTransport.Connection] {
        connections.withLock { connections in
            defer { connections = [:] }
            return Array(connections.values)
        }
    }
}

/// The open connections, so that a stop can close their input.
final class ConnectionRegistry: Sendable {
    private struct State {
        var stopping = false
        var accepted = 0
        var refusedSinceReport = 0
        var lastReport: ContinuousClock.Instant?
        var open: [ObjectIdentifier: (any Channel, ReadActivity)] = [:]
    }

    private let state = Mutex(State())

    enum Admission {
        case added, stopping
        /// Refused: this many are open already.
        case full(Int)
    }

    /// Registers a connection unless the server is stopping or `limit` are open already.
    func add(_ id: ObjectIdentifier, _ channel: any Channel, _ activity: ReadActivity, limit: Int) -> Admission {
        state.withLock { state in
            guard !state.stopping else { return .stopping }
            guard state.open.count < limit else { return .full(state.open.count) }
            state.open[id] = (channel, activity)
            return .added
        }
    }

    func remove(_ id: ObjectIdentifier) {
        state.withLock { _ = $0.open.removeValue(forKey: id) }
    }

    /// The refusals to report now (at most one line every 10 s), or nil to stay quiet.
    func refusalToReport() -> Int? {
        state.withLock { state in
            state.refusedSinceReport += 1
            let now = ContinuousClock.now
            if let last = state.lastReport, now - last < .seconds(10) { return nil }
            defer {
                state.refusedSinceReport = 0
                state.lastReport = now
            }
            return state.refusedSinceReport
        }
    }

    /// A number for log lines, never reused while the server runs.
    func nextLabel() -> Int {
        state.withLock { state in
            state.accepted += 1
            return state.accepted
        }
    }

    /// Starts stopping; returns the open connections.
    func stop() -> [(any Channel, ReadActivity)] {
        state.withLock { state in
            state.stopping = true
            return Array(state.open.values)
        }
    }
}

/// What a connection has received and answered, so a stop can tell a client that has gone quiet
/// (everything it sent is read and answered) from one whose bytes wait behind a busy handler;
/// and how long its current line has been in the making, so a client that dribbles a line out
/// byte by byte (never idle, never done) is closed after the line timeout.
final class ReadActivity: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let lastReadNanos = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)
    /// When the line now being received began (0: none is pending).
    private let partialSinceNanos = Atomic<UInt64>(0)
    let lineTimeoutNanos: UInt64
    /// Lines framed from the input, and lines answered (or found to need no answer).
    let framed = Atomic<Int>(0)
    let answered = Atomic<Int>(0)

    init(lineTimeout: TimeAmount) {
        lineTimeoutNanos = UInt64(max(1, lineTimeout.nanoseconds))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = DispatchTime.now().uptimeNanoseconds
        lastReadNanos.store(now, ordering: .relaxed)
        let bytes = unwrapInboundIn(data)
        let endsLine = bytes.readableBytesView.last == UInt8(ascii: "\n")
        let sawNewline = endsLine || bytes.readableBytesView.contains(UInt8(ascii: "\n"))
        let since = partialSinceNanos.load(ordering: .relaxed)
        if since != 0, !sawNewline, now &- since > lineTimeoutNanos {
            context.close(promise: nil)
            return
        }
        // A chunk that ends mid-line starts (or, with no newline, continues) a partial line.
        partialSinceNanos.store(endsLine ? 0 : (sawNewline || since == 0 ? now : since), ordering: .relaxed)
        context.fireChannelRead(data)
    }

    /// Nothing received for `period`, and every line received is answered.
    func isQuiet(for period: TimeAmount) -> Bool {
        let idle = DispatchTime.now().uptimeNanoseconds &- lastReadNanos.load(ordering: .relaxed)
        return idle >= UInt64(max(0, period.nanoseconds))
            && framed.load(ordering: .relaxed) == answered.load(ordering: .relaxed)
    }
}

/// Counts the lines a connection's decoder produces.
final class FrameCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = LineFramer.Frame
    typealias InboundOut = LineFramer.Frame
    let activity: ReadActivity

    init(_ activity: ReadActivity) { self.activity = activity }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        activity.framed.add(1, ordering: .relaxed)
        context.fireChannelRead(data)
    }
}

/// Closes a connection that has sent nothing for the idle timeout.
final class CloseWhenIdle: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Frames a connection's bytes into lines with the size limit, by `LineFramer`'s rules. The bytes
/// of a line not yet whole stay in NIO's buffer, searched once; a whole line is read out of it
/// once; the bytes of an over-long line are dropped as they come.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = LineFramer.Frame

    var scanner: LineFramer.Scanner
    /// Where the bytes a partial line holds are counted, over all connections.
    let budget: PartialLineBudget?
    /// What this connection last reported to `budget`, so a connection whose lines arrive whole
    /// (holding nothing, again and again) never takes the budget's lock.
    var reported = 0

    init(maxLineBytes: Int, budget: PartialLineBudget? = nil) {
        scanner = LineFramer.Scanner(maxLineBytes: maxLineBytes)
        self.budget = budget
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let step = buffer.withUnsafeReadableBytes { scanner.next($0) }
        if case .needMore = step {
            // The buffer's capacity, not only its readable bytes: that is what the process keeps.
            report(buffer.readableBytes > 0 ? buffer.capacity : 0, on: context.channel)
            return .needMoreData
        }
        if let frame = Self.take(step, from: &buffer) { context.fireChannelRead(wrapInboundOut(frame)) }
        if buffer.readableBytes == 0 { report(0, on: context.channel) }
        return .continue
    }

    mutating func report(_ bytes: Int, on channel: any Channel) {
        guard let budget, bytes != reported else { return }
        reported = bytes
        budget.hold(bytes, on: channel)
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        if try decode(context: context, buffer: &buffer) == .continue { return .continue }
        // End of input: a last line without a newline is still a line.
        if seenEOF, let step = buffer.withUnsafeReadableBytes({ scanner.finish($0) }),
            let frame = Self.take(step, from: &buffer)
        {
            context.fireChannelRead(wrapInboundOut(frame))
        }
        // The connection's buffer goes with it.
        if seenEOF { report(0, on: context.channel) }
        return .needMoreData
    }

    /// Consumes the bytes `step` is done with; returns its frame, the line read out of `buffer`.
    static func take(_ step: LineFramer.Scanner.Step, from buffer: inout ByteBuffer) -> LineFramer.Frame? {
        switch step {
        case .line(let length, let consumed):
            let line = buffer.readBytes(length: length)!
            buffer.moveReaderIndex(forwardBy: consumed - length)
            return .line(line)
        case .tooLong(let consumed):
            buffer.moveReaderIndex(forwardBy: consumed)
            return .tooLong
        case .skip(let consumed):
            buffer.moveReaderIndex(forwardBy: consumed)
            return nil
        case .needMore:
            return nil
        }
    }
}

/// A Unix socket path left by a crashed run is replaced; one a live server answers on is not.
enum UnixSocketFile {
    static func prepare(_ path: String) async throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw SocketTransport.StartupError(description: "\(path) exists and is not a socket; not replacing it")
        }
        let live: Bool
        do {
            let probe = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path).get()
            try? await probe.close()
            live = true
        } catch {
            live = false
        }
        if live {
            throw SocketTransport.StartupError(description: "another server is listening on \(path)")
        }
        remove(path)
    }

    static func remove(_ path: String) {
        _ = unlink(path)
    }
}
