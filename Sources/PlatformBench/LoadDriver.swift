import Foundation
import PlatformProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Request latencies from every connection, in seconds.
final class LatencyRecorder: Sendable {
    private let state = Mutex<(samples: [Double], finished: Int, lastFinish: ContinuousClock.Instant?)>(([], 0, nil))

    func record(_ duration: Duration) {
        let value = duration.seconds
        state.withLock { $0.samples.append(value) }
    }

    func finish() {
        state.withLock {
            $0.finished += 1
            $0.lastFinish = ContinuousClock.now
        }
    }
    var lastFinish: ContinuousClock.Instant? { state.withLock { $0.lastFinish } }
    var finished: Int { state.withLock { $0.finished } }
    var count: Int { state.withLock { $0.samples.count } }
    func sorted() -> [Double] { state.withLock { $0.samples.sorted() } }
}

/// Drives every connection from one thread: each has one request in flight, as a real client
/// would; `poll` says which replies arrived.
final class LoadDriver: @unchecked Sendable {
    final class Connection {
        let descriptor: Int32
        let framing: BenchEndpoint.Framing
        /// Which server it talks to, and the replies it has had.
        var host = 0
        var answered = 0
        var walk: Walk
        var buffer: [UInt8] = []
        var sentAt = ContinuousClock.now
        var done = false
        /// A pipelined reader's depth (nil for a walker), the session it reads, and when each
        /// request in flight was sent, oldest first.
        let depth: Int?
        var readSession: String?
        var inFlight: [ContinuousClock.Instant] = []

        init(descriptor: Int32, framing: BenchEndpoint.Framing, walk: Walk, depth: Int? = nil) {
            self.descriptor = descriptor
            self.framing = framing
            self.walk = walk
            self.depth = depth
            buffer.reserveCapacity(1 << 17)
        }

        deinit { close(descriptor) }

        func send() throws {
            try write(framing.request(walk.nextRequest()))
            sentAt = ContinuousClock.now
        }

        /// Tops a pipelined reader up to its depth: the start of its session first, alone.
        func sendReads() throws {
            guard let depth else { return }
            guard let session = readSession else {
                if inFlight.isEmpty {
                    try write(framing.request(walk.nextRequest()))
                    inFlight.append(ContinuousClock.now)
                }
                return
            }
            var batch: [UInt8] = []
            while inFlight.count < depth {
                batch += framing.request(walk.readRequest(of: session).serializedBytes())
                inFlight.append(ContinuousClock.now)
            }
            if !batch.isEmpty { try write(batch) }
        }

        /// Appends what arrived to `buffer`, read through `chunk` (one scratch buffer for every
        /// connection); false when the server closed the connection.
        func receive(using chunk: inout [UInt8]) -> Bool {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            if case .websocket = framing { LoadDriver.answerPings(in: &buffer, on: descriptor) }
            return true
        }

        func write(_ request: [UInt8]) throws {
            try LoadDriver.send(request, on: descriptor)
        }
    }

    /// Ends every connection, as clients leave at the end of a run: the server's stop then waits
    /// for none of them (a WebSocket's close handshake waits for a client that answers it).
    func disconnect() {
        for connection in connections { shutdown(connection.descriptor, Int32(SHUT_RDWR)) }
    }

    /// A WebSocket's pings answered with pongs, and taken out of what it received.
    static func answerPings(in buffer: inout [UInt8], on descriptor: Int32) {
        for ping in WebSocketFraming.takePings(from: &buffer) {
            try? send(WebSocketFraming.frame(ping, opcode: 0xA), on: descriptor)
        }
    }

