import Foundation
import PlatformCore
import PlatformTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `POST /rpc` is answered ahead of Hummingbird's router (`DirectRPCHandler`) while every other
/// request goes on to it: on one kept-alive connection, pipelined requests of both kinds are
/// answered in the order they were sent, and a stop answers the requests already sent.
@Suite("HTTP pipelining across POST /rpc and the other routes")
struct HTTPPipeliningTests {
    static func post(_ body: String, headers: String = "") -> String {
        "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    static func get(_ path: String) -> String { "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n" }

    static func info(_ id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"platform.info"}"# }

    /// Each response's status and body, in the order they came, until `count` came or the
    /// connection closed.
    static func responses(_ client: RawHTTP, count: Int) throws -> [(status: Int, body: String)] {
        var answers: [(status: Int, body: String)] = []
        while answers.count < count, let head = try client.readHead() {
            let length = Int(head.headers["content-length"] ?? "0") ?? 0
            answers.append((head.status, String(decoding: client.readBytes(length), as: UTF8.self)))
        }
        return answers
    }

    @Test func pipelinedRequestsOfBothKindsAreAnsweredInTheOrderSent() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let port = http.port
            let sent = [
                Self.post(Self.info(1)), Self.get("/health/live"), Self.post(Self.info(2)), Self.post(Self.info(3)), Self.get("/nowhere"),
                Self.post(#"[{"jsonrpc":"2.0","method":"platform.info"}]"#), Self.get("/health/ready"), Self.post("{not json"),
                Self.post(Self.info(4), headers: "Connection: close\r\n"),
            ]
            let (answers, closed) = try await HTTPDoorsTests.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 10)
                // One write: the server reads them together, so the second waits behind the first.
                try client.send(sent.joined())
                return (try Self.responses(client, count: sent.count), client.closesWithin(seconds: 5))
            }
            #expect(answers.map(\.status) == [200, 200, 200, 200, 404, 204, 200, 200, 200], "\(answers)")
            guard answers.count == sent.count else { return }
            let ids = [0, 2, 3, 8].map { try? JSONValue.parse(Array(answers[$0].body.utf8))["id"] }
            #expect(ids == [.int(1), .int(2), .int(3), .int(4)], "\(answers)")
            #expect(answers[1].body.contains(#""ok""#) && answers[6].body.contains(#""ok""#))
            #expect(answers[7].body.contains("-32700"), "a body that is not JSON is a parse error: \(answers[7].body)")
            #expect(closed, "Connection: close on the last POST /rpc closes the connection after its answer")
        }
    }

    /// A `POST /rpc` refused from its head while it waited behind another request (its body read
    /// long before) still closes the connection after its refusal, as an unread body does: it is
    /// not left open, dropping what comes next. (Before, it stayed open and silent.)
    @Test func aRefusedPipelinedPOSTClosesTheConnectionAfterItsAnswer() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let port = http.port
            let refused = "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"
            let (answers, closed) = try await HTTPDoorsTests.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 10)
                try client.send(Self.get("/health/live") + refused + Self.get("/health/live"))
                return (try Self.responses(client, count: 3), client.closesWithin(seconds: 5))
            }
            #expect(answers.map(\.status) == [200, 415], "\(answers)")
            #expect(closed, "the connection stays open after a refusal whose request it cannot trust")
        }
    }

    /// `Connection` is a list of tokens: one that merely contains "close" keeps the connection,
    /// as the connection guard reads it (the `POST /rpc` handler closed after such a request).
    @Test func aConnectionTokenThatOnlyContainsCloseKeepsTheConnection() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let port = http.port
            let (answers, closed) = try await HTTPDoorsTests.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 10)
                try client.send(Self.post(Self.info(1), headers: "Connection: keep-alive, closed-caption\r\n"))
                let first = try Self.responses(client, count: 1)
                try client.send(Self.post(Self.info(2), headers: "Connection: Keep-Alive , CLOSE\r\n"))
                return (first + (try Self.responses(client, count: 1)), client.closesWithin(seconds: 5))
            }
            #expect(answers.map(\.status) == [200, 200], "\(answers)")
            #expect(closed, "the second asked to close, in capitals, in a list")
        }
    }

    /// A client that sends its requests and closes its side (a half-close) still gets every answer.
    @Test func aHalfClosedClientGetsEveryAnswer() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let port = http.port
            let answers = try await HTTPDoorsTests.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 10)
                try client.send((1...5).map { Self.post(Self.info($0)) }.joined() + Self.get("/health/live") + Self.post(Self.info(6)))
                client.socket.finishWriting()
                return try Self.responses(client, count: 7)
            }
            #expect(answers.map(\.status) == [200, 200, 200, 200, 200, 200, 200], "\(answers)")
        }
    }

    /// A stop closes a kept-alive connection only once the requests sent on it before the signal
    /// are answered. (Hummingbird's own connection state handler sits after `DirectRPCHandler`
    /// and sees none of its requests: it alone would close the connection at once.)
    @Test func aStopAnswersThePOSTRPCRequestsAlreadySent() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let port = http.port
            let count = 40
            let client = try RawHTTP(port: port, timeoutSeconds: 20)
            // The connection is being served before the signal (one accepted but not yet read at
            // the stop is Hummingbird's to close).
            let first = try await HTTPDoorsTests.blocking { () throws -> [(status: Int, body: String)] in
                try client.send(Self.post(Self.info(0)))
                let first = try Self.responses(client, count: 1)
                try client.send((1...count).map { Self.post(Self.info($0)) }.joined())
                return first
            }
            #expect(first.first?.status == 200)
            http.server.send(signal: SIGTERM)
            let answers = try await HTTPDoorsTests.blocking { try Self.responses(client, count: count) }
            #expect(answers.count == count, "\(answers.count) of \(count) answered before the connection closed")
            #expect(answers.allSatisfy { $0.status == 200 })
            let exit = try await http.server.waitForExit()
            #expect(exit.status == 0 && !exit.signaled, "\(exit)\n\(http.server.stderrText)")
        }
    }
}

