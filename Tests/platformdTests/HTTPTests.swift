import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

/// `platformd serve --http`: POST /rpc, GET /rpc as a WebSocket, POST /mcp, health and metrics,
/// driven through the real binary as an app, a browser, an assistant and an operator would.
@Suite("platformd serve --http")
struct HTTPTests {
    static let tenant = Hosted.tenant

    /// A database with an admin key and a tenant key, served over HTTP with logins required.
    static func withKeys<T>(
        _ extra: [String] = [], _ body: (HTTPServing, _ admin: String, _ tenantKey: String) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("http.sqlite").path
            let admin = try await AuthTests.createKey(db, ["--admin"])
            let tenantKey = try await AuthTests.createKey(db, ["--tenant", tenant])
            return try await HTTPServing.with(["--db", db, "--http", "127.0.0.1:0"] + extra) { http in
                try await body(http, admin, tenantKey)
            }
        }
    }

    @Test func postRPCAnswersAsTheContractSays() async throws {
        try await Self.withKeys { http, admin, tenantKey in
            // 200 with the reply; the bearer is the principal.
            let info = try await http.rpc(["jsonrpc": "2.0", "id": 7, "method": "platform.info"], bearer: admin)
            #expect(info.status == 200)
            #expect(info.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(info.json?["id"] == 7)
            #expect(info.json?["result"]?["tenants"]?.arrayValue?.isEmpty == false)

            // Missing bearer while logins are required: 401, a -32001 body, WWW-Authenticate.
            let missing = try await http.rpc(["jsonrpc": "2.0", "id": 1, "method": "platform.info"])
            #expect(missing.status == 401)
            #expect(missing.header("WWW-Authenticate") == "Bearer")
            #expect(missing.json?["error"]?["code"] == -32001)
            #expect(missing.json?["id"] == 1)
            // ... but rpc.discover needs none.
            let discover = try await http.rpc(["jsonrpc": "2.0", "id": 2, "method": "rpc.discover"])
            #expect(discover.status == 200)
            #expect(discover.json?["result"]?["openrpc"] != nil)

            // A wrong bearer: 401 whatever the method.
            for method in ["platform.info", "rpc.discover"] {
                let wrong = try await http.rpc(["jsonrpc": "2.0", "id": 3, "method": .string(method)], bearer: "pdk_wrong")
                #expect(wrong.status == 401, "\(method)")
                #expect(wrong.header("WWW-Authenticate") == "Bearer")
                #expect(wrong.json?["error"]?["code"] == -32001)
            }

            // A batch: one HTTP reply holding each answer.
            let batch = try await http.rpc(
                [
                    ["jsonrpc": "2.0", "id": 1, "method": "platform.info"],
                    ["jsonrpc": "2.0", "method": "platform.info"],
                    ["jsonrpc": "2.0", "id": 2, "method": "no.such.method"],
                ], bearer: admin)
            #expect(batch.status == 200)
            #expect(batch.json?.arrayValue?.count == 2)
            #expect(batch.json?[1]?["error"]?["code"] == -32601)

            // Only notifications: 204, no body.
            let notification = try await http.rpc(["jsonrpc": "2.0", "method": "platform.info"], bearer: admin)
            #expect(notification.status == 204)
            #expect(notification.body.isEmpty)

            // An empty body: a parse error said as a reply, not a 204.
            for empty in [[UInt8](), Array(" \r\n".utf8)] {
                let nothing = try await http.request(.POST, "/rpc", body: empty, headers: [("Authorization", "Bearer \(admin)")])
                #expect(nothing.status == 200 && nothing.json?["error"]?["code"] == -32700, "\(nothing.status) \(nothing.text)")
                #expect(nothing.json?["id"] == .null)
            }

            // Another method: 405 naming the allowed ones.
            // TRACE and methods no route names (PROPFIND) were 404: the router had no route for them.
            for method in [HTTPMethod.PUT, .DELETE, .PATCH, .TRACE, .RAW(value: "PROPFIND")] {
                let refused = try await http.request(method, "/rpc", headers: [("Authorization", "Bearer \(admin)")])
                #expect(refused.status == 405, "\(method)")
                #expect(refused.header("Allow")?.contains("POST") == true)
            }
            // A GET with no upgrade: 426, saying a GET there opens a WebSocket.
            let get = try await http.request(.GET, "/rpc", headers: [("Authorization", "Bearer \(admin)")])
            #expect(get.status == 426, "\(get.status)")
            #expect(get.header("Upgrade") == "websocket")
            #expect(get.header("Sec-WebSocket-Version") == "13", "RFC 6455 4.4: the version this server speaks")
            #expect(get.json?["error"]?["message"]?.stringValue?.contains("WebSocket") == true, "\(get.text)")
            // Another content type: 415.
            let text = try await http.request(
                .POST, "/rpc", body: Array(#"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#.utf8), contentType: "text/plain",
                headers: [("Authorization", "Bearer \(admin)")])
            #expect(text.status == 415)
            // A charset parameter is still JSON.
            let charset = try await http.request(
                .POST, "/rpc", body: Array(#"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#.utf8),
                contentType: "application/json; charset=utf-8", headers: [("Authorization", "Bearer \(admin)")])
            #expect(charset.status == 200)
            // A body in a coding the server does not decode: 415 naming what it takes (it was
            // parsed as it came and answered -32700). `identity` is no coding at all.
            for (coding, status) in [("gzip", 415), ("identity", 200)] {
                let encoded = try await http.request(
                    .POST, "/rpc", body: Array(#"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#.utf8),
                    headers: [("Authorization", "Bearer \(admin)"), ("Content-Encoding", coding)])
                #expect(encoded.status == status, "\(coding): \(encoded.text)")
                if status == 415 { #expect(encoded.header("Accept-Encoding") == "identity") }
            }
            // A body over the line limit: 413 with -32006, and the server goes on answering.
            let huge = Array(repeating: UInt8(ascii: " "), count: (1 << 20) + 10)
            let tooLarge = try await http.request(.POST, "/rpc", body: huge, headers: [("Authorization", "Bearer \(admin)")])
            #expect(tooLarge.status == 413)
            #expect(tooLarge.json?["error"]?["code"] == -32006)
            #expect(try await http.call("platform.info", bearer: admin)["result"] != nil)
            // Unparsable JSON is JSON-RPC's -32700 inside a 200.
            let garbage = try await http.request(.POST, "/rpc", body: Array("{nope".utf8), headers: [("Authorization", "Bearer \(admin)")])
            #expect(garbage.status == 200)
            #expect(garbage.json?["error"]?["code"] == -32700)

            // A tenant key acts for its tenant only, as over any transport.
            let started = try await http.call("flow.start", ["tenant": .string(Self.tenant), "userId": "u1"], bearer: tenantKey)
            #expect(started["result"]?["sessionId"]?.stringValue != nil)
        }
    }

    @Test func eachHTTPRequestStandsAloneAndAUserTokenActsForItsUser() async throws {
        try await Self.withKeys { http, admin, _ in
            // auth.login answers, but the next request is as logged out as before.
            let login = try await http.call("auth.login", ["key": .string(admin)])
            #expect(login["result"]?["principal"] == ["kind": "admin"])
            #expect(try await http.rpc(["jsonrpc": "2.0", "id": 1, "method": "platform.info"]).status == 401)

            let minted = try await http.call("auth.userToken", ["tenant": .string(Self.tenant), "userId": "u1", "ttlSeconds": 600], bearer: admin)
            let token = try #require(minted["result"]?["token"]?.stringValue)
            let mine = try await http.call("flow.start", ["tenant": .string(Self.tenant), "userId": "u1"], bearer: token)
            #expect(mine["result"]?["userId"] == "u1")
            let theirs = try await http.call("flow.start", ["tenant": .string(Self.tenant), "userId": "u2"], bearer: token)
            #expect(theirs["error"]?["code"] == -32001)
            // A user token may not mint tokens or read events: -32001 in a 200, as on the line
            // transports (the bearer itself is valid).
            let events = try await http.rpc(["jsonrpc": "2.0", "id": 1, "method": "events.list", "params": ["tenant": .string(Self.tenant)]], bearer: token)
            #expect(events.status == 200)
            #expect(events.json?["error"]?["code"] == -32001)
        }
    }

    @Test func aRevokedKeyStopsWorkingOnTheNextRequest() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("revoke.sqlite").path
            let admin = try await AuthTests.createKey(db, ["--admin"])
            let doomed = try await AuthTests.createKey(db, ["--tenant", Self.tenant, "--name", "doomed"])
            try await HTTPServing.with(["--db", db, "--http", "127.0.0.1:0"]) { http in
                #expect(try await http.call("flow.start", ["tenant": .string(Self.tenant), "userId": "u1"], bearer: doomed)["result"] != nil)
                #expect(try await http.call("platform.info", bearer: admin)["result"] != nil)
                let listed = try await AuthTests.command(["keys", "list", "--db", db])
                let keyID = try #require(listed.stdout.split(separator: "\n").first { $0.contains("doomed") }?.split(separator: " ").first)
                #expect(try await AuthTests.command(["keys", "revoke", String(keyID), "--db", db]).status == 0)
                let after = try await http.rpc(["jsonrpc": "2.0", "id": 1, "method": "platform.info"], bearer: doomed)
                #expect(after.status == 401)
            }
        }
    }

    // MARK: - WebSocket

    /// Sends `lines` as text frames over GET /rpc upgraded, returns the replies received until
    /// `expected` came back.
    static func webSocket(_ http: HTTPServing, bearer: String?, lines: [String], expected: Int) async throws -> [JSONValue] {
        let replies = Mutex<[JSONValue]>([])
        var headers = HTTPFields()
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        try await WebSocketClient.connect(
            url: "ws://127.0.0.1:\(http.port)/rpc", configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers),
            logger: Logger(label: "test.websocket")
        ) { inbound, outbound, _ in
            // Pipelined: every line goes out before the first reply is read.
            for line in lines { try await outbound.write(.text(line)) }
            guard expected > 0 else { return }
            for try await message in inbound.messages(maxSize: 1 << 22) {
                guard case .text(let text) = message, let reply = try? JSONValue.parse(Array(text.utf8)) else { continue }
                let count = replies.withLock {
                    $0.append(reply)
                    return $0.count
                }
                if count >= expected { break }
            }
        }
        return replies.withLock { $0 }
    }

    @Test func aWebSocketSpeaksTheLineProtocolWithOneConnectionsState() async throws {
        try await Self.withKeys { http, admin, _ in
            // The upgrade's bearer logs the connection in; pipelined replies keep their order.
            let lines = (1...20).map { id -> String in
                let request: JSONValue = [
                    "jsonrpc": "2.0", "id": .int(Int64(id)), "method": "flow.start",
                    "params": ["tenant": .string(Self.tenant), "userId": .string("ws\(id % 3)")],
                ]
                return String(decoding: request.serializedBytes(), as: UTF8.self)
            }
            let replies = try await Self.webSocket(http, bearer: admin, lines: lines, expected: 20)
            #expect(replies.map { $0["id"] } == (1...20).map { JSONValue.int(Int64($0)) })
            #expect(replies.allSatisfy { $0["result"]?["sessionId"]?.stringValue != nil })

            // No bearer: logged out until auth.login on the same connection, which then holds.
            let loggedOut = try await Self.webSocket(
                http, bearer: nil,
                lines: [
                    #"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#,
                    #"{"jsonrpc":"2.0","id":2,"method":"auth.login","params":{"key":"\#(admin)"}}"#,
                    #"{"jsonrpc":"2.0","id":3,"method":"platform.info"}"#,
                    #"{"jsonrpc":"2.0","method":"platform.info"}"#,
                    "{broken",
                ], expected: 4)
            #expect(loggedOut[0]["error"]?["code"] == -32001)
            #expect(loggedOut[1]["result"]?["principal"] == ["kind": "admin"])
            #expect(loggedOut[2]["result"] != nil)
            // The notification had no reply: the fourth is the parse error.
            #expect(loggedOut[3]["error"]?["code"] == -32700)

            // A wrong bearer is refused before the upgrade.
            await #expect(throws: (any Error).self) {
                _ = try await Self.webSocket(http, bearer: "pdk_wrong", lines: [#"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#], expected: 1)
            }
        }
    }

    // MARK: - MCP over Streamable HTTP

    static func script(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/\(name)")
    }

    @Test(.enabled("needs python3 with the official MCP SDK (pip install mcp)") { await Python.has("mcp") })
    func anAssistantElsewhereWalksThroughPOSTMCPWithTheOfficialSDK() async throws {
        try await Self.withKeys { http, admin, tenantKey in
            let minted = try await http.call("auth.userToken", ["tenant": .string(Self.tenant), "userId": "assistant-user", "ttlSeconds": 600], bearer: admin)
            let token = try #require(minted["result"]?["token"]?.stringValue)
            let run = try await Python.run([Self.script("mcp_http_client.py").path, "\(http.base)/mcp", token])
            #expect(run.status == 0, "\(run.output)")
            let result = try #require(try? JSONValue.parse(Array((run.output.split(separator: "\n").last ?? "").utf8)), "\(run.output)")
            #expect(result["tools"]?.arrayValue?.contains("onboarding_status") == true)
            #expect(["2025-06-18", "2025-11-25"].contains(result["protocolVersion"]?.stringValue ?? ""))
            #expect(result["statusIsError"] == false)
            // The session is the token's user's, in the token's tenant.
            #expect(result["status"]?["userId"] == "assistant-user")
            #expect(result["status"]?["tenant"] == .string(Self.tenant))
            #expect(result["status"]?["step"]?["id"]?.stringValue != nil)
            // The same person's session over JSON-RPC: the one the assistant started.
            let view = try await http.call("flow.get", ["tenant": .string(Self.tenant), "userId": "assistant-user"], bearer: admin)
            #expect(view["result"]?["sessionId"] == result["status"]?["sessionId"])

            // Only a user token: a key, a wrong token or none is 401.
            let initialize: JSONValue = [
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": ["protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "test", "version": "1"]],
            ]
            for bearer in [admin, tenantKey, "pdt_wrong", nil] {
                let refused = try await http.request(
                    .POST, "/mcp", body: initialize.serializedBytes(),
                    headers: [("Accept", "application/json, text/event-stream")] + (bearer.map { [("Authorization", "Bearer \($0)")] } ?? []))
                #expect(refused.status == 401)
                #expect(refused.header("WWW-Authenticate") == "Bearer")
            }
            // A session is needed after initialize, and only its own user may use it.
            let bearer = [("Authorization", "Bearer \(token)"), ("Accept", "application/json, text/event-stream")]
            let opened = try await http.request(.POST, "/mcp", body: initialize.serializedBytes(), headers: bearer)
            #expect(opened.status == 200)
            let session = try #require(opened.header("Mcp-Session-Id"))
            let list: JSONValue = ["jsonrpc": "2.0", "id": 2, "method": "tools/list"]
            #expect(try await http.request(.POST, "/mcp", body: list.serializedBytes(), headers: bearer).status == 400)
            let listed = try await http.request(.POST, "/mcp", body: list.serializedBytes(), headers: bearer + [("Mcp-Session-Id", session)])
            #expect(listed.status == 200)
            #expect(listed.json?["result"]?["tools"]?.arrayValue?.count == 5)
            let initialized: JSONValue = ["jsonrpc": "2.0", "method": "notifications/initialized"]
            #expect(try await http.request(.POST, "/mcp", body: initialized.serializedBytes(), headers: bearer + [("Mcp-Session-Id", session)]).status == 202)
            let other = try await http.call("auth.userToken", ["tenant": .string(Self.tenant), "userId": "someone-else"], bearer: admin)
            let otherToken = try #require(other["result"]?["token"]?.stringValue)
            let stolen = try await http.request(
                .POST, "/mcp", body: list.serializedBytes(),
                headers: [("Authorization", "Bearer \(otherToken)"), ("Mcp-Session-Id", session)])
            #expect(stolen.status == 404)
            // DELETE ends it; the id is then unknown.
            #expect(try await http.request(.DELETE, "/mcp", headers: bearer + [("Mcp-Session-Id", session)]).status == 204)
            #expect(try await http.request(.POST, "/mcp", body: list.serializedBytes(), headers: bearer + [("Mcp-Session-Id", session)]).status == 404)
            // No server-sent stream is offered: GET is 405.
            #expect(try await http.request(.GET, "/mcp", headers: bearer).status == 405)
        }
    }

    // MARK: - operators

    /// The stop is held open by the drain, not by a client's timing: this test used to count on a
    /// Unix-socket client sending often enough to hold the graceful stop open. Under load the
    /// client fell quiet for the stop's 200 ms, the server finished stopping, and each of the 40
    /// readiness checks that followed waited out AsyncHTTPClient's 30 s deadline (it retries a
    /// refused connection until then): 20 minutes with every thread idle, the stall issue 36
    /// chased through whole-run loops.
    @Test func healthNeedsNoLoginAndReadinessIs503WhileStopping() async throws {
        try await withTemporaryDirectory { directory in
            let socket = directory.appendingPathComponent("p.sock").path
            try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--unix", socket, "--drain-seconds", "600"]) { http in
                let live = try await http.request(.GET, "/health/live")
                #expect(live.status == 200)
                #expect(live.json == ["status": "ok"])
                let ready = try await http.request(.GET, "/health/ready")
                #expect(ready.status == 200)
                #expect(ready.json == ["status": "ok"])
                #expect(try await http.request(.POST, "/health/ready", body: []).status == 405)

                let client = try SocketClient(unixPath: socket, timeoutSeconds: 10)
                http.server.send(signal: SIGTERM)
                // Each check is bounded, so a server that stopped fails this in seconds.
                var stopping: HTTPServing.Answer?
                for _ in 0..<100 {
                    if let answer = try? await http.request(.GET, "/health/ready", timeout: .seconds(5)), answer.status == 503 {
                        stopping = answer
                        break
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let answer = try #require(stopping, "readiness never said 503 while stopping")
                #expect(answer.json?["status"] == "unavailable")
                #expect(answer.json?["reason"]?.stringValue?.contains("stopping") == true)
                // The socket beside it is still served while HTTP says it is going.
                let info = try await HTTPDoorsTests.blocking {
                    try client.request(#"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#)
                }
                #expect(info["result"]?["name"] == "platformd")
                client.finishWriting()
                // A second signal ends the drain; the stop proceeds and the process exits 0.
                http.server.send(signal: SIGTERM)
                let exit = try await http.server.waitForExit()
                #expect(exit == PlatformdProcess.Exit(status: 0, signaled: false), "\(http.server.stderrText)")
            }
        }
    }

    @Test func metricsMoveAfterRequestsAndRandomInputAddsNoSeries() async throws {
        try await Self.withKeys { http, admin, _ in
            let before = try await http.metrics()
            let tenant = Self.tenant
            // Every family of the contract is there before any request.
            for family in [
                "platformd_requests_total", "platformd_request_duration_seconds_bucket", "platformd_sessions_total", "platformd_step_arrivals_total",
                "platformd_webhook_deliveries_total", "platformd_store_commit_duration_seconds_bucket", "platformd_store_commit_batch_size_bucket",
                "platformd_connections",
            ] {
                #expect(before.keys.contains { $0.hasPrefix(family + "{") || $0 == family }, "\(family)")
            }
            let started = #"platformd_sessions_total{tenant="\#(tenant)",flow="onboarding",event="started"}"#
            let infoOK = #"platformd_requests_total{transport="http",method="platform.info",outcome="ok"}"#

            for user in ["m1", "m2", "m3"] {
                #expect(try await http.call("flow.start", ["tenant": .string(tenant), "userId": .string(user)], bearer: admin)["result"] != nil)
            }
            #expect(try await http.call("platform.info", bearer: admin)["result"] != nil)
            let after = try await http.metrics()
            #expect(after[started] == (before[started] ?? 0) + 3)
            #expect(after[infoOK] == (before[infoOK] ?? 0) + 1)
            let arrivals = after.filter { $0.key.hasPrefix(#"platformd_step_arrivals_total{tenant="\#(tenant)""#) }.values.reduce(0, +)
            let arrivalsBefore = before.filter { $0.key.hasPrefix(#"platformd_step_arrivals_total{tenant="\#(tenant)""#) }.values.reduce(0, +)
            #expect(arrivals == arrivalsBefore + 3)
            let commits = #"platformd_store_commit_duration_seconds_count"#
            #expect((after[commits] ?? 0) >= (before[commits] ?? 0) + 3)
            #expect(after[#"platformd_connections{transport="http"}"#] ?? 0 >= 1)

            // Random tenants and methods: answered, counted, and no new series.
            var generator = SystemRandomNumberGenerator()
            var sent: [String] = []
            for index in 0..<20 {
                let word = "rnd\(UInt32.random(in: .min ... .max, using: &generator))x\(index)"
                sent.append(word)
                _ = try await http.call("flow.start", ["tenant": .string(word), "userId": "u"], bearer: admin)
                _ = try await http.call("\(word).method", ["tenant": .string(word)], bearer: admin)
                _ = try await http.call("flow.get", ["tenant": .string(word), "sessionId": .string(word)], bearer: admin)
            }
            let scraped = try await http.request(.GET, "/metrics").text
            for word in sent { #expect(!scraped.contains(word)) }
            let last = try await http.metrics()
            #expect(Set(last.keys) == Set(after.keys), "new series: \(Set(last.keys).subtracting(after.keys).sorted())")
            let unknownMethods = #"platformd_requests_total{transport="http",method="other",outcome="-32601"}"#
            #expect(last[unknownMethods] == (after[unknownMethods] ?? 0) + 20)
        }
    }

    @Test func anIncomingTraceparentIsCarriedIntoTheExportedSpans() async throws {
        // An OTLP/HTTP collector stand-in: every export answered 200 and kept.
        let collector = try LoopbackHTTPServer { _ in .answer(status: 200, reason: "OK", headers: [("Content-Type", "application/x-protobuf")]) }
        defer { collector.close() }
        let environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collector.port)",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_BSP_SCHEDULE_DELAY": "100",
        ]
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"], environment: environment) { http in
            #expect(http.server.stderrText.contains("exporting traces"))
            let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
            let traceparent = "00-\(traceID)-00f067aa0ba902b7-01"
            let answer = try await http.request(
                .POST, "/rpc", body: Array(#"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#.utf8), headers: [("traceparent", traceparent)])
            #expect(answer.status == 200)
            // The spans' protobuf holds the trace id as its 16 bytes, and the method's span by name.
            let idBytes = stride(from: 0, to: traceID.count, by: 2).map { offset -> UInt8 in
                let start = traceID.index(traceID.startIndex, offsetBy: offset)
                return UInt8(traceID[start..<traceID.index(start, offsetBy: 2)], radix: 16) ?? 0
            }
            var exported: [UInt8] = []
            for _ in 0..<150 {
                exported = collector.received.filter { $0.path.hasSuffix("/v1/traces") }.flatMap(\.body)
                if exported.contains(subsequence: idBytes) && exported.contains(subsequence: Array("platform.info".utf8)) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(exported.contains(subsequence: idBytes), "no exported span carries the caller's trace id")
            #expect(exported.contains(subsequence: Array("platform.info".utf8)), "no span named after the method")
        }
    }

    @Test func authNoneIsRefusedOffLoopbackForHTTP() async throws {
        try await PlatformdProcess.with(["serve", "--db", ":memory:", "--http", "0.0.0.0:0", "--auth", "none"]) { server in
            let exit = try await server.waitForExit()
            #expect(exit.status == 64)
            #expect(server.stderrText.contains("--auth none"))
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return false }
        return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}
