import Foundation
import PlatformProtocol
import PlatformTesting
import Testing

@testable import PlatformBench

/// `--transport websocket` walks users over `GET /rpc` upgraded, and `--idle` measures what idle
/// connections cost the server; the bench's own WebSocket frames follow RFC 6455.
@Suite("platformd bench over WebSocket, and idle connections")
struct WebSocketBenchTests {
    @Test func aWebSocketRunWalksUsersWithPipelinedReadersBeside() async throws {
        let report = try await BenchCommandTests.report([
            "--transport", "websocket", "--connections", "2", "--pipelined", "1", "--depth", "4", "--seconds", "2",
        ])
        #expect(report["transport"] == "websocket")
        #expect(report["failures"] == 0, "\(report.serialized())")
        #expect((report["requests"]?.intValue ?? 0) >= (report["requestsPerWalk"]?.intValue ?? 1), "a whole walk in two seconds")
        #expect((report["reads"]?.intValue ?? 0) > 4, "\(report.serialized())")
    }

    /// Idle connections are opened, each answered once, and the server's growth is reported, on
    /// each transport (a WebSocket after its upgrade, HTTP keep-alive after its first request).
    @Test(arguments: ["unix", "http", "websocket"])
    func idleConnectionsAreCountedAndTheirMemoryReported(transport: String) async throws {
        // Enough that their memory outweighs what the server frees meanwhile (with 100, a fresh
        // clone's run once measured -0.1 MiB over HTTP: the load's memory released as they opened).
        let count = 400
        let report = try await BenchCommandTests.report(["--transport", transport, "--idle", "\(count)", "--connections", "1", "--seconds", "1"])
        #expect(report["idleConnections"] == .int(Int64(count)), "\(report.serialized())")
        let growth = try #require(report["idleResidentGrowthMiB"]?.doubleValue, "\(report.serialized())")
        let perConnection = try #require(report["idleKiBPerConnection"]?.doubleValue)
        // Each open connection holds its buffers and its task: hundreds of them are megabytes.
        #expect(growth > 0, "\(report.serialized())")
        #expect(abs(perConnection * Double(count) / 1024 - growth) < 0.2, "the two figures say the same thing")
        #expect(report["failures"] == 0)
    }

    @Test func anIdleCountOutOfRangeIsRefused() async throws {
        try await PlatformdProcess.with(["bench", "--idle", "-1", "--seconds", "1"]) { process in
            let exit = try await process.waitForExit(timeout: BenchCommandTests.exitGuard)
            #expect(exit.status != 0)
            #expect(process.stderrText.contains("--idle"), "\(process.stderrText)")
        }
    }

    /// A wait for a reply that is not positive is a usage error naming the option, before any server starts.
    @Test(arguments: ["0", "-5"])
    func aReplyTimeoutThatIsNotPositiveIsRefused(value: String) async throws {
        try await PlatformdProcess.with(["bench", "--reply-timeout", value, "--seconds", "1"]) { process in
            let exit = try await process.waitForExit(timeout: BenchCommandTests.exitGuard)
            #expect(exit.status == 64, "\(process.stderrText)")
            #expect(process.stderrText.contains("--reply-timeout"), "\(process.stderrText)")
            #expect(!process.stderrText.contains("measuring"), "\(process.stderrText)")
        }
    }

    /// A client frame is masked, with the length in 7, 16 or 64 bits (RFC 6455 5.2).
    @Test(arguments: [5, 125, 126, 65_535, 65_536])
    func aRequestFrameIsMaskedAndItsLengthEncoded(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let frame = WebSocketFraming.frame(payload[...])
        #expect(frame[0] == 0x81, "fin and the text opcode")
        #expect(frame[1] & 0x80 != 0, "masked")
        let header: Int
        switch length {
        case ..<126:
            #expect(Int(frame[1] & 0x7F) == length)
            header = 2
        case ..<65_536:
            #expect(frame[1] & 0x7F == 126)
            #expect(Int(frame[2]) << 8 | Int(frame[3]) == length)
            header = 4
        default:
            #expect(frame[1] & 0x7F == 127)
            #expect((0..<8).reduce(0) { $0 << 8 | Int(frame[2 + $1]) } == length)
            header = 10
        }
        let mask = Array(frame[header..<(header + 4)])
        let unmasked = frame[(header + 4)...].enumerated().map { $0.element ^ mask[$0.offset & 3] }
        #expect(unmasked == payload)
    }

