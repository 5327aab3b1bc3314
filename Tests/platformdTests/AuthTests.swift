import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Keys, logins, user tokens and what each principal may do, against the real binary.
@Suite("Keys, logins and user tokens")
struct AuthTests {
    /// Runs a one-shot command to completion and returns its stdout.
    static func command(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await PlatformdProcess.with(arguments) { process in
            let exit = try await process.waitForExit()
            return (exit.status, String(decoding: process.stdoutBytes, as: UTF8.self), process.stderrText)
        }
    }

    static func createKey(_ db: String, _ scope: [String]) async throws -> String {
        if !FileManager.default.fileExists(atPath: db) { try await PlatformdProcess.createDatabase(db) }
        let created = try await command(["keys", "create", "--db", db] + scope)
        #expect(created.status == 0, "\(created.stderr)")
        let lines = created.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        return String(lines.first ?? "")
    }

    /// Every method under every principal: allowed (any answer but -32001), refused (-32001), or
    /// another user's session (-32002).
    @Test(.enabled(if: Hosted.otherTenant != nil, "another tenant's key needs a second registered plugin"))
    func everyMethodAnswersEachPrincipalAsTheContractSays() async throws {
        // Two registered tenants: one the keys and tokens are for, another they must not reach.
        let tenant = Hosted.tenant
        let other = try #require(Hosted.otherTenant)
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("auth.sqlite").path
            let admin = try await Self.createKey(db, ["--admin"])
            let tenantKey = try await Self.createKey(db, ["--tenant", tenant, "--name", "backend"])
            let otherKey = try await Self.createKey(db, ["--tenant", other])
            #expect(admin.hasPrefix("pdk_") && tenantKey.hasPrefix("pdk_") && admin != tenantKey)

            try await PlatformdProcess.with(["serve", "--db", db, "--auth", "required"]) { server in
                var id: Int64 = 0
                func rpc(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
                    id += 1
                    return try await server.call(method, params, id: .int(id))
                }
                func login(_ params: JSONValue) async throws -> JSONValue {
                    try await rpc("auth.login", params)
                }
                // Before any login: only auth.login and rpc.discover.
                #expect(try await rpc("platform.info")["error"]?["code"] == -32001)
                #expect(try await rpc("rpc.discover")["result"] != nil)
                #expect(try await login(["key": "pdk_nope"])["error"]?["code"] == -32001)

                // Sessions for two users, made as admin.
                #expect(try await login(["key": .string(admin)])["result"]?["principal"] == ["kind": "admin"])
                let mine = try #require(try await rpc("flow.start", ["tenant": .string(tenant), "userId": "u1"])["result"])
                let theirs = try #require(try await rpc("flow.start", ["tenant": .string(tenant), "userId": "u2"])["result"])
                let token = try #require(try await rpc("auth.userToken", ["tenant": .string(tenant), "userId": "u1", "ttlSeconds": 600])["result"])
                #expect(token["token"]?.stringValue?.hasPrefix("pdt_") == true)
                #expect(token["expiresAt"]?.stringValue.flatMap(Timestamp.date) != nil)

                func requests(tenant: JSONValue, userId: JSONValue, session: JSONValue) -> [(String, JSONValue)] {
                    [
                        ("platform.info", [:]),
                        ("flow.start", ["tenant": tenant, "userId": userId]),
                        ("flow.get", ["tenant": tenant, "sessionId": session]),
                        ("flow.submit", ["tenant": tenant, "sessionId": session, "stepId": "any-step", "revision": 99, "values": [:]]),
                        ("flow.back", ["tenant": tenant, "sessionId": session, "revision": 99]),
                        ("flow.goto", ["tenant": tenant, "sessionId": session, "stepId": "any-step", "revision": 99]),
                        ("flow.search", ["tenant": tenant, "sessionId": session, "field": "any-field", "query": "x"]),
                        ("flow.describe", ["tenant": tenant]),
                        ("profile.get", ["tenant": tenant, "userId": userId]),
                        ("profile.update", ["tenant": tenant, "userId": userId, "values": [:]]),
                        ("gate.check", ["tenant": tenant, "userId": userId, "action": "post"]),
                        ("analytics.funnel", ["tenant": tenant]),
                        ("auth.userToken", ["tenant": tenant, "userId": userId]),
                        ("events.list", ["tenant": tenant]),
                        ("user.export", ["tenant": tenant, "userId": userId]),
                        // A user nobody has: erasing answers zeros, so the matrix keeps its sessions.
                        ("user.erase", ["tenant": tenant, "userId": "nobody-to-erase"]),
                    ]
                }
                enum Outcome: Equatable { case allowed, unauthorized, notFound }
                func outcomes(_ principal: JSONValue, tenant: JSONValue, userId: JSONValue, session: JSONValue) async throws -> [String: Outcome] {
                    var result: [String: Outcome] = [:]
                    for (method, params) in requests(tenant: tenant, userId: userId, session: session) {
                        // Each request is made fresh after a login, so a refusal cannot leak into the next.
                        let loggedIn = try await login(principal)
                        #expect(loggedIn["result"] != nil)
                        let reply = try await rpc(method, params)
                        let code = reply["error"]?["code"]?.intValue
                        result[method] = code == -32001 ? .unauthorized : code == -32002 && !method.hasPrefix("profile.") ? .notFound : .allowed
                    }
                    return result
                }
                let all = requests(tenant: "x", userId: "x", session: "x").map(\.0)
                func expect(_ got: [String: Outcome], _ want: (String) -> Outcome, _ who: String) {
                    for method in all { #expect(got[method] == want(method), "\(who) calling \(method)") }
                }
                let userMethods: Set<String> = [
                    "flow.start", "flow.get", "flow.submit", "flow.back", "flow.goto", "flow.search", "flow.describe",
                    "profile.get", "profile.update", "gate.check", "user.export",
                ]
                let adminKey: JSONValue = ["key": .string(admin)]
                let tenantsKey: JSONValue = ["key": .string(tenantKey)]
                let otherTenantsKey: JSONValue = ["key": .string(otherKey)]
                let userToken: JSONValue = ["token": token["token"]!]

                expect(try await outcomes(adminKey, tenant: .string(tenant), userId: "u1", session: mine["sessionId"]!), { _ in .allowed }, "admin")
                expect(
                    try await outcomes(tenantsKey, tenant: .string(tenant), userId: "u1", session: mine["sessionId"]!), { _ in .allowed }, "its tenant's key")
                expect(
                    try await outcomes(otherTenantsKey, tenant: .string(tenant), userId: "u1", session: mine["sessionId"]!),
                    { $0 == "platform.info" ? .allowed : .unauthorized }, "another tenant's key")
                expect(
                    try await outcomes(userToken, tenant: .string(tenant), userId: "u1", session: mine["sessionId"]!),
                    { userMethods.contains($0) ? .allowed : .unauthorized }, "the user's token")
                expect(
                    try await outcomes(userToken, tenant: .string(tenant), userId: "u2", session: theirs["sessionId"]!),
                    { method in
                        guard userMethods.contains(method) else { return .unauthorized }
                        // Naming another user is refused; another user's session does not exist.
                        return ["flow.get", "flow.submit", "flow.back", "flow.goto", "flow.search"].contains(method)
                            ? .notFound
                            : method == "flow.describe" ? .allowed : .unauthorized
                    }, "the user's token, for another user")
                expect(
                    try await outcomes(userToken, tenant: .string(other), userId: "u1", session: mine["sessionId"]!),
                    { _ in .unauthorized }, "the user's token, for another tenant")

                // Keys list without secrets; a revoked key stops working from the next request on.
                let listed = try await Self.command(["keys", "list", "--db", db])
                #expect(listed.status == 0)
                #expect(listed.stdout.contains("backend"))
                #expect(!listed.stdout.contains(tenantKey) && !listed.stdout.contains(admin))
                let keyID = try #require(listed.stdout.split(separator: "\n").first { $0.contains("backend") }?.split(separator: " ").first)
                #expect(try await login(tenantsKey)["result"] != nil)
                #expect(try await rpc("flow.describe", ["tenant": .string(tenant)])["result"] != nil)
                let revoked = try await Self.command(["keys", "revoke", String(keyID), "--db", db])
                #expect(revoked.status == 0, "\(revoked.stderr)")
                #expect(try await rpc("flow.describe", ["tenant": .string(tenant)])["error"]?["code"] == -32001)
                #expect(try await login(tenantsKey)["error"]?["code"] == -32001)
                let afterRevoke = try await Self.command(["keys", "list", "--db", db])
                #expect(afterRevoke.stdout.contains("revoked"))

                // Secrets and tokens never reach the log.
                for secret in [admin, tenantKey, otherKey, token["token"]!.stringValue!] {
                    #expect(!server.stderrText.contains(secret))
                }
                #expect(server.stderrText.contains("login"))
                #expect(server.stderrText.contains("refused"))
            }
            // Nor the database: only hashes are stored.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
            #expect(bytes.range(of: Data(admin.utf8)) == nil)
            #expect(bytes.range(of: Data(tenantKey.utf8)) == nil)
        }
    }

