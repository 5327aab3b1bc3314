import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import PlatformTransports
@testable import platformd

/// The contract's "Limits on input": batch size, parameter lengths, and ids echoed exactly.
@Suite("Input limits and id echo")
struct InputLimitTests {
    @Test func aBatchOverOneHundredItemsIsOneInvalidRequestAndNothingRuns() async throws {
        try await PlatformdProcess.withServer { server in
            let start = #"{"jsonrpc":"2.0","method":"flow.start","params":{"tenant":"\#(Hosted.tenant)","userId":"batcher"}}"#
            let tooMany = "[" + Array(repeating: start, count: 101).joined(separator: ",") + "]"
            let refused = try await server.request(tooMany)
            #expect(refused.arrayValue == nil)
            #expect(refused["error"]?["code"] == -32600)
            #expect(refused["id"] == .null)
            let none = try await server.call("flow.get", ["tenant": .string(Hosted.tenant), "userId": "batcher"])
            #expect(none["error"]?["code"] == -32002)
            // One hundred is allowed.
            let probe = #"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#
            let full = try await server.request("[" + Array(repeating: probe, count: 100).joined(separator: ",") + "]")
            #expect(full.arrayValue?.count == 100)
        }
    }

    @Test(arguments: [
        ("flow.start", #"{"tenant":"\#(Hosted.tenant)","userId":"\#(String(repeating: "u", count: 257))"}"#, "userId"),
        ("flow.start", #"{"tenant":"\#(Hosted.tenant)","userId":"u","user":{"firstName":"\#(String(repeating: "a", count: 257))"}}"#, "user.firstName"),
        ("flow.start", #"{"tenant":"\#(Hosted.tenant)","userId":"u","user":{"email":"\#(String(repeating: "e", count: 257))"}}"#, "user.email"),
        ("flow.start", #"{"tenant":"\#(String(repeating: "t", count: 64))","userId":"u"}"#, "tenant"),
        ("profile.get", #"{"tenant":"\#(Hosted.tenant)","userId":"\#(String(repeating: "u", count: 257))"}"#, "userId"),
        ("gate.check", #"{"tenant":"\#(Hosted.tenant)","userId":"\#(String(repeating: "u", count: 300))","action":"x"}"#, "userId"),
        ("flow.search", #"{"tenant":"\#(Hosted.tenant)","sessionId":"s","field":"any-field","query":"\#(String(repeating: "q", count: 201))"}"#, "query"),
    ])
    func overLongParametersAreRefusedWithTheirName(method: String, params: String, param: String) async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.request(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#)
            #expect(reply["error"]?["code"] == -32602, "\(reply.serialized().prefix(300))")
            #expect(reply["error"]?["data"]?["param"] == .string(param))
        }
    }

    @Test func limitsAreInclusive() async throws {
        try await PlatformdProcess.withServer { server in
            let userId = String(repeating: "é", count: 256)
            let reply = try await server.call(
                "flow.start", ["tenant": .string(Hosted.tenant), "userId": .string(userId), "user": ["firstName": .string(String(repeating: "a", count: 256))]])
            #expect(reply["result"]?["userId"] == .string(userId))
        }
    }

    /// Ids come back as their exact source text: big integers, exponents, fractions, lone surrogates.
    @Test(arguments: [
        "12345678901234567890", "-12345678901234567890123", "1e2", "1.0", "-0", "1E+400", "0.1",
        #""\ud800""#, #""a\u0000b""#, #""\uDFFF\uD800x""#, #""plain""#,
    ])
    func idsAreEchoedExactly(id: String) async throws {
        try await PlatformdProcess.withServer { server in
            try server.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"platform.info"}"#)
            let line = try await server.readLine()
            #expect(line.contains(#""id":\#(id),"#), "\(line.prefix(200))")
            // In a batch too, each item keeps its own.
            try server.send(#"[{"jsonrpc":"2.0","id":\#(id),"method":"nope"},{"jsonrpc":"2.0","id":7,"method":"nope"}]"#)
            let batch = try await server.readLine()
            #expect(batch.contains(#""id":\#(id),"#), "\(batch.prefix(300))")
            #expect(batch.contains(#""id":7,"#))
        }
    }
}
