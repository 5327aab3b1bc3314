import Crypto
import Foundation
import PlatformCore
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

/// A webhook receiver on 127.0.0.1 for tests: one request per connection (every answer says
/// `Connection: close`), each recorded. The first `failFirst` deliveries of each event fail,
/// alternately with HTTP 500 and with a connection closed without an answer; later ones get 200.
public final class WebhookReceiver: Sendable {
    public struct Request: Sendable {
        public var path: String
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]
        /// What the receiver did: 200, 500, or 0 for a connection closed with no answer.
        public var answered: Int

        public var eventId: String? { headers["platformd-event-id"] }
        public var json: JSONValue? { try? JSONValue.parse(body) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: UInt16
    public let failFirst: Int
    private let listener: Int32
    private let state = Mutex<(requests: [Request], attempts: [String: Int])>(([], [:]))

    /// Listens on `port` (0: a free one).
    public init(port: UInt16 = 0, failFirst: Int = 0) throws {
        self.failFirst = failFirst
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

    /// A port nothing listens on now (bound, then let go), for a receiver started later.
    public static func freePort() throws -> UInt16 {
        let receiver = try WebhookReceiver()
        receiver.close()
        return receiver.port
    }

    public var url: String { "http://127.0.0.1:\(port)/hooks" }
    public var requests: [Request] { state.withLock { $0.requests } }

    /// The events received with a 200, each once (deduplicated by id, as a receiver must).
    public var delivered: [String: Request] {
        var events: [String: Request] = [:]
        for request in requests where request.answered == 200 {
            if let id = request.eventId, events[id] == nil { events[id] = request }
        }
        return events
    }

    public func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        closeDescriptor(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { closeDescriptor(connection) }
        guard var request = read(connection) else { return }
        let attempt = state.withLock { state in
            let key = request.eventId ?? ""
            state.attempts[key, default: 0] += 1
            return state.attempts[key]!
        }
        request.answered = attempt > failFirst ? 200 : attempt % 2 == 1 ? 500 : 0
        state.withLock { $0.requests.append(request) }
        guard request.answered != 0 else { return }
        let head = "HTTP/1.1 \(request.answered) \(request.answered == 200 ? "OK" : "Oops")\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
            guard count > 0 else { break }
            sent += count
        }
    }

    /// Reads the head and a `Content-Length` body.
    private func read(_ connection: Int32) -> Request? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = buffer.firstRange(of: separator) {
                let lines = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = headers["content-length"].flatMap { Int($0) } ?? 0
                if buffer.count - end.upperBound >= length {
                    let path = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
                    return Request(
                        path: path, headers: headers, body: Array(buffer[end.upperBound..<(end.upperBound + length)]), answered: 0)
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }
}

extension WebhookReceiver {
    /// Checks a `Platformd-Signature` header independently of the server's code: HMAC-SHA256 of
    /// "t." + body with `secret`, `t` within five minutes of now.
    public static func validSignature(_ header: String?, body: [UInt8], secret: String) -> Bool {
        guard let header else { return false }
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let t = fields["t"], let seconds = Double(t), abs(Date().timeIntervalSince1970 - seconds) < 300 else { return false }
        let code = HMAC<SHA256>.authenticationCode(for: Array((t + ".").utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
        return fields["v1"] == code.map { String(format: "%02x", $0) }.joined()
    }
}
