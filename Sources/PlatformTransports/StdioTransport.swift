import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Requests on stdin, replies on stdout, handled one at a time so replies keep request order.
/// Returns at EOF on stdin; a graceful shutdown (a signal) makes it answer what was already sent
/// on stdin, then return.
package struct StdioTransport: Service {
    package init(
        server: RPCServer, maxLineBytes: Int, requireLogin: Bool = false, logger: Logger, notifications: (@Sendable () async -> [[UInt8]])? = nil,
        transport: String = "stdio"
    ) {
        self.server = server
        self.maxLineBytes = maxLineBytes
        self.requireLogin = requireLogin
        self.logger = logger
        self.notifications = notifications
        self.transport = transport
    }

    let server: RPCServer
    let maxLineBytes: Int
    /// With `--auth required` even the parent process must log in; by default it is trusted (admin).
    var requireLogin = false
    let logger: Logger
    /// Lines a request's handling queued, written before its reply: an MCP server's
    /// notifications (`platformd mcp`), so the client knows of a change when it reads the result.
    var notifications: (@Sendable () async -> [[UInt8]])? = nil
    /// The `transport` label of its requests' metrics: `stdio`, or `mcp` for `platformd mcp`.
    var transport = "stdio"

    package func run() async {
        let connection = ConnectionState.opened(requireLogin: requireLogin, label: "stdio", transport: transport)
        let (frames, continuation) = AsyncStream<LineFramer.Frame>.makeStream()
        // A stop wakes the reader through this pipe, so it can take what was already sent first.
        var wake: [Int32] = [0, 0]
        guard pipe(&wake) == 0 else {
            logger.critical("cannot create a pipe: errno \(errno)")
            return
        }
        // At most this many lines wait for the handler: a client that pipes in a huge file is
        // read as fast as it is answered, not buffered whole. Only the reader thread below waits
        // on it (a thread of its own, made for blocking reads); the request loop only signals.
        let room = DispatchSemaphore(value: 64)
        let reader = Thread { [maxLineBytes, wake] in
            var framer = LineFramer(maxLineBytes: maxLineBytes)
            func take(_ count: Int, from chunk: [UInt8]) {
                for frame in framer.push(chunk[0..<count]) {
                    room.wait()
                    continuation.yield(frame)
                }
            }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            var watched = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0),
            ]
            reading: while true {
                if poll(&watched, 2, -1) < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if watched[1].revents != 0 {
                    // Stopping: every request the client sent before the signal is still answered.
                    // poll with no wait says whether more is there, so stdin's flags (shared with
                    // the parent process) are left as they are.
                    var input = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)]
                    while poll(&input, 1, 0) > 0, input[0].revents & Int16(POLLIN) != 0 {
                        let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                        if count < 0 && errno == EINTR { continue }
                        guard count > 0 else { break }
                        take(count, from: chunk)
                    }
                    break reading
                }
                if watched[0].revents != 0 {
                    let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    take(count, from: chunk)
                }
            }
            for frame in framer.finish() {
                room.wait()
                continuation.yield(frame)
            }
            continuation.finish()
        }
        reader.start()
        let output = ReplyWriter()
        await withGracefulShutdownHandler {
            for await frame in frames {
                defer { room.signal() }
                let reply: [UInt8]?
                switch frame {
                case .line(let line): reply = await server.replyBytes(to: line, connection: connection)
                case .tooLong: reply = RPCServer.tooLarge(limit: maxLineBytes, transport: transport)
                }
                let queued = await notifications?() ?? []
                guard await output.write(reply.map { queued + [$0] } ?? queued) else {
                    logger.notice("stdout is closed: stopping")
                    break
                }
            }
        } onGracefulShutdown: { [logger, wake] in
            logger.info("stopping: answering what stdin already holds")
            var byte: UInt8 = 1
            _ = write(wake[1], &byte, 1)
        }
    }
}
