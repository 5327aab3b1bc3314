import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import PlatformTransports
@testable import platformd

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `platformd serve` over stdin/stdout, driven as a child process: the contract's
/// "Framing and transports" and "Errors" sections, as a client sees them.
@Suite("platformd serve --stdio")
struct StdioTests {
    /// A request that always succeeds; its reply proves the server read everything sent before it.
    static func probe(_ id: JSONValue) -> String {
        (["jsonrpc": "2.0", "id": id, "method": "platform.info"] as JSONValue).serialized()
    }

    // MARK: - platform.info

    @Test func platformInfoListsTheDefaultTenantsInRegistrationOrder() async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.call("platform.info", id: 1)
            #expect(reply["jsonrpc"] == "2.0")
            #expect(reply["id"] == 1)
            #expect(reply["error"] == nil)
            let result = try #require(reply["result"])
            #expect(result["name"] == "platformd")
            #expect(result["protocol"]?.intValue == 4)
            #expect(result["version"]?.stringValue?.isEmpty == false)
            let tenants = try #require(result["tenants"]?.arrayValue)
            #expect(tenants.map { $0["tenant"]?.stringValue } == RegisteredPlugins.registrations.map(\.defaultTenant))
            #expect(tenants.map { $0["plugin"]?.stringValue } == RegisteredPlugins.registrations.map(\.name))
            for tenant in tenants {
                // Every tenant serves its default flow first; a plugin may serve more (StatLocker's classic).
                #expect(tenant["flows"]?.arrayValue?.first == "onboarding", "tenant \(tenant["tenant"]?.stringValue ?? "?")")
            }
        }
    }

    // MARK: - parse errors

    @Test func truncatedJSONIsAParseErrorAndTheServerKeepsServing() async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.request(#"{"jsonrpc":"2.0","id":1,"method":"#)
            expectError(reply, code: -32700)
            let next = try await server.request(Self.probe(2))
            #expect(next["id"] == 2)
            #expect(next["result"]?["name"] == "platformd")
        }
    }

    @Test func trailingCommaIsAParseError() async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.request(#"{"jsonrpc":"2.0","id":1,"method":"platform.info",}"#)
            expectError(reply, code: -32700)
        }
    }

    @Test func invalidUTF8IsAParseError() async throws {
        try await PlatformdProcess.withServer { server in
            try server.write(Array(#"{"jsonrpc":"2.0","id":1,"method":""#.utf8) + [0xFF] + Array(#""}"#.utf8) + [0x0A])
            expectError(try await server.readReply(), code: -32700)
            #expect(try await server.request(Self.probe(2))["id"] == 2)
        }
    }

    @Test func repliesNeverContainARawNewline() async throws {
        try await PlatformdProcess.withServer { server in
            // The method name comes back inside the error message; its newlines must stay escaped.
            let reply = try await server.request(#"{"jsonrpc":"2.0","id":1,"method":"a\nb\r\nc\u2028d"}"#)
            expectError(reply, code: -32601, id: 1)
            #expect(reply["error"]?["message"]?.stringValue?.contains("a\nb\r\nc\u{2028}d") == true)
            // Had the reply been split over lines, this would read its second half.
            #expect(try await server.request(Self.probe(2))["id"] == 2)
        }
    }

    // MARK: - invalid requests

    @Test(arguments: [
        "{}",
        "42",
        #"{"jsonrpc":"1.0","id":1,"method":"platform.info"}"#,
        #"{"jsonrpc":"2.0","id":1}"#,
        #"{"id":1,"method":"platform.info"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":7}"#,
        #"{"jsonrpc":"2.0","id":{"a":1},"method":"platform.info"}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"platform.info","params":"x"}"#,
    ])
    func notARequestIsInvalidRequestWithNullID(line: String) async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.request(line)
            #expect(reply.objectValue != nil, "expected one error object, got \(reply.serialized())")
            expectError(reply, code: -32600)
        }
    }

    @Test func batchOfNonRequestsGetsOneInvalidRequestPerItem() async throws {
        try await PlatformdProcess.withServer { server in
            let one = try await server.request("[1]")
            let single = try #require(one.arrayValue, "a batch gets an array reply: \(one.serialized())")
            try #require(single.count == 1)
            expectError(single[0], code: -32600)

            let three = try await server.request("[1,2,3]")
            let replies = try #require(three.arrayValue, "a batch gets an array reply: \(three.serialized())")
            #expect(replies.count == 3)
            for reply in replies { expectError(reply, code: -32600) }
        }
    }

    @Test func emptyBatchIsOneInvalidRequestObject() async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.request("[]")
            #expect(reply.arrayValue == nil, "an empty batch gets one error object, not an array")
            expectError(reply, code: -32600)
        }
    }

    // MARK: - method and params errors

    @Test func unknownMethodIsMethodNotFoundWithTheRequestID() async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.request(#"{"jsonrpc":"2.0","id":"req-7","method":"no.such.method"}"#)
            expectError(reply, code: -32601, id: "req-7")
            let numeric = try await server.request(#"{"jsonrpc":"2.0","id":8,"method":"flow.nope","params":{}}"#)
            expectError(numeric, code: -32601, id: 8)
        }
    }

    @Test func mistypedRevisionIsInvalidParamsNamingIt() async throws {
        try await PlatformdProcess.withServer { server in
            // stepId is read first, then revision; tenant and sessionId are valid strings.
            let reply = try await server.call(
                "flow.submit",
                ["tenant": .string(Hosted.tenant), "sessionId": "no-such-session", "stepId": "any-step", "revision": "x"],
                id: 3)
            expectError(reply, code: -32602, id: 3)
            #expect(reply["error"]?["data"]?["param"] == "revision")
        }
    }

    @Test func flowStartWithoutTenantIsInvalidParams() async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.call("flow.start", ["userId": "u1"], id: 4)
            expectError(reply, code: -32602, id: 4)
            #expect(reply["error"]?["data"]?["param"] == "tenant")
        }
    }

    @Test func positionalParamsAreInvalidParams() async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.request(#"{"jsonrpc":"2.0","id":5,"method":"flow.start","params":["\#(Hosted.tenant)","u1"]}"#)
            expectError(reply, code: -32602, id: 5)
        }
    }

    // MARK: - batches and notifications

    @Test func batchRepliesInRequestOrderAndSkipsNotifications() async throws {
        try await PlatformdProcess.withServer { server in
            let batch = """
                [{"jsonrpc":"2.0","id":1,"method":"platform.info"},\
                {"jsonrpc":"2.0","method":"platform.info"},\
                {"jsonrpc":"2.0","id":"two","method":"no.such.method"}]
                """
            let reply = try await server.request(batch)
            let replies = try #require(reply.arrayValue, "a batch gets an array reply: \(reply.serialized())")
            try #require(replies.count == 2)
            #expect(replies[0]["id"] == 1)
            #expect(replies[0]["result"]?["name"] == "platformd")
            expectError(replies[1], code: -32601, id: "two")
        }
    }

    @Test func batchOfOnlyNotificationsGetsNoReply() async throws {
        try await PlatformdProcess.withServer { server in
            try server.send(#"[{"jsonrpc":"2.0","method":"platform.info"},{"jsonrpc":"2.0","method":"no.such.method"}]"#)
            let next = try await server.request(Self.probe("after-batch"))
            #expect(next["id"] == "after-batch", "the notifications' batch got a reply: \(next.serialized())")
        }
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","method":"platform.info"}"#,
        #"{"jsonrpc":"2.0","method":"no.such.method"}"#,
        #"{"jsonrpc":"2.0","method":"flow.start","params":{"userId":"u1"}}"#,
    ])
    func notificationGetsNoReply(line: String) async throws {
        try await PlatformdProcess.withServer { server in
            try server.send(line)
            let next = try await server.request(Self.probe("after-notification"))
            #expect(next["id"] == "after-notification", "the notification got a reply: \(next.serialized())")
        }
    }

    // MARK: - framing

    @Test func blankLinesAreIgnoredAndCRLFIsAccepted() async throws {
        try await PlatformdProcess.withServer { server in
            try server.write(Array("\n   \n\r\n\t \r\n".utf8))
            let reply = try await server.request(Self.probe("crlf"), terminator: "\r\n")
            #expect(reply["id"] == "crlf", "a blank line got a reply: \(reply.serialized())")
            #expect(reply["result"]?["name"] == "platformd")
        }
    }

    @Test func lastLineWithoutNewlineIsAnsweredAtEOF() async throws {
        try await PlatformdProcess.withServer { server in
            try server.send(Self.probe("last"), terminator: "")
            try server.closeStdin()
            let reply = try await server.readReply()
            #expect(reply["id"] == "last")
            #expect(reply["result"]?["name"] == "platformd")
            let exit = try await server.waitForExit()
            #expect(exit == .init(status: 0, signaled: false))
        }
    }

    @Test func requestSplitAcrossWritesIsOneLine() async throws {
        try await PlatformdProcess.withServer { server in
            let line = Array(Self.probe("split").utf8)
            try server.write(Array(line[..<10]))
            try server.write(Array(line[10...]) + [0x0A])
            let reply = try await server.readReply()
            #expect(reply["id"] == "split")
        }
    }

    @Test func overlongLineIsPayloadTooLargeAndTheServerKeepsServing() async throws {
        try await PlatformdProcess.withServer(["--max-line-bytes", "64"]) { server in
            let padded = Self.padded(#"{"jsonrpc":"2.0","id":1,"method":"platform.info""#, to: 200)
            let reply = try await server.request(padded)
            expectError(reply, code: -32006)
            let next = try await server.request(Self.probe(2))
            #expect(next["id"] == 2)
            #expect(next["result"]?["name"] == "platformd")
        }
    }

    @Test func lineOfExactlyTheLimitIsAnswered() async throws {
        try await PlatformdProcess.withServer(["--max-line-bytes", "64"]) { server in
            let exact = Self.padded(#"{"jsonrpc":"2.0","id":1,"method":"platform.info""#, to: 64)
            let reply = try await server.request(exact)
            #expect(reply["id"] == 1)
            // The `\r` of a `\r\n` ending is not part of the line.
            let crlf = Self.padded(#"{"jsonrpc":"2.0","id":2,"method":"platform.info""#, to: 64)
            let second = try await server.request(crlf, terminator: "\r\n")
            #expect(second["id"] == 2)
            let over = Self.padded(#"{"jsonrpc":"2.0","id":3,"method":"platform.info""#, to: 65)
            expectError(try await server.request(over), code: -32006)
        }
    }

    /// `prefix` (an object missing its closing brace) padded with spaces and closed, `length` bytes in all.
    static func padded(_ prefix: String, to length: Int) -> String {
        let line = prefix + String(repeating: " ", count: length - prefix.utf8.count - 1) + "}"
        precondition(line.utf8.count == length)
        return line
    }

    // MARK: - shutdown and output hygiene

    @Test func eofExitsZeroWithOnlyJSONOnStdoutAndLogsOnStderr() async throws {
        try await PlatformdProcess.withServer(["--log-level", "trace"]) { server in
            try server.send(Self.probe(1))
            try server.send(#"{"jsonrpc":"2.0","id":2,"method":"#)
            try server.send("[]")
            try server.send(#"{"jsonrpc":"2.0","id":4,"method":"flow.start","params":{"tenant":"\#(Hosted.tenant)","userId":"u1"}}"#)
            try server.send(#"{"jsonrpc":"2.0","id":5,"method":"flow.get","params":{"tenant":"nobody","sessionId":"s"}}"#)
            try server.closeStdin()
            let exit = try await server.waitForExit()
            #expect(exit == .init(status: 0, signaled: false))

            let stdout = server.stdoutBytes
            #expect(stdout.last == 0x0A, "stdout does not end with a newline")
            let lines = stdout.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == 5, "expected one reply per request: \(String(decoding: stdout, as: UTF8.self))")
            for line in lines {
                let text = String(decoding: line, as: UTF8.self)
                let message = try #require(try? JSONValue.parse(line), "stdout line is not JSON: \(text)")
                #expect(message["jsonrpc"] == "2.0", "stdout line is not a JSON-RPC reply: \(text)")
            }
            #expect(!server.stderrText.isEmpty, "expected logs on stderr at --log-level trace")
        }
    }

    /// Sends SIGTERM and waits for the exit: one signal must be enough.
    static func terminate(_ server: PlatformdProcess) async throws -> PlatformdProcess.Exit {
        server.send(signal: SIGTERM)
        return try await server.waitForExit()
    }

    @Test func aRequestSentJustBeforeSIGTERMIsAnswered() async throws {
        for round in 0..<5 {
            try await PlatformdProcess.withServer { server in
                #expect(try await server.request(Self.probe(1))["id"] == 1)
                try server.send(Self.probe(2))
                server.send(signal: SIGTERM)
                #expect(try await server.readReply()["id"] == 2, "round \(round)")
                let exit = try await server.waitForExit()
                #expect(exit.status == 0)
            }
        }
    }

    @Test func sigtermWhileIdleExitsZero() async throws {
        try await PlatformdProcess.withServer { server in
            // A reply proves the server is up and its signal handlers are installed.
            #expect(try await server.request(Self.probe(1))["id"] == 1)
            let exit = try await Self.terminate(server)
            #expect(exit == .init(status: 0, signaled: false))
        }
    }

    @Test func sigtermWithRequestsQueuedExitsZeroWithWholeReplies() async throws {
        try await PlatformdProcess.withServer { server in
            #expect(try await server.request(Self.probe(0))["id"] == 0)
            let burst = (1...200).map { Self.probe(.int(Int64($0))) + "\n" }.joined()
            try server.write(Array(burst.utf8))
            let exit = try await Self.terminate(server)
            #expect(exit == .init(status: 0, signaled: false))
            // However many of the queued requests were answered, each answer is a whole line, in order.
            let stdout = server.stdoutBytes
            #expect(stdout.last == 0x0A, "stdout ends in the middle of a line")
            let ids = stdout.split(separator: 0x0A).map { line in (try? JSONValue.parse(line))?["id"]?.intValue }
            #expect(ids == ids.indices.map { Optional($0) }, "replies out of order or not JSON: \(ids)")
        }
    }
}
