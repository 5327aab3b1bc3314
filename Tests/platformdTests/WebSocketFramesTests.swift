import Foundation
import PlatformCore
import PlatformProtocol
import PlatformTesting
import Testing

/// WebSocket frames as a hostile or hurried client sends them: in the same write as the
/// handshake, with a length near 2^64, with bytes that are not UTF-8 in a text frame, in
/// fragments. Each of the first two stopped the whole process (an overflow walking the frame's
/// length; the bytes behind the handshake unwrapped as an HTTP request part), before any login;
/// the third was run with U+FFFD in place of the bad bytes and its id echoed changed.
@Suite("WebSocket frames from hostile and hurried clients", .serialized)
struct WebSocketFramesTests {
    static let handshake =
        "GET /rpc HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    static let info = Array(#"{"jsonrpc":"2.0","id":7,"method":"platform.info"}"#.utf8)

    /// A client frame: masked, as RFC 6455 requires of a client.
    static func masked(_ payload: [UInt8], opcode: UInt8 = 0x1, fin: Bool = true) -> [UInt8] {
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        frame += key
        frame += payload.enumerated().map { $1 ^ key[$0 % 4] }
        return frame
    }

    /// The server's next frame: its opcode and payload (servers do not mask); nil when it closed.
    static func readFrame(_ client: RawHTTP) -> (opcode: UInt8, payload: [UInt8])? {
        let head = client.readBytes(2)
        guard head.count == 2 else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            length = client.readBytes(2).reduce(0) { $0 << 8 | Int($1) }
        } else if length == 127 {
            length = client.readBytes(8).reduce(0) { $0 << 8 | Int($1) }
        }
        return (head[0] & 0x0F, client.readBytes(length))
    }

    static func reply(_ frame: (opcode: UInt8, payload: [UInt8])?) throws -> JSONValue {
        let frame = try #require(frame)
        #expect(frame.opcode == 0x1, "a text frame: \(frame)")
        return try JSONValue.parse(frame.payload)
    }

    /// The server still answers a new connection: it did not stop.
    static func stillServes(_ port: Int) throws -> Int? {
        let client = try RawHTTP(port: port, timeoutSeconds: 10)
        try client.send("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
        return try client.readHead()?.status
    }

    static func withServer(_ body: @escaping @Sendable (Int) throws -> Void) async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let port = http.port
            try await HTTPDoorsTests.blocking { try body(port) }
            #expect(http.server.isRunning, "\(http.server.stderrText)")
            #expect(!http.server.stderrText.contains("Fatal error"), "\(http.server.stderrText)")
        }
    }

    @Test func aFrameSentWithTheHandshakeIsServed() async throws {
        try await Self.withServer { port in
            let client = try RawHTTP(port: port)
            try client.socket.write(Array(Self.handshake.utf8) + Self.masked(Self.info))
            #expect(try client.readHead()?.status == 101)
            let reply = try Self.reply(Self.readFrame(client))
            #expect(reply["id"] == 7, "\(reply.serialized())")
            #expect(reply["result"]?["protocol"] == 4, "\(reply.serialized())")
            #expect(try Self.stillServes(port) == 200)
        }
    }

    @Test func anUnmaskedFrameSentWithTheHandshakeClosesTheConnection() async throws {
        try await Self.withServer { port in
            let client = try RawHTTP(port: port)
            // A text frame "hi" without the mask bit, as only a server may send.
            try client.socket.write(Array(Self.handshake.utf8) + [0x81, 0x02, 0x68, 0x69])
            #expect(try client.readHead()?.status == 101)
            let closing = try #require(Self.readFrame(client))
            #expect(closing.opcode == 0x8)
            #expect(Array(closing.payload.prefix(2)) == [0x03, 0xEA], "1002: \(closing)")
            #expect(try Self.stillServes(port) == 200)
        }
    }

    @Test(arguments: [false, true])
    func aFrameLengthNear2To64ClosesTheConnectionNotTheServer(withTheHandshake: Bool) async throws {
        try await Self.withServer { port in
            let client = try RawHTTP(port: port)
            let length = UInt64.max - 3
            let frame: [UInt8] = [0x81, 0xFF] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> (8 * UInt64($0))) } + Array("abcd".utf8)
            if withTheHandshake {
                try client.socket.write(Array(Self.handshake.utf8) + frame)
                #expect(try client.readHead()?.status == 101)
            } else {
                try client.send(Self.handshake)
                #expect(try client.readHead()?.status == 101)
                try client.socket.write(frame)
            }
            #expect(client.closesWithin(seconds: 20), "the connection stayed open")
            #expect(try Self.stillServes(port) == 200)
        }
    }

    @Test func aTextFrameThatIsNotUTF8IsAParseErrorAndTheConnectionServesOn() async throws {
        try await Self.withServer { port in
            let client = try RawHTTP(port: port)
            try client.send(Self.handshake)
            #expect(try client.readHead()?.status == 101)
            let bad = Array(#"{"jsonrpc":"2.0","id":"a"#.utf8) + [0xFF] + Array(#"b","method":"platform.info"}"#.utf8)
            try client.socket.write(Self.masked(bad))
            let refused = try Self.reply(Self.readFrame(client))
            #expect(refused["error"]?["code"] == -32700, "\(refused.serialized())")
            #expect(refused["id"] == .null, "\(refused.serialized())")
            // The same connection goes on: a message in two fragments (text, then continuation).
            try client.socket.write(Self.masked(Array(Self.info[..<10]), fin: false) + Self.masked(Array(Self.info[10...]), opcode: 0x0))
            let answered = try Self.reply(Self.readFrame(client))
            #expect(answered["id"] == 7, "\(answered.serialized())")
        }
    }
}
