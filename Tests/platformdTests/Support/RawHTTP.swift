import Foundation
import PlatformTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A raw TCP client for what an HTTP library will not send: heads that never end, ambiguous
/// framing, bodies cut short, unmasked WebSocket frames.
final class RawHTTP: @unchecked Sendable {
    let socket: SocketClient

    init(port: Int, timeoutSeconds: Int = 10) throws {
        socket = try SocketClient(tcpPort: port, timeoutSeconds: timeoutSeconds)
    }

    func send(_ text: String) throws {
        try socket.write(Array(text.utf8))
    }

    /// The response's status code and its header lines, read up to the blank line; nil when the
    /// server closed the connection first.
    func readHead() throws -> (status: Int, headers: [String: String])? {
        guard let statusLine = try socket.readLine() else { return nil }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw SocketClient.Failure(description: "not a status line: \(statusLine)")
        }
        var headers: [String: String] = [:]
        while let line = try socket.readLine() {
            let trimmed = line.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if trimmed.isEmpty { break }
            let pair = trimmed.split(separator: ":", maxSplits: 1)
            if pair.count == 2 { headers[pair[0].lowercased()] = pair[1].trimmingCharacters(in: .whitespaces) }
        }
        return (status, headers)
    }

    /// Whether the server closes the connection within `seconds` (reading and dropping what it sends).
    func closesWithin(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            do {
                if try socket.readLine() == nil { return true }
            } catch {
                // A read timeout: still open.
                if Date() >= deadline { return false }
            }
        }
        return false
    }

    /// The next `count` bytes the server sends (fewer if it closed the connection or went
    /// quiet first); what follows them is kept for the next read (a pipelined response).
    func readBytes(_ count: Int) -> [UInt8] {
        (try? socket.readBytes(count)) ?? []
    }
}