extension HTTPPipeliningTests {
    /// With logins required, each `POST /rpc` read whole in one read is checked and answered in
    /// one task: pipelined requests with bearers are answered in the order sent, each as its own
    /// bearer says (a wrong one 401 without closing the connection, since its body was read
    /// whole; the next still answered); a head whose body comes later is checked before it.
    @Test func pipelinedRequestsWithBearersAreEachAnsweredAsTheirBearerSays() async throws {
        try await HTTPTests.withKeys { http, admin, _ in
            let port = http.port
            let sent = [
                Self.post(Self.info(1), headers: "Authorization: Bearer \(admin)\r\n"),
                Self.post(Self.info(2), headers: "Authorization: Bearer pdk_wrong\r\n"),
                Self.post(Self.info(3)),
                Self.post(Self.info(4), headers: "Authorization: Bearer \(admin)\r\n"),
            ]
            let (answers, late) = try await HTTPDoorsTests.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 10)
                try client.send(sent.joined())
                let answers = try Self.responses(client, count: sent.count)
                // A head alone, its body a moment later: the bearer is checked while it waits.
                let body = Self.info(5)
                try client.send(
                    "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(admin)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                )
                Thread.sleep(forTimeInterval: 0.2)
                try client.send(body)
                return (answers, try Self.responses(client, count: 1))
            }
            #expect(answers.map(\.status) == [200, 401, 401, 200], "\(answers)")
            guard answers.count == sent.count, late.count == 1 else { return }
            #expect(answers[0].body.contains(#""id":1"#) && answers[3].body.contains(#""id":4"#), "\(answers)")
            #expect(answers[1].body.contains("-32001") && answers[2].body.contains("-32001"), "\(answers)")
            #expect(late[0].status == 200 && late[0].body.contains(#""id":5"#), "\(late)")
        }
    }
}
