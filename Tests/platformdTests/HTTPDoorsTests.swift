import Foundation
import NIOHTTP1
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import PlatformTransports
@testable import platformd

/// Every HTTP connection is bounded before it logs in (the contract's "Ids, doors and limits"):
/// heads must arrive in time, malformed and ambiguous requests are refused and closed, the
/// connection limit closes those that never logged in to make room, the bearer is checked before
/// a body is read, bodies share one budget, WebSocket follows RFC 6455. Driven as an attacker
/// would, with raw sockets against the real binary.
// One test at a time: each floods a server of its own, and the whole run shares two cores.
@Suite("HTTP doors: connections and bodies bounded before login", .serialized)
struct HTTPDoorsTests {
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingWork.run("raw-http") { Result { try body() } }.get()
    }

    @Test func malformedAndAmbiguousRequestsGetBadRequestAndAClose() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0"]) { http in
            let port = http.port
            let refused = [
                "both Content-Length and Transfer-Encoding":
                    "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "HTTP/1.1 without Host": "GET /health/live HTTP/1.1\r\n\r\n",
                "bare LF": "GET /health/live HTTP/1.1\nHost: x\n\n",
                "a malformed request line": "GET /health/live HTTP/1.1 extra\r\nHost: x\r\n\r\n",
                // RFC 9112 3.2; it was answered 200.
                "two Host lines": "GET /health/live HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
                "two Host lines, HTTP/1.0": "GET /health/live HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n",
            ]
            for (what, request) in refused {
                let (status, headers, closed) = try await Self.blocking {
                    let client = try RawHTTP(port: port, timeoutSeconds: 5)
                    try client.send(request)
                    let head = try client.readHead()
                    return (head?.status, head?.headers ?? [:], client.closesWithin(seconds: 5))
                }
                #expect(status == 400, "\(what)")
                #expect(headers["connection"] == "close", "\(what)")
                #expect(headers["x-content-type-options"] == "nosniff", "\(what)")
                #expect(closed, "\(what): the connection stays open")
            }
            // HTTP/1.0 needs no Host.
            let old = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send("GET /health/live HTTP/1.0\r\n\r\n")
                return try client.readHead()?.status
            }
            #expect(old == 200)
            // A refusal is the client's doing, as often as it likes: not a line at error in the
            // operator's log each time (Hummingbird wrote "Error handling upgrade result").
            #expect(!http.server.stderrText.contains(" error "), "\(http.server.stderrText)")
        }
    }

    /// A whole request, then a malformed one in the same write: the first is run and answered,
    /// then the 400 and the close. The 400 used to be sent at once and the first request lost.
    @Test func aMalformedRequestBehindAWholeOneIsRefusedAfterItsAnswer() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let port = http.port
            let body = #"{"jsonrpc":"2.0","id":5,"method":"flow.start","params":{"tenant":"\#(Hosted.tenant)","userId":"pipelined"}}"#
            let (first, answer, refusal, closed) = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 10)
                try client.send(
                    "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)GARBAGE\r\n\r\n")
                let first = try client.readHead()
                let answer = client.readBytes(Int(first?.headers["content-length"] ?? "0") ?? 0)
                let refusal = try client.readHead()
                return (first?.status, answer, refusal?.status, client.closesWithin(seconds: 5))
            }
            #expect(first == 200)
            let reply = try JSONValue.parse(answer)
            #expect(reply["id"] == 5, "\(reply.serialized())")
            #expect(reply["result"]?["sessionId"]?.stringValue != nil, "\(reply.serialized())")
            #expect(refusal == 400)
            #expect(closed)
        }
    }

    @Test func everyResponseCarriesTheSecurityHeaders() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0"]) { http in
            for (method, path) in [
                (HTTPMethod.GET, "/health/live"), (.GET, "/metrics"), (.POST, "/rpc"), (.GET, "/flow/nosuch/"), (.GET, "/admin/"), (.GET, "/nowhere"),
            ] {
                let answer = try await http.request(method, path, body: method == .POST ? Array("{}".utf8) : nil)
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(path) \(answer.status)")
                #expect(answer.header("Referrer-Policy") == "no-referrer", "\(path) \(answer.status)")
            }
        }
    }

    @Test func aHeadThatNeverEndsAndAnIdleConnectionAreClosed() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--header-timeout", "1", "--idle-timeout", "2"]) { http in
            let port = http.port
            let (slowloris, idle) = try await Self.blocking {
                let dripping = try RawHTTP(port: port, timeoutSeconds: 1)
                let silent = try RawHTTP(port: port, timeoutSeconds: 1)
                try dripping.send("GET /health/live HTTP/1.1\r\nHost: x\r\n")
                // One more header byte a little later: it does not restart the head's clock.
                Thread.sleep(forTimeInterval: 0.5)
                try dripping.send("X")
                // Generous bounds (the machine may be busy); the limits themselves are 1 s and 2 s.
                return (dripping.closesWithin(seconds: 15), silent.closesWithin(seconds: 15))
            }
            #expect(slowloris, "a head dripping past --header-timeout stays open")
            #expect(idle, "a connection silent past --idle-timeout stays open")
            try await waitFor { http.server.stderrText.contains("--header-timeout") }
            // A whole request within the time is answered, and the connection serves another.
            let served = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
                let first = try client.readHead()?.status
                _ = client.readBytes(15)
                try client.send("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
                return (first, try client.readHead()?.status)
            }
            #expect(served.0 == 200 && served.1 == 200)
        }
    }

    /// The timers are not re-armed for each request but check their deadline when they fire: a
    /// connection that keeps sending whole requests stays open past both timeouts, each head is
    /// timed from its own first byte, and once it goes quiet it is closed for idling.
    @Test func aBusyConnectionOutlivesTheTimeoutsAndIsClosedOnceIdle() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--header-timeout", "1", "--idle-timeout", "2"]) { http in
            let port = http.port
            let (statuses, closed) = try await Self.blocking { () throws -> ([Int?], Bool) in
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                var statuses: [Int?] = []
                let started = Date()
                // 3.5 s of requests 0.4 s apart, each head sent in two halves 0.3 s apart.
                while Date().timeIntervalSince(started) < 3.5 {
                    try client.send("GET /health/live HTTP/1.1\r\n")
                    Thread.sleep(forTimeInterval: 0.3)
                    try client.send("Host: x\r\n\r\n")
                    let head = try client.readHead()
                    statuses.append(head?.status)
                    _ = client.readBytes(Int(head?.headers["content-length"] ?? "0") ?? 0)
                    Thread.sleep(forTimeInterval: 0.1)
                }
                return (statuses, client.closesWithin(seconds: 15))
            }
            #expect(statuses.count >= 5 && statuses.allSatisfy { $0 == 200 }, "\(statuses)")
            #expect(closed, "the connection idling past --idle-timeout after its requests stays open")
        }
    }

    /// A request answered before its body ended (a route that reads none) leaves nothing owed
    /// once the body has come: the connection is closed for idling, not kept for ever.
    @Test func aConnectionIdleAfterAnEarlyAnswerIsClosed() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--idle-timeout", "2"]) { http in
            let port = http.port
            let (status, closed) = try await Self.blocking { () throws -> (Int?, Bool) in
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send("GET /health/live HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
                let head = try client.readHead()
                _ = client.readBytes(Int(head?.headers["content-length"] ?? "0") ?? 0)
                try client.send("12345")
                return (head?.status, client.closesWithin(seconds: 15))
            }
            #expect(status == 200)
            #expect(closed, "a connection idle past --idle-timeout after an early answer stays open")
        }
    }

    /// Connections that never send a request fill every slot: the oldest of them make room, so a
    /// new client is answered, and a connection that has logged in is kept.
    @Test func theConnectionLimitClosesTheOldestNotLoggedInToMakeRoom() async throws {
        try await HTTPTests.withKeys(["--max-connections", "40"]) { http, admin, _ in
            let port = http.port
            // A client that logged in on a keep-alive connection.
            let member = try RawHTTP(port: port, timeoutSeconds: 10)
            let rpc = #"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#
            let request =
                "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(admin)\r\nContent-Type: application/json\r\nContent-Length: \(rpc.utf8.count)\r\n\r\n\(rpc)"
            let first = try await Self.blocking {
                try member.send(request)
                let head = try member.readHead()
                _ = member.readBytes(Int(head?.headers["content-length"] ?? "0") ?? 0)
                return head?.status
            }
            #expect(first == 200)

            let idle = try await Self.blocking { try (0..<120).map { _ in try RawHTTP(port: port, timeoutSeconds: 2) } }
            // How fast is for the flood probe (scripts/security/http_flood_probe.py), not a test.
            let fresh = try await http.request(.GET, "/health/live")
            #expect(fresh.status == 200)
            // Most of the idle ones were closed to make room; the logged-in one still serves.
            // 122 opened against 40: at least 80 of the idle ones go (closes land a moment later).
            var closed = 0
            for _ in 0..<100 where closed < 80 {
                closed = try await Self.blocking { idle.filter { $0.socket.isClosedByPeer() }.count }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(closed >= 80, "\(closed) of 120 idle connections closed")
            let again = try await Self.blocking {
                try member.send(request)
                return try member.readHead()?.status
            }
            #expect(again == 200, "the logged-in connection was closed")
            try await waitFor { http.server.stderrText.contains("to make room") }
        }
    }

    /// A browser signed in to the hosted flow keeps its connection when the limit makes room.
    @Test func aSignedInPagesConnectionIsKeptWhenTheLimitMakesRoom() async throws {
        try await HTTPTests.withKeys(["--max-connections", "20"]) { http, admin, _ in
            let port = http.port
            let tenant = Hosted.tenant
            let token = try await HostedFlowTests.mint(http, admin, tenant: tenant, user: "browser")
            let browser = try RawHTTP(port: port, timeoutSeconds: 10)
            let page = try await Self.blocking { () -> (Int?, Int?) in
                try browser.send("GET /flow/\(tenant)/start?token=\(token) HTTP/1.1\r\nHost: x\r\n\r\n")
                let start = try browser.readHead()
                _ = browser.readBytes(Int(start?.headers["content-length"] ?? "0") ?? 0)
                let cookie = (start?.headers["set-cookie"] ?? "").split(separator: ";").first.map(String.init) ?? ""
                try browser.send("GET /flow/\(tenant)/ HTTP/1.1\r\nHost: x\r\nCookie: \(cookie)\r\n\r\n")
                let first = try browser.readHead()
                _ = browser.readBytes(Int(first?.headers["content-length"] ?? "0") ?? 0)
                let idle = try (0..<60).map { _ in try RawHTTP(port: port, timeoutSeconds: 2) }
                Thread.sleep(forTimeInterval: 0.5)
                try browser.send("GET /flow/\(tenant)/ HTTP/1.1\r\nHost: x\r\nCookie: \(cookie)\r\n\r\n")
                let second = try browser.readHead()?.status
                withExtendedLifetime(idle) {}
                return (first?.status, second)
            }
            #expect(page.0 == 200)
            #expect(page.1 == 200, "the signed-in browser's connection was closed to make room")
        }
    }

    /// A wrong bearer is refused before the body is read: the refusal comes although the body
    /// was never sent, and the connection is closed rather than read on.
    @Test func theBearerIsCheckedBeforeTheBody() async throws {
        try await HTTPTests.withKeys { http, _, _ in
            let port = http.port
            for path in ["/rpc", "/mcp"] {
                let (status, headers, closed) = try await Self.blocking {
                    let client = try RawHTTP(port: port, timeoutSeconds: 5)
                    try client.send(
                        "POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer pdk_wrong\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"
                    )
                    let head = try client.readHead()
                    return (head?.status, head?.headers ?? [:], client.closesWithin(seconds: 5))
                }
                #expect(status == 401, "\(path)")
                #expect(headers["www-authenticate"] == "Bearer", "\(path)")
                #expect(closed, "\(path): the connection is kept to read a body nobody will use")
            }
        }
    }

    /// Bodies being read share --max-buffered-bytes: clients sending most of a large body and
    /// stopping are cut, the largest first, and the server stays small and answers.
    @Test func halfSentBodiesShareOneBudget() async throws {
        try await HTTPTests.withKeys(["--max-buffered-bytes", "\(4 << 20)", "--max-line-bytes", "\(2 << 20)"]) { http, admin, _ in
            let port = http.port
            let before = try #require(http.server.residentKiB)
            let chunk = [UInt8](repeating: 0x20, count: 64 << 10)
            let (cut, clients) = try await Self.blocking { () -> (Int, [RawHTTP]) in
                var clients: [RawHTTP] = []
                for _ in 0..<24 {
                    let client = try RawHTTP(port: port, timeoutSeconds: 1)
                    try client.send(
                        "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(admin)\r\nContent-Type: application/json\r\nContent-Length: \(2 << 20)\r\n\r\n"
                    )
                    // Up to 1 MiB of the 2 MiB body, as far as the socket takes it now.
                    for _ in 0..<16 { if client.socket.writeWithoutWaiting(chunk) == 0 { break } }
                    clients.append(client)
                }
                Thread.sleep(forTimeInterval: 1)
                return (clients.filter { $0.socket.isClosedByPeer() }.count, clients)
            }
            #expect(cut > 0, "no connection was cut: 24 x 1 MiB held against a 4 MiB budget")
            let fresh = try await http.call("platform.info", bearer: admin)
            #expect(fresh["result"] != nil)
            let after = try #require(http.server.residentKiB)
            #expect(after - before < 32 << 10, "resident memory grew \(after - before) KiB")
            try await waitFor { http.server.stderrText.contains("--max-buffered-bytes") }
            _ = clients
        }
    }

    /// `Expect: 100-continue` (RFC 9110 10.1.1): the client waits for a 100 before it sends the
    /// body. None was sent, so curl waited a second on every such request. A request its head
    /// refuses (a wrong bearer, a body too large) gets its final answer instead, and no 100; an
    /// HTTP/1.0 request's expectation is ignored; another route's request gets its 100 too.
    @Test func aRequestThatExpectsContinueGetsItOrItsRefusal() async throws {
        try await HTTPTests.withKeys(["--max-line-bytes", "4096"]) { http, admin, _ in
            let port = http.port
            let body = #"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#
            let head = { @Sendable (bearer: String, length: Int) in
                "POST /rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(bearer)\r\nContent-Type: application/json\r\n"
                    + "Expect: 100-continue\r\nContent-Length: \(length)\r\n\r\n"
            }
            // The head alone, then the body once an answer came: the first status and the next.
            let continued = { @Sendable (head: String) in
                try await Self.blocking {
                    let client = try RawHTTP(port: port, timeoutSeconds: 5)
                    try client.send(head)
                    let interim = try client.readHead()
                    try client.send(body)
                    return (interim?.status, try client.readHead()?.status)
                }
            }
            let (interim, final) = try await continued(head(admin, body.utf8.count))
            #expect(interim == 100, "the 100 came before the body was sent")
            #expect(final == 200)

            for (what, bearer, length, expected) in [("a wrong bearer", "pdk_wrong", body.utf8.count, 401), ("a body too large", admin, 8192, 413)] {
                let status = try await Self.blocking {
                    let client = try RawHTTP(port: port, timeoutSeconds: 5)
                    try client.send(head(bearer, length))
                    return try client.readHead()?.status
                }
                #expect(status == expected, "\(what): its answer, not a 100")
            }

            let old = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send(
                    "POST /rpc HTTP/1.0\r\nAuthorization: Bearer \(admin)\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
                return try client.readHead()?.status
            }
            #expect(old == 200, "HTTP/1.0: no 100 before the answer")

            // Another route's request (MCP's, without its token): the 100 as it is passed on,
            // then the route's own answer.
            let (mcpInterim, mcpFinal) = try await continued(
                "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                    + "Expect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            #expect(mcpInterim == 100)
            #expect(mcpFinal == 401)
        }
    }

    @Test func aWebSocketUpgradeWithAWrongBearerIs401AndAnUnmaskedFrameCloses() async throws {
        try await HTTPTests.withKeys { http, admin, _ in
            let port = http.port
            let upgrade = { @Sendable (bearer: String) in
                "GET /rpc HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer \(bearer)\r\n\r\n"
            }
            let refused = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send(upgrade("pdk_wrong"))
                return try client.readHead()
            }
            #expect(refused?.status == 401)
            #expect(refused?.headers["www-authenticate"] == "Bearer")

            let (switched, closing) = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send(upgrade(admin))
                let head = try client.readHead()
                // A text frame "hi" without the mask bit, as only a server may send.
                try client.socket.write([0x81, 0x02, 0x68, 0x69])
                return (head?.status, client.readBytes(4))
            }
            #expect(switched == 101)
            #expect(Array(closing.prefix(4)) == [0x88, 0x02, 0x03, 0xEA], "a close frame with 1002: \(closing)")
        }
    }

    /// Only a GET without a body opens a WebSocket (RFC 6455 4.1); any other request that names an
    /// upgrade is answered as itself, and its connection then closed (the HTTP parser reads
    /// nothing after a request that asked for another protocol). Before, a `POST /rpc` asking for
    /// a WebSocket with its body was left unanswered until the idle timeout, and one asking for
    /// another protocol, or for a WebSocket without its key, was closed unanswered.
    @Test func aRequestWithABodyThatAsksForAnUpgradeIsAnsweredAsItself() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0"]) { http in
            let port = http.port
            let body = #"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#
            let webSocket = "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            let asks = [
                ("POST /rpc asking for a WebSocket", "POST /rpc", webSocket, 200, true),
                ("POST /rpc asking for a WebSocket, no key", "POST /rpc", "Connection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n", 200, true),
                (
                    "POST /rpc asking for h2c", "POST /rpc", "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n", 200,
                    true
                ),
                ("GET /rpc asking for a WebSocket with a body", "GET /rpc", webSocket, 426, true),
                ("GET /health/live asking for a WebSocket, no key", "GET /health/live", "Connection: Upgrade\r\nUpgrade: websocket\r\n", 200, false),
                ("GET /health/live asking for h2c", "GET /health/live", "Connection: Upgrade\r\nUpgrade: h2c\r\n", 200, false),
                ("GET /rpc, WebSocket version 12", "GET /rpc", webSocket.replacingOccurrences(of: "Version: 13", with: "Version: 12"), 426, false),
                ("GET /rpc, two WebSocket keys", "GET /rpc", webSocket + "Sec-WebSocket-Key: AQIDBAUGBwgJCgsMDQ4PEA==\r\n", 426, false),
                (
                    "GET /rpc, a WebSocket key not of 16 bytes", "GET /rpc", webSocket.replacingOccurrences(of: "dGhlIHNhbXBsZSBub25jZQ==", with: "bad"), 426,
                    false
                ),
                (
                    "GET /rpc, a WebSocket key of 15 bytes", "GET /rpc",
                    webSocket.replacingOccurrences(of: "dGhlIHNhbXBsZSBub25jZQ==", with: "dGhlIHNhbXBsZSBub25jZQ"), 426, false
                ),
                ("CONNECT", "CONNECT x:443", "", 404, false),
            ]
            for (what, line, upgrade, expected, sendsBody) in asks {
                let (status, connection, closed) = try await Self.blocking {
                    let client = try RawHTTP(port: port, timeoutSeconds: 5)
                    let request =
                        sendsBody
                        ? "\(line) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\(upgrade)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
                        : "\(line) HTTP/1.1\r\nHost: x\r\n\(upgrade)\r\n"
                    try client.send(request)
                    let head = try client.readHead()
                    return (head?.status, head?.headers["connection"], client.closesWithin(seconds: 5))
                }
                #expect(status == expected, "\(what)")
                #expect(connection == "close", "\(what)")
                #expect(closed, "\(what): the connection stays open")
            }
            // RFC 6455 4.1: a handshake is HTTP/1.1 or later; over HTTP/1.0 this one was upgraded.
            let old = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send("GET /rpc HTTP/1.0\r\nHost: x\r\n\(webSocket)\r\n")
                return try client.readHead()?.status
            }
            #expect(old == 426)
        }
    }

    /// A request that asks for the close, with another sent behind it (RFC 9112 9.6: the server
    /// answers the first and reads nothing more). llhttp refuses the bytes after the close, and
    /// that error was answered 400 in place of the first request's answer, which was lost.
    @Test func aRequestThatAsksForTheCloseIsAnsweredAndWhatFollowsItIsNot() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0"]) { http in
            let port = http.port
            let body = #"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#
            for (what, first) in [
                (
                    "POST /rpc",
                    "POST /rpc HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                ),
                ("GET /health/live", "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
                ("HTTP/1.0 POST /rpc", "POST /rpc HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"),
            ] {
                let (head, rest, closed) = try await Self.blocking {
                    let client = try RawHTTP(port: port, timeoutSeconds: 5)
                    try client.send(first + "GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
                    let head = try client.readHead()
                    _ = client.readBytes(Int(head?.headers["content-length"] ?? "") ?? 0)
                    return (head, try client.readHead(), client.closesWithin(seconds: 5))
                }
                #expect(head?.status == 200, "\(what): the request that asked for the close is answered")
                #expect(head?.headers["connection"] == "close", "\(what)")
                #expect(rest == nil, "\(what): nothing is answered after it")
                #expect(closed, "\(what): the connection is closed")
            }
        }
    }

    /// A WebSocket handshake whose `Connection` does not name upgrade, with a request sent right
    /// behind it: the HTTP parser read on past the handshake, NIO upgraded anyway, and the
    /// request behind it reached the WebSocket decoder as a parsed head, which stopped the whole
    /// process (no login needed). Now it is answered as a GET of /rpc (426) and the connection
    /// closed, and the server goes on serving. And a request asking for an upgrade behind an
    /// ordinary one on the same connection: both are answered, and the close comes after the
    /// second.
    @Test func aHandshakeWithoutConnectionUpgradeAndPipelinedAsksAreAnsweredInOrder() async throws {
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0"]) { http in
            let port = http.port
            let (handshake, stillServing) = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send(
                    "GET /rpc HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                        + "Sec-WebSocket-Version: 13\r\n\r\nGET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = try client.readHead()
                _ = client.closesWithin(seconds: 5)
                let next = try RawHTTP(port: port, timeoutSeconds: 5)
                try next.send("GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
                return (head?.status, try next.readHead()?.status)
            }
            #expect(handshake == 426)
            #expect(stillServing == 200, "the server still answers")

            let body = #"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#
            let post = { @Sendable (upgrade: String) in
                "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\(upgrade)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            let (first, second, closed) = try await Self.blocking {
                let client = try RawHTTP(port: port, timeoutSeconds: 5)
                try client.send(post("") + post("Connection: Upgrade\r\nUpgrade: h2c\r\n"))
                let first = try client.readHead()
                _ = client.readBytes(Int(first?.headers["content-length"] ?? "") ?? 0)
                let second = try client.readHead()
                return (first, second, client.closesWithin(seconds: 5))
            }
            #expect(first?.status == 200)
            #expect(first?.headers["connection"] != "close", "the first answer keeps the connection")
            #expect(second?.status == 200, "the second request is answered")
            #expect(second?.headers["connection"] == "close")
            #expect(closed)
        }
    }

    /// A body is counted as the buffer collecting it holds: its capacity, which grows by doubling.
    @Test func aBodyCountsAsTheCapacityThatHoldsIt() {
        #expect(HTTPRequestGuard.capacity(holding: 0) == 0)
        #expect(HTTPRequestGuard.capacity(holding: 1) == 1)
        #expect(HTTPRequestGuard.capacity(holding: 1000) == 1024)
        #expect(HTTPRequestGuard.capacity(holding: 1024) == 1024)
        #expect(HTTPRequestGuard.capacity(holding: 900_000) == 1 << 20)
    }

    @Test func loopbackIsDecidedOnTheParsedAddress() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "localhost", "LOCALHOST"] {
            #expect(LoopbackHost.contains(host), "\(host)")
        }
        for host in ["127.example.com", "0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1", "example.com", "1270.0.0.1"] {
            #expect(!LoopbackHost.contains(host), "\(host)")
        }
    }
}

/// Polls `condition` for up to 10 s.
func waitFor(_ condition: () -> Bool) async throws {
    for _ in 0..<500 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    #expect(condition())
}