    @Test func aTokenMintedOnOneHostIsAcceptedByAnotherOnTheSameDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("shared.sqlite").path
            let tenant = Hosted.tenants.last ?? Hosted.tenant
            let key = try await Self.createKey(db, ["--tenant", tenant])
            let token = try await PlatformdProcess.with(["serve", "--db", db]) { first in
                #expect(try await first.call("auth.login", ["key": .string(key)])["result"]?["principal"] == ["kind": "tenant", "tenant": .string(tenant)])
                let minted = try await first.call("auth.userToken", ["tenant": .string(tenant), "userId": "amy", "ttlSeconds": 60], id: 2)
                return try #require(minted["result"]?["token"])
            }
            try await PlatformdProcess.with(["serve", "--db", db, "--auth", "required"]) { second in
                let login = try await second.call("auth.login", ["token": token])
                #expect(login["result"]?["principal"]?["kind"] == "user")
                #expect(login["result"]?["principal"]?["userId"] == "amy")
                #expect(try await second.call("flow.start", ["tenant": .string(tenant), "userId": "amy"], id: 2)["result"] != nil)
            }
        }
    }

    @Test func badTokenRequestsAreRefusedWithTheParamNamed() async throws {
        try await PlatformdProcess.withServer { server in
            let short = try await server.call("auth.userToken", ["tenant": .string(Hosted.tenant), "userId": "u", "ttlSeconds": 10])
            #expect(short["error"]?["code"] == -32602)
            #expect(short["error"]?["data"]?["param"] == "ttlSeconds")
            #expect(try await server.call("auth.userToken", ["tenant": "nope", "userId": "u"], id: 2)["error"]?["code"] == -32002)
            #expect(try await server.call("auth.login", ["key": "a", "token": "b"], id: 3)["error"]?["code"] == -32602)
        }
    }

    @Test func noLoginOnANonLoopbackAddressRefusesToStart() async throws {
        try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tcp", "0.0.0.0:0", "--auth", "none"]) { server in
            let exit = try await server.waitForExit()
            #expect(exit.status != 0)
            #expect(server.stderrText.contains("--auth none"))
        }
    }
}
