import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `serve --http --drain-seconds`: on SIGTERM the server says it is going (/health/ready 503)
/// while it still serves every request, old connections and new, then stops as before.
@Suite("platformd serve --drain-seconds", .serialized)
struct DrainTests {
    /// One request on `client`'s kept-alive connection, and its whole reply; nil when the server
    /// closed the connection instead.
    static func ask(_ client: RawHTTP, _ method: String, _ path: String, body: String = "") throws -> (status: Int, body: String)? {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if !body.isEmpty { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        try client.send(text + "\r\n" + body)
        guard let head = try client.readHead() else { return nil }
        #expect(head.headers["connection"]?.lowercased() != "close", "\(method) \(path): the drain keeps connections alive")
        let length = Int(head.headers["content-length"] ?? "0") ?? 0
        return (head.status, String(decoding: client.readBytes(length), as: UTF8.self))
    }

    static let info = #"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#

    @Test func sigtermAnswersReadyWith503WhileEveryRequestIsStillServedThenStops() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none", "--drain-seconds", "600"]) { http in
            let kept = try RawHTTP(port: http.port, timeoutSeconds: 20)
            let before = try await BlockingWork.run { try Self.ask(kept, "GET", "/health/ready") }
            #expect(before?.status == 200)

            http.server.send(signal: SIGTERM)
            try await http.server.waitForStderr(containing: "draining for 600 s")
            let during = try await BlockingWork.run { () throws -> [(status: Int, body: String)?] in
                [try Self.ask(kept, "GET", "/health/ready"), try Self.ask(kept, "POST", "/rpc", body: Self.info), try Self.ask(kept, "GET", "/health/live")]
            }
            #expect(during[0]?.status == 503, "\(during[0]?.body ?? "closed")")
            #expect(during[0]?.body.contains("stopping") == true)
            #expect(during[1]?.status == 200 && during[1]?.body.contains("\"result\"") == true, "\(during[1]?.body ?? "closed")")
            #expect(during[2]?.status == 200)
            // A new connection (a client the balancer has not yet moved) is served too.
            let fresh = try await http.request(.POST, "/rpc", body: Array(Self.info.utf8))
            #expect(fresh.status == 200 && fresh.json?["result"]?["name"] == "platformd", "\(fresh.text)")
            #expect(http.server.isRunning, "still running during the drain")

            // A second signal ends the drain: the stop proceeds as without one.
            http.server.send(signal: SIGTERM)
            let exit = try await http.server.waitForExit()
            #expect(exit.status == 0 && !exit.signaled, "\(exit)\n\(http.server.stderrText)")
            #expect(http.server.stderrText.contains("stopped"))
        }
    }

    @Test func theDrainEndsByItselfAndTheServerExitsZero() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none", "--drain-seconds", "1"]) { http in
            http.server.send(signal: SIGTERM)
            let exit = try await http.server.waitForExit()
            #expect(exit.status == 0 && !exit.signaled, "\(exit)\n\(http.server.stderrText)")
            #expect(http.server.stderrText.contains("drained: stopping"), "\(http.server.stderrText)")
        }
    }

    /// A WebSocket client that never answers the server's close frame holds the stop for the
    /// close timeout (2 s), not Hummingbird's 15 s default. Before the fix this stop took over 15 s.
    @Test func aWebSocketThatNeverAnswersTheCloseDoesNotHoldTheStop() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let port = http.port
            let silent = try await BlockingWork.run { () throws -> RawHTTP in
                let client = try RawHTTP(port: port, timeoutSeconds: 30)
                try client.send(
                    "GET /rpc HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
                )
                #expect(try client.readHead()?.status == 101)
                return client
            }
            let signalled = ContinuousClock.now
            http.server.send(signal: SIGTERM)
            let exit = try await http.server.waitForExit()
            let took = ContinuousClock.now - signalled
            #expect(exit.status == 0 && !exit.signaled, "\(exit)\n\(http.server.stderrText)")
            #expect(took < .seconds(12), "the stop took \(took) behind a silent WebSocket")
            _ = silent
        }
    }

    @Test func sigintStopsWithoutADrain() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none", "--drain-seconds", "600"]) { http in
            http.server.send(signal: SIGINT)
            let exit = try await http.server.waitForExit()
            #expect(exit.status == 0 && !exit.signaled, "\(exit)\n\(http.server.stderrText)")
            #expect(!http.server.stderrText.contains("draining"))
        }
    }
}
