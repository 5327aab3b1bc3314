import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
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

    /// Three tenants: two of the first registered plugin (the second under its own id), and one of
    /// the last.
    static var threeTenants: String {
        """
        { "tenants": [
            { "id": "\(Hosted.tenant)", "plugin": "\(Hosted.plugin)" },
            { "id": "\(Hosted.tenant)-eu", "plugin": "\(Hosted.plugin)" },
            { "id": "club-a", "plugin": "\(Hosted.registrations.last?.name ?? Hosted.plugin)" }
        ] }
        """
    }

    /// Faults every plugin's tenants share, on the first registered plugin; each plugin's own
    /// settings are checked in its test target.
    @Test(
        arguments: [
            ("{ \"tenants\": [ { \"id\": \"x\", \"plugin\": \"\(Hosted.plugin)\" }, ", nil, nil, "invalid JSON"),
            (#"{ "tenants": [ { "id": "x", "plugin": "NoSuchPlugin" } ] }"#, "x", "plugin", "unknown plugin NoSuchPlugin"),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "settings": { "noSuchSetting": 3 } } ] }"#, "x", "settings.noSuchSetting",
                "unknown setting"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)" }, { "id": "x", "plugin": "\#(Hosted.registrations.last?.name ?? Hosted.plugin)" } ] }"#,
                "x", "id", "another tenant"
            ),
            (#"{ "tenants": [ { "id": "Bad_Id", "plugin": "\#(Hosted.plugin)" } ] }"#, "Bad_Id", "id", "a-z, 0-9 and -"),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "limits": { "requestsPerSecond": 0 } } ] }"#, "x", "limits.requestsPerSecond",
                "above 0"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "sessions": { "expireAfterDays": 0 } } ] }"#, "x", "sessions.expireAfterDays",
                "above 0"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "sessions": { "abandonedAfterHours": "24" } } ] }"#, "x",
                "sessions.abandonedAfterHours", "a number"
            ),
            (#"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "retention": { "eventDays": 30 } } ] }"#, "x", "retention.eventDays", "unknown key"),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "sessions": { "abandonedAfterHours": 800, "expireAfterDays": 30 } } ] }"#, "x",
                "sessions.abandonedAfterHours", "shorter than expireAfterDays"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "webhooks": [ { "url": "http://127.0.0.1:9000/hooks", "secretEnv": "PLATFORMD_TEST_UNSET_SECRET", "events": ["session.completed"] } ] } ] }"#,
                "x", "webhooks[0].secretEnv", "PLATFORMD_TEST_UNSET_SECRET is not set in the environment"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "webhooks": [ { "url": "ftp://127.0.0.1/hooks", "secretEnv": "PATH", "events": ["session.completed"] } ] } ] }"#,
                "x", "webhooks[0].url", "http or https"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "webhooks": [ { "url": "http://127.0.0.1:9000/a", "secretEnv": "PATH", "events": ["session.completed"] }, { "url": "http://127.0.0.1:9000/b", "secretEnv": "PATH", "events": ["session.started"] } ] } ] }"#,
                "x", "webhooks[1].events", "unknown event type session.started"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "webhooks": [ { "url": "http://127.0.0.1:9000/a", "secretEnv": "PATH", "events": [] } ] } ] }"#,
                "x", "webhooks[0].events", "non-empty"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "webhooks": [ { "url": "http://127.0.0.1:9000/a", "secretEnv": "PATH", "events": ["profile.updated"], "retries": 3 } ] } ] }"#,
                "x", "webhooks[0].retries", "unknown key"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "webhooks": [ { "url": "http://127.0.0.1:9000/a", "secretEnv": "a secret", "events": ["profile.updated"] } ] } ] }"#,
                "x", "webhooks[0].secretEnv", "never the secret itself"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "experiments": [ { "id": "e", "flow": "nope", "variants": [ { "id": "a", "flow": "onboarding", "weight": 50 }, { "id": "b", "flow": "onboarding", "weight": 50 } ] } ] } ] }"#,
                "x", "experiments.e.flow", "unknown flow nope"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "experiments": [ { "id": "e", "flow": "onboarding", "variants": [ { "id": "a", "flow": "onboarding", "weight": 50 }, { "id": "b", "flow": "onboarding", "weight": 50 } ], "control": "c" } ] } ] }"#,
                "x", "experiments.e.control", "unknown control c"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "experiments": [ { "id": "e", "flow": "onboarding", "variants": [ { "id": "a", "flow": "onboarding", "weight": 0 }, { "id": "b", "flow": "onboarding", "weight": 1 } ] } ] } ] }"#,
                "x", "experiments.e.variants.#1.weight", "positive number"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "experiments": [ { "id": "e", "flow": "onboarding", "variants": [ { "id": "a", "flow": "onboarding", "version": "9", "weight": 1 }, { "id": "b", "flow": "onboarding", "weight": 1 } ] } ] } ] }"#,
                "x", "experiments.e.variants.#1.version", "unknown version 9"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "experiments": [ { "id": "e", "flow": "onboarding", "variants": [ { "id": "a", "flow": "onboarding", "weight": 50 }, { "id": "b", "flow": "onboarding", "weight": 50 } ], "coverage": 1.5 } ] } ] }"#,
                "x", "experiments.e.coverage", "from 0.0 to 1.0"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "experiments": [ { "id": "e", "flow": "onboarding", "variants": [ { "id": "a", "flow": "onboarding", "weight": 50 }, { "id": "b", "flow": "onboarding", "weight": 50 } ], "namespace": { "id": "n", "range": [0.5, 1.2] } } ] } ] }"#,
                "x", "experiments.e.namespace.range", "0 <= FROM <= TO <= 1"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "experiments": [ { "id": "e", "flow": "onboarding", "variants": [ { "id": "a", "flow": "onboarding", "weight": 50 }, { "id": "b", "flow": "onboarding", "weight": 50 } ], "status": "shipped", "winner": "z" } ] } ] }"#,
                "x", "experiments.e.winner", "unknown winner z"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "experiments": [ { "id": "e", "flow": "onboarding", "variants": [ { "id": "a", "flow": "onboarding", "weight": 50 }, { "id": "b", "flow": "onboarding", "weight": 50 } ] }, { "id": "f", "flow": "onboarding", "variants": [ { "id": "a", "flow": "onboarding", "weight": 50 }, { "id": "b", "flow": "onboarding", "weight": 50 } ] } ] } ] }"#,
                "x", "experiments.f.namespace", "overlaps running experiment e"
            ),
            (
                ##"{ "tenants": [ { "id": "x", "plugin": "\##(Hosted.plugin)", "hosted": { "brandColor": "#FFFF00" } } ] }"##, "x", "hosted.brandColor",
                "light link #FFFF00 on background"
            ),
            (#"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "hosted": { "brandColor": "indigo" } } ] }"#, "x", "hosted.brandColor", "RRGGBB"),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "hosted": { "returnUrl": "javascript:alert(1)" } } ] }"#, "x", "hosted.returnUrl",
                "absolute https://"
            ),
            (
                #"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "hosted": { "logo": "no-such-logo.png" } } ] }"#, "x", "hosted.logo",
                "cannot be read"
            ),
            (#"{ "tenants": [ { "id": "x", "plugin": "\#(Hosted.plugin)", "hosted": { "theme": "dark" } } ] }"#, "x", "hosted.theme", "unknown key"),
        ] as [(String, String?, String?, String)])
    func aBadFileStopsTheServerWithOneLineNamingFileTenantAndKey(file: String, tenant: String?, key: String?, reason: String) async throws {
        try await expectTenantsFileRefused(file, tenant: tenant, key: key, reason: reason)
    }

    @Test func aMissingFileIsRefusedToo() async throws {
        try await PlatformdProcess.with(["info", "--tenants", "/nonexistent/tenants.json"]) { server in
            let exit = try await server.waitForExit()
            #expect(exit.status == 78)
            #expect(server.stderrText.contains("/nonexistent/tenants.json"))
        }
    }

    /// Two tenants of one plugin never see each other's sessions, records or funnel. (A plugin's
    /// tenants differing by their settings are tested in its own target.)
    @Test func twoTenantsOfOnePluginNeverSeeEachOther() async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.write(Self.threeTenants, in: directory)
            try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", path]) { server in
                let first = JSONValue.string(Hosted.tenant)
                let second = JSONValue.string("\(Hosted.tenant)-eu")
                let completed = try await server.complete(tenant: Hosted.tenant, userId: "walker")
                let started = try #require(try await server.call("flow.start", ["tenant": second, "userId": "other"])["result"])
                // Each tenant's session is "not found" in the other.
                #expect(try await server.call("flow.get", ["tenant": second, "sessionId": completed["sessionId"]!])["error"]?["code"] == -32002)
                #expect(try await server.call("flow.get", ["tenant": first, "sessionId": started["sessionId"]!])["error"]?["code"] == -32002)
                #expect(try await server.call("flow.get", ["tenant": second, "userId": "walker"])["error"]?["code"] == -32002)
                #expect(try await server.call("profile.get", ["tenant": first, "userId": "walker"])["result"] != nil)
                #expect(try await server.call("profile.get", ["tenant": second, "userId": "walker"])["error"]?["code"] == -32002)
                let firstFunnel = try #require(try await server.call("analytics.funnel", ["tenant": first])["result"])
                let secondFunnel = try #require(try await server.call("analytics.funnel", ["tenant": second])["result"])
                #expect(firstFunnel["started"] == 1)
                #expect(firstFunnel["completed"] == 1)
                #expect(secondFunnel["started"] == 1)
                #expect(secondFunnel["completed"] == 0)
                #expect(try await server.call("flow.describe", ["tenant": second])["result"]?["tenant"] == second)
            }
        }
    }

    @Test func infoAndDescribeReadTheSameFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.write(Self.threeTenants, in: directory)
            try await PlatformdProcess.with(["info", "--tenants", path]) { server in
                let exit = try await server.waitForExit()
                #expect(exit.status == 0)
                let lines = String(decoding: server.stdoutBytes, as: UTF8.self).split(separator: "\n")
                #expect(lines.map { $0.split(separator: "\t").first.map(String.init) ?? "" } == [Hosted.tenant, "\(Hosted.tenant)-eu", "club-a"])
            }
            try await PlatformdProcess.with(["describe", "--tenants", path, "\(Hosted.tenant)-eu"]) { server in
                let exit = try await server.waitForExit()
                #expect(exit.status == 0)
                let description = try JSONValue.parse(server.stdoutBytes)
                #expect(description["tenant"] == .string("\(Hosted.tenant)-eu"))
            }
        }
    }

    /// A tenant's token bucket: a burst, then -32007 with how long to wait; other tenants go on.
    /// (One token per 10,000 s, so a slow machine cannot refill the bucket between requests: at
    /// one token per 100 s, a starved start of a whole run once took that long over four requests.)
    @Test func aTenantOverItsRateLimitGetsRetryAfterAndOthersAreServed() async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.write(
                """
                { "tenants": [
                    { "id": "slow", "plugin": "\(Hosted.plugin)", "limits": { "requestsPerSecond": 0.0001, "burst": 3 } },
                    { "id": "fast", "plugin": "\(Hosted.plugin)" }
                ] }
                """, in: directory)
            try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", path]) { server in
                var codes: [Int?] = []
                for index in 0..<5 {
                    let reply = try await server.call("flow.describe", ["tenant": "slow"], id: .int(Int64(index)))
                    codes.append(reply["error"]?["code"]?.intValue)
                    if let wait = reply["error"]?["data"]?["retryAfterMs"] {
                        #expect((wait.intValue ?? 0) > 0)
                        #expect((wait.intValue ?? 0) <= 10_000_000)
                    }
                }
                #expect(codes == [nil, nil, nil, -32007, -32007])
                #expect(try await server.call("flow.describe", ["tenant": "fast"], id: 9)["error"] == nil)
                #expect(server.stderrText.contains("rate limit"))
            }
        }
    }
}
