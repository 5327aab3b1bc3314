import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
    private let socketStream = Int32(SOCK_STREAM.rawValue)
    private let sendFlags = Int32(MSG_NOSIGNAL)
    private func closeDescriptor(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
#else
    import Darwin
    private let socketStream = SOCK_STREAM
    private let sendFlags: Int32 = 0
    private func closeDescriptor(_ descriptor: Int32) { _ = Darwin.close(descriptor) }
#endif

/// An HTTP/1.1 server on 127.0.0.1 for tests (a webhook receiver, a stand-in for a remote API):
/// one request per connection, each answered by `respond` and recorded; every answer says
/// `Connection: close`.
public final class LoopbackHTTPServer: Sendable {
    public struct Request: Sendable {
        /// The request line and the headers, as sent.
        public var head: String
        public var path: String
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]
    }

    public enum Reply: Sendable {
        /// A status line (`200 OK`), the headers in order (`Content-Length` and `Connection` are
        /// added), and the body.
        case answer(status: Int, reason: String, headers: [(String, String)] = [], body: [UInt8] = [])
        /// The connection closed with no answer, like a receiver that dropped it.
        case close
        /// The connection held open without an answer until the client gives up, like a stalled upstream.
        case hang
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: UInt16
    private let listener: Int32
    /// Whether `listener` is still this server's: the accept thread closes it when its loop
    /// ends, never `close()`, and `close()` shuts it down only while it is held here. (Closed by
    /// `close()` itself, a thread not yet in `accept` later accepted on the same number, by
    /// then a newer server's listener, and answered that server's requests with its own.)
    private let listening = Mutex(true)
    private let requests = Mutex<[Request]>([])
    private let respond: @Sendable (Request) -> Reply

    /// Listens on `port` (0: a free one).
    public init(port: UInt16 = 0, respond: @escaping @Sendable (Request) -> Reply) throws {
        self.respond = respond
        let descriptor = socket(AF_INET, socketStream, 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            closeDescriptor(descriptor)
            throw Failure(description: "bind/listen on port \(port): errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Every request received, in order.
    public var received: [Request] { requests.withLock { $0 } }

    /// Stops accepting (the accept thread then closes the listener); connections left hanging
    /// are closed by their clients' timeouts.
    public func close() {
        listening.withLock { listening in
            if listening { shutdown(listener, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        defer {
            listening.withLock { listening in
                listening = false
                closeDescriptor(listener)
            }
        }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                // A failure of one connection, or of the moment, leaves the server listening:
                // only the listener's close (`close()`) ends the loop.
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    usleep(10_000)
                    continue
                default: return
                }
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { closeDescriptor(connection) }
        guard let request = read(connection) else { return }
        requests.withLock { $0.append(request) }
        switch respond(request) {
        case .close:
            return
        case .hang:
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) > 0 {}
        case .answer(let status, let reason, let headers, let body):
            let lines =
                ["HTTP/1.1 \(status) \(reason)"] + headers.map { "\($0.0): \($0.1)" }
                + ["Content-Length: \(body.count)", "Connection: close"]
            let bytes = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                sent += count
            }
        }
    }

    /// Reads the head and a `Content-Length` body.
    private func read(_ connection: Int32) -> Request? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = buffer.firstRange(of: separator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let lines = head.split(separator: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = headers["content-length"].flatMap { Int($0) } ?? 0
                if buffer.count - end.upperBound >= length {
                    let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                    return Request(
                        head: head, path: path, headers: headers, body: Array(buffer[end.upperBound..<(end.upperBound + length)]))
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }
}