    /// Writes all of `bytes` to a blocking socket.
    static func send(_ bytes: [UInt8], on descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw BenchFailure("send failed: errno \(errno)") }
            offset += written
        }
    }

    let connections: [Connection]
    /// Error replies and lost connections.
    let failures = Atomic<Int>(0)

    /// The connections, split round-robin among `endpoints` (one server each). Users are named
    /// after this run, so a database kept from an earlier run is walked by new users.
    init(endpoints: [BenchEndpoint], plan: WalkPlan, connections count: Int, pipelined: Int = 0, depth: Int = 16) throws {
        let run = String(UInt32.random(in: .min ... .max), radix: 36)
        func connection(_ number: Int, prefix: String, depth: Int?) throws -> Connection {
            let endpoint = endpoints[number % endpoints.count]
            let made = Connection(
                descriptor: try endpoint.connect(), framing: endpoint.framing, walk: Walk(plan: plan, prefix: "\(run)-\(prefix)\(number)"), depth: depth)
            made.host = number % endpoints.count
            return made
        }
        connections =
            try (0..<count).map { try connection($0, prefix: "c", depth: nil) }
            + (0..<pipelined).map { try connection($0, prefix: "r", depth: depth) }
        hostCount = endpoints.count
    }

    let hostCount: Int

    /// Replies each server gave (every request it answered, walks and reads). Read after `run`.
    func answeredByHost() -> [Int] {
        var counts = Array(repeating: 0, count: hostCount)
        for connection in connections { counts[connection.host] += connection.answered }
        return counts
    }

    static func connect(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in Array(path.utf8).prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw BenchFailure("cannot connect to \(path): errno \(errno)")
        }
        return descriptor
    }

    /// Sends each connection's first request (a walker's `flow.start`, a reader's start of its
    /// session) and takes its reply, untimed; throws when one fails or none comes `within`.
    func warmUp(within limit: Duration) throws {
        let deadline = ContinuousClock.now + limit
        for connection in connections {
            try connection.write(connection.framing.request(connection.walk.nextRequest()))
        }
        var pending = Set(connections.indices)
        var polled = connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !pending.isEmpty {
            guard ContinuousClock.now < deadline else {
                throw BenchFailure("\(pending.count) of \(connections.count) connections had no answer to their first request within \(limit)")
            }
            guard Self.poll(&polled) else { throw BenchFailure("poll failed: errno \(errno)") }
            for index in pending where polled[index].revents != 0 {
                let connection = connections[index]
                guard connection.receive(using: &chunk) else { throw BenchFailure("the server closed a connection before its first answer") }
                guard let message = connection.framing.message(in: connection.buffer, from: connection.buffer.startIndex) else { continue }
                let reply = try? ReplySummary(line: connection.buffer[message.body])
                connection.buffer.removeSubrange(..<message.end)
                guard let reply, let session = reply.sessionId, connection.walk.accept(reply) else {
                    throw BenchFailure("the first request of a connection was refused")
                }
                if connection.depth != nil { connection.readSession = session }
                connection.answered += 1
                pending.remove(index)
            }
        }
    }

    /// Waits up to 100 ms for replies; false when `poll` itself failed.
    static func poll(_ polled: inout [pollfd]) -> Bool {
        for index in polled.indices { polled[index].revents = 0 }
        return Glibc.poll(&polled, nfds_t(polled.count), 100) >= 0 || errno == EINTR
    }

    /// Drives the connections (after ``warmUp(within:)``) until `deadline`, each request timed.
    func run(until deadline: ContinuousClock.Instant, recorder: LatencyRecorder, reads: LatencyRecorder = LatencyRecorder()) {
        func fail(_ connection: Connection) {
            failures.add(1, ordering: .relaxed)
            connection.done = true
            (connection.depth == nil ? recorder : reads).finish()
        }
        for connection in connections {
            do {
                if connection.depth == nil { try connection.send() } else { try connection.sendReads() }
            } catch { fail(connection) }
        }
        var polled = connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while connections.contains(where: { !$0.done }) {
            guard Self.poll(&polled) else { break }
            for (index, connection) in connections.enumerated() where !connection.done && polled[index].revents != 0 {
                guard connection.receive(using: &chunk) else {
                    fail(connection)
                    continue
                }
                if connection.depth != nil {
                    takeReads(connection, until: deadline, reads: reads, fail: fail)
                    continue
                }
                // One request in flight: a whole reply is the first message of the buffer.
                guard let message = connection.framing.message(in: connection.buffer, from: connection.buffer.startIndex) else { continue }
                let latency = ContinuousClock.now - connection.sentAt
                connection.answered += 1
                let reply = try? ReplySummary(line: connection.buffer[message.body])
                connection.buffer.removeAll(keepingCapacity: true)
                // Only what was acknowledged counts as a request (and in the latencies): an error
                // reply is a failure, however fast (-32008 while the database is away takes 1 ms).
                if reply.map({ !connection.walk.accept($0) }) ?? true {
                    failures.add(1, ordering: .relaxed)
                    if reply == nil { connection.walk.session = nil }
                } else {
                    recorder.record(latency)
                }
                if ContinuousClock.now >= deadline {
                    connection.done = true
                    recorder.finish()
                } else {
                    do { try connection.send() } catch { fail(connection) }
                }
            }
        }
        for connection in connections where !connection.done { fail(connection) }
    }

    /// A pipelined reader's replies: every whole line is one answered read; past the deadline it
    /// sends no more and is done once its last reply is in.
    func takeReads(
        _ connection: Connection, until deadline: ContinuousClock.Instant, reads: LatencyRecorder, fail: (Connection) -> Void
    ) {
        var start = connection.buffer.startIndex
        while let message = connection.framing.message(in: connection.buffer, from: start) {
            let line = connection.buffer[message.body]
            start = message.end
            connection.answered += 1
            guard !connection.inFlight.isEmpty else { continue }
            let sentAt = connection.inFlight.removeFirst()
            if connection.readSession == nil {
                // The start of its session: not a read.
                guard let reply = try? ReplySummary(line: line), let id = reply.sessionId else {
                    fail(connection)
                    return
                }
                connection.readSession = id
                continue
            }
            if line.starts(with: Array(#"{"error""#.utf8)) {
                failures.add(1, ordering: .relaxed)
            } else {
                reads.record(ContinuousClock.now - sentAt)
            }
        }
        connection.buffer.removeSubrange(..<start)
        if ContinuousClock.now >= deadline {
            if connection.inFlight.isEmpty {
                connection.done = true
                reads.finish()
            }
        } else {
            do { try connection.sendReads() } catch { fail(connection) }
        }
    }
}
