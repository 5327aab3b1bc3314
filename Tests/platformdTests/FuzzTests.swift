import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Seeded random requests to every method: the server never crashes, never answers -32603, and
/// every reply is a valid JSON-RPC reply that validates against `rpc.discover`.
@Suite("Fuzzing every method")
struct FuzzTests {
    /// SplitMix64: small, fast and reproducible from its seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let keys = [
        "tenant", "userId", "sessionId", "stepId", "revision", "action", "values", "flow", "user", "field",
        "query", "limit", "since", "until", "key", "token", "ttlSeconds",
    ]

    static func value(_ random: inout SeededGenerator, tenants: [String], sessions: [String], depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<14, using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(Int64.random(in: -3...120, using: &random))
        case 3: return .double(Double.random(in: -1e6...1e6, using: &random))
        case 4: return .string(tenants.randomElement(using: &random) ?? "x")
        case 5: return .string(sessions.randomElement(using: &random) ?? "s")
        case 6: return .string(String(repeating: "é", count: Int.random(in: 0...300, using: &random)))
        case 7:
            return ["sport", "nickname", "birthdate", "location", "continue", "skip", "later", "2010-02-30", "lacrosse", "\u{0}"][
                Int.random(in: 0..<10, using: &random)]
        case 8 where depth < 3:
            return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in value(&random, tenants: tenants, sessions: sessions, depth: depth + 1) })
        case 9 where depth < 3:
            var object: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                let key = (keys + ["sport", "nickname", "firstName", "gradYear", "teamGender"]).randomElement(using: &random)!
                object[key] = value(&random, tenants: tenants, sessions: sessions, depth: depth + 1)
            }
            return .object(object)
        default: return .string("u\(Int.random(in: 0...5, using: &random))")
        }
    }

    @Test(arguments: [UInt64(20_261_123), 7, 424242])
    func randomRequestsNeverCrashOrAnswerInternalError(seed: UInt64) async throws {
        var random = SeededGenerator(state: seed)
        try await PlatformdProcess.withServer { server in
            let info = try await server.call("platform.info")
            let tenants = info["result"]?["tenants"]?.arrayValue?.compactMap { $0["tenant"]?.stringValue } ?? []
            #expect(tenants == Hosted.tenants, "every registered tenant is fuzzed")
            var sessions: [String] = []
            for tenant in tenants {
                let started = try await server.call("flow.start", ["tenant": .string(tenant), "userId": "fuzz"], id: 1)
                if let id = started["result"]?["sessionId"]?.stringValue { sessions.append(id) }
            }
            let methods = PlatformMethod.allCases.map(\.rawValue) + ["flow.nope", ""]
            for index in 0..<400 {
                let method = methods.randomElement(using: &random)!
                var params: [String: JSONValue] = [:]
                for key in Self.keys where Int.random(in: 0..<3, using: &random) == 0 {
                    params[key] = Self.value(&random, tenants: tenants, sessions: sessions)
                }
                // Mostly a real tenant, so requests get past the first checks.
                if Int.random(in: 0..<4, using: &random) > 0 { params["tenant"] = .string(tenants.randomElement(using: &random)!) }
                let reply = try await server.call(method, .object(params), id: .int(Int64(index + 10)))
                #expect(reply["jsonrpc"] == "2.0")
                #expect(reply["id"] == .int(Int64(index + 10)))
                #expect((reply["result"] == nil) != (reply["error"] == nil), "\(reply.serialized().prefix(300))")
                #expect(
                    reply["error"]?["code"] != -32603, "\(method) \(JSONValue.object(params).serialized().prefix(300)) -> \(reply.serialized().prefix(300))")
            }
            // Still serving, and nothing went wrong inside.
            #expect(try await server.call("platform.info", id: 9999)["result"] != nil)
            #expect(!server.stderrText.contains("Internal error"))
        }
    }
}
