import ArgumentParser
import Foundation
import PlatformProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A `platformd serve`, started as a child process. Unchecked: it is made on a thread of its own
/// (its start waits for the socket) and then used by the bench's one task.
final class ChildServer: @unchecked Sendable {
    let process = Process()

    init(executable: String, arguments: [String], environment: [String: String], endpoint: BenchEndpoint) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + endpoint.serveArguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A start over a preloaded million sessions reads them all (the flows check) before it
        // listens: up to two minutes, while the child lives.
        for _ in 0..<12_000 where !endpoint.isListening() && process.isRunning {
            Thread.sleep(forTimeInterval: 0.01)
        }
        guard endpoint.isListening() else {
            let running = process.isRunning
            // A server that never listened is not left behind, running on after the bench.
            if running {
                process.terminate()
                process.waitUntilExit()
            }
            throw BenchFailure(running ? "the server did not start listening within 120 s (stopped)" : "the server exited before listening")
        }
    }

    /// Asks the child to stop without waiting for it.
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// User plus system CPU time the child has used, in microseconds.
    func cpuMicroseconds() -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime 14 and stime 15 (1-based, of the whole line).
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return (user + system) * 1_000_000 / max(ticks, 1)
    }

    func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return line.split(separator: " ").compactMap { Int($0) }.first ?? 0
    }
}

enum BenchTransport: String, ExpressibleByArgument, CaseIterable, Sendable {
    case unix, http, websocket
}

/// Where the bench's server listens, how its messages are framed there, and the key's secret its
/// connections log in with (`--login`), if any.
struct BenchEndpoint: Sendable {
    enum Place: Sendable {
        case unix(String)
        case http(port: Int)
        /// `GET /rpc` upgraded: one text frame a message.
        case websocket(port: Int)
    }

    let place: Place
    /// With `--login`: sent as `Authorization: Bearer` on every HTTP request and on a WebSocket's
    /// handshake, and as `auth.login` first on a socket connection, as an app's backend would.
    var bearer: String?

    static func unix(_ path: String, bearer: String? = nil) -> BenchEndpoint { BenchEndpoint(place: .unix(path), bearer: bearer) }
    static func http(port: Int, bearer: String? = nil) -> BenchEndpoint { BenchEndpoint(place: .http(port: port), bearer: bearer) }
    static func websocket(port: Int, bearer: String? = nil) -> BenchEndpoint { BenchEndpoint(place: .websocket(port: port), bearer: bearer) }

    enum Framing: Sendable {
        /// One JSON-RPC message per line.
        case lines
        /// One POST /rpc per message on a keep-alive connection, its reply the response's body;
        /// each request carries the bearer, if any.
        case http(bearer: String?)
        /// One WebSocket text frame per message.
        case websocket

        /// The bytes that send one request, given its JSON text (a trailing newline is dropped).
        func request(_ json: [UInt8]) -> [UInt8] {
            switch self {
            case .lines:
                return json.last == 0x0A ? json : json + [0x0A]
            case .http(let bearer):
                let body = json.last == 0x0A ? json.dropLast() : json[...]
                let authorization = bearer.map { "Authorization: Bearer \($0)\r\n" } ?? ""
                let head =
                    "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n\(authorization)Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                return Array(head.utf8) + body
            case .websocket:
                return WebSocketFraming.frame(json.last == 0x0A ? json.dropLast() : json[...])
            }
        }

        /// The first whole reply in `buffer` from `start`: its JSON's range and where it ends.
        func message(in buffer: [UInt8], from start: Int) -> (body: Range<Int>, end: Int)? {
            switch self {
            case .lines:
                guard let newline = buffer[start...].firstIndex(of: 0x0A) else { return nil }
                return (start..<newline, newline + 1)
            case .http:
                // The head ends at the first CRLF CRLF; its Content-Length says where the body
                // ends. Read from the bytes: the driver's CPU is taken from the server's machine.
                guard let headEnd = Self.headEnd(in: buffer, from: start),
                    let length = Self.contentLength(in: buffer[start..<headEnd])
                else { return nil }
                let bodyStart = headEnd + 4
                guard buffer.count >= bodyStart + length else { return nil }
                return (bodyStart..<(bodyStart + length), bodyStart + length)
            case .websocket:
                return WebSocketFraming.message(in: buffer, from: start)
            }
        }

