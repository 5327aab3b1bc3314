import Foundation
import PlatformTesting
import PlatformCore
import Testing

/// `--tenants FILE`: many tenants per plugin, each with its own settings, isolated from the others;
/// a file that cannot be used stops the server with exit code 78 and one line saying why.
@Suite("Tenants from a file")
struct TenancyTests {
    static func write(_ text: String, in directory: URL, name: String = "tenants.json") throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static let twoTeePals = """
        { "tenants": [
            { "id": "teepals", "plugin": "TeePals" },
            { "id": "teepals-eu", "plugin": "TeePals", "settings": { "minimumAge": 16 } },
            { "id": "club-a", "plugin": "StatLocker" }
        ] }
        """

    @Test(arguments: [
        ("{ \"tenants\": [ { \"id\": \"x\", \"plugin\": \"TeePals\" }, ", nil, nil, "invalid JSON"),
        (#"{ "tenants": [ { "id": "x", "plugin": "PawPal" } ] }"#, "x", "plugin", "unknown plugin PawPal"),
        (#"{ "tenants": [ { "id": "x", "plugin": "TeePals", "settings": { "maxAge": 3 } } ] }"#, "x", "settings.maxAge", "unknown setting"),
        (#"{ "tenants": [ { "id": "x", "plugin": "TeePals", "settings": { "minimumAge": "16" } } ] }"#, "x", "settings.minimumAge", "must be an integer"),
        (#"{ "tenants": [ { "id": "x", "plugin": "TeePals", "settings": { "minimumAge": 12 } } ] }"#, "x", "settings.minimumAge", "between 13 and 21"),
        (#"{ "tenants": [ { "id": "x", "plugin": "TeePals" }, { "id": "x", "plugin": "StatLocker" } ] }"#, "x", "id", "another tenant"),
        (#"{ "tenants": [ { "id": "Bad_Id", "plugin": "TeePals" } ] }"#, "Bad_Id", "id", "a-z, 0-9 and -"),
        (#"{ "tenants": [ { "id": "x", "plugin": "AirFit", "settings": { "analyzerUrl": "http://127.0.0.1:9" } } ] }"#, "x", "settings.analyzerModel", "required"),
        (#"{ "tenants": [ { "id": "x", "plugin": "AirFit", "settings": { "analyzerApiKeyEnv": "sk-live-123" } } ] }"#, "x", "settings.analyzerApiKeyEnv", "environment variable"),
        (#"{ "tenants": [ { "id": "x", "plugin": "TeePals", "limits": { "requestsPerSecond": 0 } } ] }"#, "x", "limits.requestsPerSecond", "above 0"),
        (#"{ "tenants": [ { "id": "x", "plugin": "StatLocker", "webhooks": [ { "url": "http://127.0.0.1:9000/hooks", "secretEnv": "PLATFORMD_TEST_UNSET_SECRET", "events": ["session.completed"] } ] } ] }"#,
         "x", "webhooks[0].secretEnv", "PLATFORMD_TEST_UNSET_SECRET is not set in the environment"),
        (#"{ "tenants": [ { "id": "x", "plugin": "StatLocker", "webhooks": [ { "url": "ftp://127.0.0.1/hooks", "secretEnv": "PATH", "events": ["session.completed"] } ] } ] }"#,
         "x", "webhooks[0].url", "http or https"),
        (#"{ "tenants": [ { "id": "x", "plugin": "StatLocker", "webhooks": [ { "url": "http://127.0.0.1:9000/a", "secretEnv": "PATH", "events": ["session.completed"] }, { "url": "http://127.0.0.1:9000/b", "secretEnv": "PATH", "events": ["session.started"] } ] } ] }"#,
         "x", "webhooks[1].events", "unknown event type session.started"),
        (#"{ "tenants": [ { "id": "x", "plugin": "StatLocker", "webhooks": [ { "url": "http://127.0.0.1:9000/a", "secretEnv": "PATH", "events": [] } ] } ] }"#,
         "x", "webhooks[0].events", "non-empty"),
        (#"{ "tenants": [ { "id": "x", "plugin": "StatLocker", "webhooks": [ { "url": "http://127.0.0.1:9000/a", "secretEnv": "PATH", "events": ["profile.updated"], "retries": 3 } ] } ] }"#,
         "x", "webhooks[0].retries", "unknown key"),
        (#"{ "tenants": [ { "id": "x", "plugin": "StatLocker", "webhooks": [ { "url": "http://127.0.0.1:9000/a", "secretEnv": "a secret", "events": ["profile.updated"] } ] } ] }"#,
         "x", "webhooks[0].secretEnv", "never the secret itself"),
    ] as [(String, String?, String?, String)])
    func aBadFileStopsTheServerWithOneLineNamingFileTenantAndKey(file: String, tenant: String?, key: String?, reason: String) async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.write(file, in: directory)
            try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", path]) { server in
                let exit = try await server.waitForExit()
                #expect(exit == .init(status: 78, signaled: false))
                let lines = server.stderrText.split(separator: "\n")
                #expect(lines.count == 1, "\(server.stderrText)")
                let line = String(lines.first ?? "")
                #expect(line.contains(path))
                if let tenant { #expect(line.contains("tenant \(tenant)"), "\(line)") }
                if let key { #expect(line.contains("key \(key)"), "\(line)") }
                #expect(line.contains(reason), "\(line)")
                #expect(server.stdoutBytes.isEmpty)
            }
        }
    }

    @Test func aMissingFileIsRefusedToo() async throws {
        try await PlatformdProcess.with(["info", "--tenants", "/nonexistent/tenants.json"]) { server in
            let exit = try await server.waitForExit()
            #expect(exit.status == 78)
            #expect(server.stderrText.contains("/nonexistent/tenants.json"))
        }
    }

    /// Two TeePals tenants with different minimum ages: the same 14-year-old is accepted by one and
    /// rejected by the other, and neither sees the other's sessions, records or funnel.
    @Test func twoTenantsOfOnePluginBehaveDifferentlyAndNeverSeeEachOther() async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.write(Self.twoTeePals, in: directory)
            try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", path]) { server in
                let info = try await server.call("platform.info")["result"]
                #expect(info?["protocol"] == 2)
                #expect(info?["tenants"]?.arrayValue?.map { $0["tenant"]?.stringValue ?? "" } == ["teepals", "teepals-eu", "club-a"])
                #expect(info?["tenants"]?.arrayValue?.map { $0["plugin"]?.stringValue ?? "" } == ["TeePals", "TeePals", "StatLocker"])

                var id: Int64 = 0
                func call(_ method: String, _ params: JSONValue) async throws -> JSONValue {
                    id += 1
                    return try await server.call(method, params, id: .int(id))
                }
                func walk(_ tenant: JSONValue) async throws -> JSONValue {
                    var view = try #require(try await call("flow.start", ["tenant": tenant, "userId": "teen"])["result"])
                    view = try #require(try await call("flow.submit", [
                        "tenant": tenant, "sessionId": view["sessionId"]!, "stepId": "nickname", "revision": view["revision"]!,
                        "values": ["nickname": "Teen Golfer"],
                    ])["result"])
                    let today = Date()
                    let born = Calendar(identifier: .gregorian).date(byAdding: .year, value: -14, to: today)!
                    let birthdate = String(Timestamp.string(born).prefix(10))
                    return try #require(try await call("flow.submit", [
                        "tenant": tenant, "sessionId": view["sessionId"]!, "stepId": "birthdate", "revision": view["revision"]!,
                        "values": ["birthdate": .string(birthdate)],
                    ])["result"])
                }
                let global = try await walk("teepals")
                #expect(global["status"] == "active")
                #expect(global["step"]?["id"] == "location")
                let eu = try await walk("teepals-eu")
                #expect(eu["status"] == "rejected")
                #expect(eu["rejection"] == ["code": "underage", "message": "You must be 16+ to use TeePals"])

                // Each tenant's session is "not found" in the other.
                let crossed = try await call("flow.get", ["tenant": "teepals-eu", "sessionId": global["sessionId"]!])
                #expect(crossed["error"]?["code"] == -32002)
                let back = try await call("flow.get", ["tenant": "teepals", "sessionId": eu["sessionId"]!])
                #expect(back["error"]?["code"] == -32002)
                #expect(try await call("flow.get", ["tenant": "club-a", "userId": "teen"])["error"]?["code"] == -32002)

                let globalFunnel = try #require(try await call("analytics.funnel", ["tenant": "teepals"])["result"])
                let euFunnel = try #require(try await call("analytics.funnel", ["tenant": "teepals-eu"])["result"])
                #expect(globalFunnel["started"] == 1)
                #expect(globalFunnel["rejected"] == 0)
                #expect(euFunnel["started"] == 1)
                #expect(euFunnel["rejected"] == 1)
                #expect(try await call("profile.get", ["tenant": "teepals-eu", "userId": "teen"])["error"]?["code"] == -32002)

                let describeEU = try #require(try await call("flow.describe", ["tenant": "teepals-eu"])["result"])
                #expect(describeEU["tenant"] == "teepals-eu")
            }
        }
    }

    @Test func infoAndDescribeReadTheSameFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.write(Self.twoTeePals, in: directory)
            try await PlatformdProcess.with(["info", "--tenants", path]) { server in
                let exit = try await server.waitForExit()
                #expect(exit.status == 0)
                let lines = String(decoding: server.stdoutBytes, as: UTF8.self).split(separator: "\n")
                #expect(lines.map { $0.split(separator: "\t").first.map(String.init) ?? "" } == ["teepals", "teepals-eu", "club-a"])
            }
            try await PlatformdProcess.with(["describe", "--tenants", path, "teepals-eu"]) { server in
                let exit = try await server.waitForExit()
                #expect(exit.status == 0)
                let description = try JSONValue.parse(server.stdoutBytes)
                #expect(description["tenant"] == "teepals-eu")
            }
        }
    }

    /// A tenant's token bucket: a burst, then -32007 with how long to wait; other tenants go on.
    /// (One token per 100 s, so a slow machine cannot refill the bucket between requests.)
    @Test func aTenantOverItsRateLimitGetsRetryAfterAndOthersAreServed() async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.write("""
                { "tenants": [
                    { "id": "slow", "plugin": "StatLocker", "limits": { "requestsPerSecond": 0.01, "burst": 3 } },
                    { "id": "fast", "plugin": "StatLocker" }
                ] }
                """, in: directory)
            try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", path]) { server in
                var codes: [Int?] = []
                for index in 0..<5 {
                    let reply = try await server.call("flow.describe", ["tenant": "slow"], id: .int(Int64(index)))
                    codes.append(reply["error"]?["code"]?.intValue)
                    if let wait = reply["error"]?["data"]?["retryAfterMs"] {
                        #expect((wait.intValue ?? 0) > 0)
                        #expect((wait.intValue ?? 0) <= 100_000)
                    }
                }
                #expect(codes == [nil, nil, nil, -32007, -32007])
                #expect(try await server.call("flow.describe", ["tenant": "fast"], id: 9)["error"] == nil)
                #expect(server.stderrText.contains("rate limit"))
            }
        }
    }
}
