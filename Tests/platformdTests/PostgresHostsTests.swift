import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Several `platformd serve` processes on one PostgreSQL database (`PLATFORMD_TEST_POSTGRES_URL`).
@Suite("platformd: several hosts on one PostgreSQL database")
struct PostgresHostsTests {
    static var url: String? {
        // The tests that need it say so with `.enabled(if:)`, which reports the skip.
        guard let url = ProcessInfo.processInfo.environment["PLATFORMD_TEST_POSTGRES_URL"], !url.isEmpty else { return nil }
        return url
    }

    /// A server that cannot reach its database says where and why, and exits 69 (EX_UNAVAILABLE).
    /// Needs no database.
    @Test func anUnreachableDatabaseEndsStartUpWithExitCode69() async throws {
        let server = try PlatformdProcess(["serve", "--db", "postgres://platformd:secret@127.0.0.1:1/nowhere"])
        defer { server.kill() }
        #expect(try await server.waitForExit() == .init(status: 69, signaled: false))
        #expect(server.stderrText.contains("cannot reach PostgreSQL at 127.0.0.1:1/nowhere"), "\(server.stderrText)")
        #expect(!server.stderrText.contains("secret"))
    }

    static func submit(_ server: PlatformdProcess, _ tenant: String, _ view: JSONValue, _ values: [String: JSONValue], id: Int) async throws -> JSONValue {
        try await server.call(
            "flow.submit",
            [
                "tenant": .string(tenant), "sessionId": view["sessionId"] ?? .null, "stepId": view["step"]?["id"] ?? .null,
                "revision": view["revision"] ?? .null, "values": .object(values),
            ], id: .int(Int64(id)))
    }

    /// Two hosts serve one user's walk alternately (generic answers, on the first registered
    /// tenant), race one submit (one winner, one -32003), see the same keys, profile and funnel;
    /// one killed with SIGKILL leaves the other serving.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["PLATFORMD_TEST_POSTGRES_URL"]?.isEmpty == false,
            "needs PLATFORMD_TEST_POSTGRES_URL (.ci/run starts a PostgreSQL)"))
    func twoHostsServeOneWalkAlternatelyAndSurviveAKill() async throws {
        guard let url = Self.url else { return }
        let tenant = Hosted.tenant
        let user = "walker-\(UUID().uuidString.prefix(8))"
        let key = try await AuthTests.createKey(url, ["--tenant", tenant])
        let a = try PlatformdProcess(["serve", "--db", url, "--db-pool-size", "4"])
        let b = try PlatformdProcess(["serve", "--db", url, "--db-pool-size", "4"])
        defer {
            a.kill()
            b.kill()
        }
        let hosts = [a, b]
        for host in hosts {
            let login = try await host.call("auth.login", ["key": .string(key)])
            #expect(login["result"]?["principal"] == ["kind": "tenant", "tenant": .string(tenant)], "\(login.serialized())")
        }
        let started = try await a.call(
            "flow.start",
            [
                "tenant": .string(tenant), "userId": .string(user), "user": ["firstName": "Alex", "email": "alex@example.com"],
            ], id: 2)
        var view = try #require(started["result"], "\(started.serialized())")
        let firstStep = view["step"]?["id"]

        var answers = GenericAnswers()
        var raced = false
        var index = 0
        while view["status"] == "active" {
            index += 1
            try #require(index < 80, "not completed: \(view.serialized())")
            let fields = view["step"]?["fields"]?.arrayValue ?? []
            let values = try await answers.values(for: fields)
            if !raced {
                // The race: both hosts submit this step at the same revision, with different
                // answers (the same answers twice would be one request retried, answered alike):
                // the first field whose next candidate differs.
                var other = answers
                if let id = fields.first(where: { $0["visibleWhen"].nonNull == nil })?["id"]?.stringValue {
                    _ = other.retry(after: [["field": .string(id)]])
                }
                let variant = try await other.values(for: fields)
                if !fields.isEmpty, variant != values {
                    raced = true
                    let current = view
                    async let raceA = Self.submit(a, tenant, current, values, id: 3)
                    async let raceB = Self.submit(b, tenant, current, variant, id: 3)
                    let replies = try await [raceA, raceB]
                    #expect(replies.filter { $0["result"] != nil }.count == 1, "\(replies.map { $0.serialized() })")
                    let loser = try #require(replies.first { $0["error"] != nil })
                    #expect(loser["error"]?["code"] == -32003)
                    let revision = view["revision"]?.intValue ?? 0
                    #expect(loser["error"]?["data"]?["session"]?["revision"]?.intValue == revision + 1)
                    view = try #require(replies.first { $0["result"] != nil }?["result"])
                    continue
                }
            }
            let host = hosts[index % 2]
            let reply = try await Self.submit(host, tenant, view, values, id: 10 + index)
            if let error = reply["error"], error["code"] == -32004, answers.retry(after: error["data"]?["errors"]?.arrayValue ?? []) {
                continue
            }
            view = try #require(reply["result"], "step \(index) on host \(index % 2): \(reply.serialized())")
        }
        #expect(raced)
        #expect(view["status"] == "completed", "\(view.serialized())")

        // The same profile, funnel and keys from each host.
        let profiles = try await hosts.asyncMap { try await $0.call("profile.get", ["tenant": .string(tenant), "userId": .string(user)], id: 40) }
        #expect(profiles[0]["result"]?["records"]?.objectValue?.isEmpty == false, "\(profiles[0].serialized())")
        #expect(profiles[0]["result"] == profiles[1]["result"])
        let funnels = try await hosts.asyncMap { try await $0.call("analytics.funnel", ["tenant": .string(tenant)], id: 41) }
        #expect(funnels[0]["result"]?["completed"]?.intValue ?? 0 >= 1, "\(funnels[0].serialized())")
        #expect(funnels[0]["result"] == funnels[1]["result"])

        // Host A dies mid-service; B goes on.
        a.send(signal: SIGKILL)
        _ = try await a.waitForExit()
        let again = try await b.call("flow.start", ["tenant": .string(tenant), "userId": .string(user + "-2")], id: 50)
        #expect(again["result"]?["step"]?["id"] == firstStep, "\(again.serialized())")
        let profile = try await b.call("profile.get", ["tenant": .string(tenant), "userId": .string(user)], id: 51)
        #expect(profile["result"] == profiles[1]["result"])
        try b.closeStdin()
        #expect(try await b.waitForExit() == .init(status: 0, signaled: false), "\(b.stderrText)")
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