        static func headEnd(in buffer: [UInt8], from start: Int) -> Int? {
            var index = start
            while index + 3 < buffer.count {
                if buffer[index] == 0x0D && buffer[index + 1] == 0x0A && buffer[index + 2] == 0x0D && buffer[index + 3] == 0x0A {
                    return index
                }
                index += 1
            }
            return nil
        }

        static let contentLengthName = Array("content-length:".utf8)

        static func contentLength(in head: ArraySlice<UInt8>) -> Int? {
            let name = contentLengthName
            var index = head.startIndex
            while index + name.count <= head.endIndex {
                // At a line start, a case-insensitive match of the header's name.
                if index == head.startIndex || head[index - 1] == 0x0A {
                    var matched = true
                    for offset in 0..<name.count where head[index + offset] | 0x20 != name[offset] {
                        matched = false
                        break
                    }
                    if matched {
                        var value = 0
                        var cursor = index + name.count
                        while cursor < head.endIndex, head[cursor] == 0x20 { cursor += 1 }
                        while cursor < head.endIndex, (0x30...0x39).contains(head[cursor]) {
                            value = value * 10 + Int(head[cursor] - 0x30)
                            cursor += 1
                        }
                        return value
                    }
                }
                index += 1
            }
            return nil
        }
    }

    var framing: Framing {
        switch place {
        case .unix: .lines
        case .http: .http(bearer: bearer)
        case .websocket: .websocket
        }
    }

    /// Logins are required when the connections log in (so a request without one would be
    /// refused, not served as admin), else not asked for.
    var serveArguments: [String] {
        let auth = ["--auth", bearer == nil ? "none" : "required"]
        switch place {
        case .unix(let path): return ["--unix", path] + auth
        case .http(let port), .websocket(let port): return ["--http", "127.0.0.1:\(port)"] + auth
        }
    }

    func connect() throws -> Int32 {
        let descriptor: Int32
        switch place {
        case .unix(let path): descriptor = try LoadDriver.connect(path)
        case .http(let port): return try Self.connectTCP(port: port)
        case .websocket(let port): descriptor = try Self.connectTCP(port: port)
        }
        do {
            switch place {
            case .unix: if let bearer { try Self.logIn(on: descriptor, secret: bearer) }
            case .http: break
            case .websocket(let port): try WebSocketFraming.handshake(on: descriptor, port: port, bearer: bearer)
            }
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// `auth.login` as a socket connection's first line; throws unless it succeeds.
    static func logIn(on descriptor: Int32, secret: String) throws {
        let login: JSONValue = ["jsonrpc": "2.0", "id": 0, "method": "auth.login", "params": ["key": .string(secret)]]
        try LoadDriver.send(login.serializedBytes() + [0x0A], on: descriptor)
        // Byte by byte, so nothing after the reply's line is read into a buffer thrown away here.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while byte != 0x0A {
            guard recv(descriptor, &byte, 1, 0) == 1, line.count < 65_536 else { throw BenchFailure("auth.login got no answer (errno \(errno))") }
            line.append(byte)
        }
        guard (try? JSONValue.parse(String(decoding: line, as: UTF8.self)))?["result"]?["principal"] != nil else {
            throw BenchFailure("auth.login was refused: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
    }

    func isListening() -> Bool {
        switch place {
        case .unix(let path):
            // The file exists from bind on, a moment before the server listens: connect to know.
            guard FileManager.default.fileExists(atPath: path), let descriptor = try? LoadDriver.connect(path) else { return false }
            close(descriptor)
            return true
        case .http(let port), .websocket(let port):
            guard let descriptor = try? Self.connectTCP(port: port) else { return false }
            close(descriptor)
            return true
        }
    }

    static func connectTCP(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw BenchFailure("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }

    /// A port nothing listens on now (bound to 0 and released), for the child server.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchFailure("cannot find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
