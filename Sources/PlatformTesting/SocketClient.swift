import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking line client for the socket transports, with a receive timeout so no test hangs.
/// Its calls block their thread: from async tests, make them on a thread of their own
/// (`BlockingWork.run`). Unchecked Sendable so it can be handed to that thread; one caller uses
/// it at a time.
public final class SocketClient: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// A descriptor connected to a Unix domain socket (blocking), for drivers that poll many
    /// connections themselves.
    public static func connectedDescriptor(unixPath: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in unixPath.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect(\(unixPath)) failed: errno \(errno)")
        }
        return fd
    }

    /// Connects to a Unix domain socket.
    public convenience init(unixPath: String, timeoutSeconds: Int = 30) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(unixPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        try self.init(family: AF_UNIX, address: address, name: unixPath, timeoutSeconds: timeoutSeconds)
    }

    /// Connects to 127.0.0.1:port.
    public convenience init(tcpPort: Int, timeoutSeconds: Int = 30) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(tcpPort).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        try self.init(family: AF_INET, address: address, name: "127.0.0.1:\(tcpPort)", timeoutSeconds: timeoutSeconds)
    }

    private init<Address>(family: Int32, address: Address, name: String, timeoutSeconds: Int) throws {
        descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
        var address = address
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failure(description: "connect(\(name)) failed: errno \(errno)")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
    }

    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Failure(description: "send failed: errno \(errno)") }
            offset += written
        }
    }

    /// Writes what the socket takes now without waiting; returns how many bytes it took (0 when full).
    public func writeWithoutWaiting(_ bytes: [UInt8]) -> Int {
        let written = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return max(0, written)
    }

    public func send(_ line: String) throws {
        try write(Array(line.utf8) + [0x0A])
    }

    /// Closes the sending side, as a client does when it has nothing more to ask.
    public func finishWriting() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// The next line, or nil when the server closed the connection.
    public func readLine() throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            // A reset (the server closed with our bytes unread) is an end of stream too.
            if count == 0 || (count < 0 && errno == ECONNRESET) { return nil }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: errno == EAGAIN ? "timed out waiting for a line" : "recv failed: errno \(errno)")
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Whether the server has closed the connection, without waiting: what it sent is dropped.
    public func isClosedByPeer() -> Bool {
        while true {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 || (count < 0 && (errno == ECONNRESET || errno == EPIPE)) { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
        }
    }

    /// What is buffered, else the next bytes the server sends; empty when it closed the connection.
    public func readChunk() throws -> [UInt8] {
        if !buffer.isEmpty {
            defer { buffer.removeAll() }
            return Array(buffer)
        }
        while true {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno == ECONNRESET) { return [] }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: errno == EAGAIN ? "timed out waiting for bytes" : "recv failed: errno \(errno)")
            }
            return Array(chunk[0..<count])
        }
    }

    /// The next `count` bytes (fewer when the server closed the connection first); what came
    /// after them stays buffered for the next read.
    public func readBytes(_ count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let chunk = try readChunk()
            if chunk.isEmpty { break }
            let taken = min(chunk.count, count - bytes.count)
            bytes += chunk[..<taken]
            if taken < chunk.count { buffer = Array(chunk[taken...]) }
        }
        return bytes
    }

    public func readReply() throws -> JSONValue {
        guard let line = try readLine() else { throw Failure(description: "connection closed while waiting for a reply") }
        return try JSONValue.parse(line)
    }

    /// Sends one line and reads the next reply.
    public func request(_ line: String) throws -> JSONValue {
        try send(line)
        return try readReply()
    }
}