    /// A server frame is read where it lies; a ping before it is stepped over; a frame not yet
    /// whole is waited for.
    @Test func aReplyFrameIsFoundPastControlFramesAndOnlyWhenWhole() {
        let body = Array(#"{"id":1,"jsonrpc":"2.0","result":{}}"#.utf8)
        let ping: [UInt8] = [0x89, 0x02, 0x61, 0x62]
        let long = [UInt8](repeating: 0x20, count: 300)
        let buffer = ping + [0x81, UInt8(body.count)] + body + [0x81, 126, 0x01, 0x2C] + long
        let first = WebSocketFraming.message(in: buffer, from: 0)
        #expect(first.map { Array(buffer[$0.body]) } == body)
        let second = first.flatMap { WebSocketFraming.message(in: buffer, from: $0.end) }
        #expect(second?.body.count == 300)
        #expect(second?.end == buffer.count)
        #expect(WebSocketFraming.message(in: Array(buffer.dropLast()), from: first?.end ?? 0) == nil, "one byte short")
        #expect(WebSocketFraming.message(in: ping, from: 0) == nil, "a ping alone is no reply")
    }

    /// Pings are taken out of what arrived, wherever they fall between replies, each payload kept
    /// for its pong; the replies stay in order; a ping not yet whole waits.
    @Test func pingsAreTakenOutAndTheRepliesKept() {
        let reply = Array(#"{"id":1}"#.utf8)
        let ping: (UInt8) -> [UInt8] = { [0x89, 0x01, $0] }
        var buffer = ping(0x61) + [0x81, UInt8(reply.count)] + reply + ping(0x62) + [0x8A, 0x00] + [0x89, 0x05, 0x63]
        let pings = WebSocketFraming.takePings(from: &buffer)
        #expect(pings.map(Array.init) == [[0x61], [0x62]], "the two whole pings; a pong from the server dropped")
        #expect(buffer == [0x81, UInt8(reply.count)] + reply + [0x89, 0x05, 0x63], "the reply, then the ping still arriving")
        let pong = WebSocketFraming.frame([0x61], opcode: 0xA)
        #expect(pong[0] == 0x8A && pong[1] == 0x81, "a final pong, masked, one byte")
    }

    /// A frame this bench cannot read as a whole reply is not taken for one.
    @Test(arguments: [
        [UInt8]([0x01, 0x02, 0x7B, 0x7D]),  // not final: a fragment
        [0xC1, 0x02, 0x7B, 0x7D],  // a reserved bit set
        [0x81, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x7B, 0x7D],  // a 64-bit length with its top bit set
    ])
    func aFrameItCannotReadIsNoReply(frame: [UInt8]) {
        #expect(WebSocketFraming.message(in: frame, from: 0) == nil)
    }
}

/// `--login`: the server requires logins and every connection logs in with a key of the tenant,
/// as an app's backend does (a bearer on each HTTP request and on a WebSocket's handshake,
/// `auth.login` first on a socket). Every walk is served: a request without the login would have
/// been refused with -32001 and counted as a failure.
@Suite("platformd bench --login")
struct LoginBenchTests {
    @Test(arguments: ["unix", "http", "websocket"])
    func everyConnectionLogsInWithAKeyAndIsServed(transport: String) async throws {
        let tenant = try await PlatformdProcess.withServer { server in
            try await server.call("platform.info")["result"]?["tenants"]?.arrayValue?.first?["tenant"]?.stringValue ?? ""
        }
        let report = try await BenchCommandTests.report(["--tenant", tenant, "--login", "--transport", transport, "--connections", "2", "--seconds", "2"])
        #expect(report["login"] == true)
        #expect(report["failures"] == 0, "\(report.serialized())")
        #expect((report["requests"]?.intValue ?? 0) > 2, "\(report.serialized())")
    }

    @Test func loginWithoutATenantIsRefusedBeforeAnyLoad() async throws {
        try await PlatformdProcess.with(["bench", "--login", "--seconds", "1"]) { process in
            let exit = try await process.waitForExit(timeout: BenchCommandTests.exitGuard)
            #expect(exit.status != 0)
            #expect(process.stderrText.contains("--login needs --tenant"), "\(process.stderrText)")
        }
    }
}
