import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
private let socketStream = Int32(SOCK_STREAM.rawValue)
private let sendFlags = Int32(MSG_NOSIGNAL)
private func closeDescriptor(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
#else
private let socketStream = SOCK_STREAM
private let sendFlags: Int32 = 0
private func closeDescriptor(_ descriptor: Int32) { _ = Darwin.close(descriptor) }
#endif

/// A one-route HTTP/1.1 server on 127.0.0.1 for testing the OpenAI-compatible analyzer without
/// a network: each connection gets one reply from `respond`, or none at all when it says to hang.
final class StubHTTPServer: Sendable {
    enum Reply: Sendable {
        case json(status: Int, body: String)
        /// Keeps the connection open without answering, like a stalled upstream.
        case hang
    }

    struct Request: Sendable {
        var head: String
        var body: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: UInt16
    private let listener: Int32
    private let requests = Mutex<[Request]>([])
    private let respond: @Sendable (Request) -> Reply

    init(_ respond: @escaping @Sendable (Request) -> Reply) throws {
        self.respond = respond
        let descriptor = socket(AF_INET, socketStream, 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            closeDescriptor(descriptor)
            throw Failure(description: "bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }
    var received: [Request] { requests.withLock { $0 } }

    /// Stops accepting; connections left hanging are closed by the client's timeout.
    func close() {
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
        guard let request = read(connection) else {
            closeDescriptor(connection)
            return
        }
        requests.withLock { $0.append(request) }
        switch respond(request) {
        case .hang:
            // Hold the connection until the client gives up and closes it.
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) > 0 {}
        case .json(let status, let body):
            let payload = Array(body.utf8)
            let head = "HTTP/1.1 \(status) Stub\r\nContent-Type: application/json\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
            let bytes = Array(head.utf8) + payload
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
                guard count > 0 else { break }
                sent += count
            }
        }
        closeDescriptor(connection)
    }

    /// Reads the head and a `Content-Length` body.
    private func read(_ connection: Int32) -> Request? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = buffer.firstRange(of: separator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let length = head.split(separator: "\r\n")
                    .first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if buffer.count - end.upperBound >= length {
                    let body = String(decoding: buffer[end.upperBound..<(end.upperBound + length)], as: UTF8.self)
                    return Request(head: head, body: body)
                }
            }
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }
}
