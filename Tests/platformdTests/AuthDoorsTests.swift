import Foundation
import NIOHTTP1
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// One lock for every door: ids are bytes over HTTP and MCP, MCP counts against the tenant's rate
/// limit and caps its sessions per user and tenant, tokens can be revoked (and die with their key)
/// on every host, start links work once and do not switch people silently, the dashboard's
/// cookie names a sign-in rather than the key, and refused logins do not flood the log.
// One test at a time: each starts servers of its own, and the whole run shares two cores.
@Suite("One lock for every door", .serialized)
struct AuthDoorsTests {
    static let tenant = Hosted.tenant

    static func initialize(_ http: HTTPServing, token: String, headers: [(String, String)] = []) async throws -> HTTPServing.Answer {
        let initialize: JSONValue = [
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": ["protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "doors", "version": "1"]],
        ]
        return try await http.request(.POST, "/mcp", body: initialize.serializedBytes(), headers: [("Authorization", "Bearer \(token)")] + headers)
    }

    @Test func aTokenForALookalikeIdReadsNothingOfTheOriginalOverRPCAndMCP() async throws {
        try await HTTPTests.withKeys { http, admin, _ in
            let started = try await http.call(
                "flow.start", ["tenant": .string(Self.tenant), "userId": "Kate", "user": ["firstName": "Katherine"]], bearer: admin)
            let sessionId = try #require(started["result"]?["sessionId"]?.stringValue)
            let mallory = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "\u{212A}ate")
            let export = try await http.call("user.export", ["tenant": .string(Self.tenant), "userId": "Kate"], bearer: mallory)
            #expect(export["error"]?["code"] == -32001, "\(export)")
            let read = try await http.call("flow.get", ["tenant": .string(Self.tenant), "sessionId": .string(sessionId)], bearer: mallory)
            #expect(read["error"]?["code"] == -32002, "\(read)")
            // Over MCP the tools act for the token's own id: a session of its own, not Kate's.
            let opened = try await Self.initialize(http, token: mallory)
            let mcpSession = try #require(opened.header("Mcp-Session-Id"))
            let status: JSONValue = ["jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": ["name": "onboarding_status", "arguments": [:]]]
            let answer = try await http.request(
                .POST, "/mcp", body: status.serializedBytes(), headers: [("Authorization", "Bearer \(mallory)"), ("Mcp-Session-Id", mcpSession)])
            #expect(answer.status == 200)
            #expect(!answer.text.contains(sessionId) && !answer.text.contains("Katherine"), "\(answer.text)")
            // A NUL in an id is refused, not cut short.
            let cut = try await http.call("auth.userToken", ["tenant": .string(Self.tenant), "userId": "Kate\u{0}mallory"], bearer: admin)
            #expect(cut["error"]?["code"] == -32602)
        }
    }

    /// A tenant `slow` whose rate limit is `burst` requests (then one per 10,000 s), served over HTTP
    /// with an admin key.
    static func withSlowTenant(burst: Int, _ body: (HTTPServing, _ admin: String) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let tenants = directory.appendingPathComponent("tenants.json").path
            try #"{ "tenants": [ { "id": "slow", "plugin": "\#(Hosted.plugin)", "limits": { "requestsPerSecond": 0.0001, "burst": \#(burst) } } ] }"#
                .write(toFile: tenants, atomically: true, encoding: .utf8)
            let db = directory.appendingPathComponent("slow.sqlite").path
            let admin = try await AuthTests.createKey(db, ["--admin", "--tenants", tenants])
            try await HTTPServing.with(["--db", db, "--tenants", tenants, "--http", "127.0.0.1:0"]) { http in
                try await body(http, admin)
            }
        }
    }

    @Test func mcpCallsCountAgainstTheTenantsRateLimitOverHTTP() async throws {
        try await Self.withSlowTenant(burst: 4) { http, admin in
            // Minting over /rpc takes one of the four.
            let token = try await HostedFlowTests.mint(http, admin, tenant: "slow", user: "u1")
            let opened = try await Self.initialize(http, token: token)
            #expect(opened.status == 200)
            let session = try #require(opened.header("Mcp-Session-Id"))
            var refusedTools = 0
            for index in 0..<4 {
                let call: JSONValue = [
                    "jsonrpc": "2.0", "id": .int(Int64(10 + index)), "method": "tools/call", "params": ["name": "onboarding_status", "arguments": [:]],
                ]
                let answer = try await http.request(
                    .POST, "/mcp", body: call.serializedBytes(), headers: [("Authorization", "Bearer \(token)"), ("Mcp-Session-Id", session)])
                if answer.json?["result"]?["isError"] == true, answer.json?["result"]?["structuredContent"]?["code"] == -32007 { refusedTools += 1 }
            }
            #expect(refusedTools >= 2, "MCP tool calls skipped the rate limit")
            let again = try await Self.initialize(http, token: token)
            #expect(again.status == 429)
            #expect(again.json?["error"]?["code"] == -32007)
            #expect(again.header("Retry-After") != nil)
            // /rpc shares the same bucket.
            let rpc = try await http.call("flow.describe", ["tenant": "slow"], bearer: admin)
            #expect(rpc["error"]?["code"] == -32007)
        }
    }

    @Test func theHostedPagesAnswer429OverTheRateLimit() async throws {
        try await Self.withSlowTenant(burst: 3) { http, admin in
            let token = try await HostedFlowTests.mint(http, admin, tenant: "slow", user: "pages")
            let browser = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await browser.shutdown() } }
            #expect(try await browser.request(.GET, "/flow/slow/start?token=\(token)").status == 303)
            var statuses: [Int] = []
            for _ in 0..<4 { statuses.append(try await browser.request(.GET, "/flow/slow/").status) }
            #expect(statuses.contains(429), "\(statuses)")
        }
    }

    @Test func mcpOverStdioCountsAgainstTheRateLimit() async throws {
        try await withTemporaryDirectory { directory in
            let tenants = directory.appendingPathComponent("tenants.json").path
            try #"{ "tenants": [ { "id": "slow", "plugin": "\#(Hosted.plugin)", "limits": { "requestsPerSecond": 0.0001, "burst": 3 } } ] }"#
                .write(toFile: tenants, atomically: true, encoding: .utf8)
            try await PlatformdProcess.with(["mcp", "--db", ":memory:", "--tenants", tenants, "--tenant", "slow", "--user-id", "u1"]) { server in
                // Raw lines: the MCP methods are not the platform's (no rpc.discover schema for them).
                let initialized = try await server.request(
                    #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
                )
                #expect(initialized["result"] != nil)
                var codes: [JSONValue?] = []
                for index in 0..<4 {
                    let reply = try await server.request(
                        #"{"jsonrpc":"2.0","id":\#(index + 2),"method":"tools/call","params":{"name":"onboarding_status","arguments":{}}}"#)
                    codes.append(reply["result"]?["structuredContent"]?["code"])
                }
                #expect(codes.filter { $0 == -32007 }.count == 2, "\(codes)")
                let refused = try await server.request(#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#)
                #expect(refused["error"]?["code"] == -32007)
            }
        }
    }

    /// One person opening many MCP sessions closes their own oldest, never another person's.
    @Test func mcpSessionsAreCappedPerUserWithoutEvictingOthers() async throws {
        try await HTTPTests.withKeys { http, admin, _ in
            let other = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "bystander")
            let bystander = try #require(try await Self.initialize(http, token: other).header("Mcp-Session-Id"))
            let flooder = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "flooder")
            var first: String?
            for _ in 0..<40 {
                let opened = try await Self.initialize(http, token: flooder)
                #expect(opened.status == 200)
                if first == nil { first = opened.header("Mcp-Session-Id") }
            }
            let ping: JSONValue = ["jsonrpc": "2.0", "id": 3, "method": "ping"]
            let kept = try await http.request(
                .POST, "/mcp", body: ping.serializedBytes(), headers: [("Authorization", "Bearer \(other)"), ("Mcp-Session-Id", bystander)])
            #expect(kept.status == 200, "the bystander's session was evicted")
            let oldest = try await http.request(
                .POST, "/mcp", body: ping.serializedBytes(), headers: [("Authorization", "Bearer \(flooder)"), ("Mcp-Session-Id", first ?? "")])
            #expect(oldest.status == 404, "the flooder kept more than its cap")
        }
    }

    @Test func mcpRefusesOriginsItWasNotToldOf() async throws {
        try await HTTPTests.withKeys(["--allowed-origin", "https://assistant.example"]) { http, admin, _ in
            let token = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "origin")
            // DNS rebinding: the page's origin names the attacker's host, the Host header agrees.
            let rebound = try await Self.initialize(
                http, token: token, headers: [("Origin", "http://attacker.example:\(http.port)"), ("Host", "attacker.example:\(http.port)")])
            #expect(rebound.status == 403)
            #expect(try await Self.initialize(http, token: token, headers: [("Origin", "null")]).status == 403)
            #expect(try await Self.initialize(http, token: token, headers: [("Origin", "https://assistant.example")]).status == 200)
            #expect(try await Self.initialize(http, token: token, headers: [("Origin", "http://127.0.0.1:\(http.port)")]).status == 200)
            #expect(try await Self.initialize(http, token: token).status == 200, "a client that is not a browser sends no Origin")
        }
    }

    /// auth.revokeToken by token and by user, a token dying with the key that minted it, and every
    /// host sharing the database refusing them from the next request.
    @Test func revokedTokensAndTokensOfARevokedKeyStopOnEveryHost() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("revoke.sqlite").path
            let admin = try await AuthTests.createKey(db, ["--admin"])
            let tenantKey = try await AuthTests.createKey(db, ["--tenant", Self.tenant])
            try await HTTPServing.with(["--db", db, "--http", "127.0.0.1:0"]) { first in
                try await HTTPServing.with(["--db", db, "--http", "127.0.0.1:0"]) { second in
                    let params: JSONValue = ["tenant": .string(Self.tenant), "userId": "rita"]
                    func works(_ token: String, on http: HTTPServing) async throws -> Bool {
                        try await http.call("flow.start", params, bearer: token)["result"] != nil
                    }
                    let one = try await HostedFlowTests.mint(first, tenantKey, tenant: Self.tenant, user: "rita")
                    let two = try await HostedFlowTests.mint(first, admin, tenant: Self.tenant, user: "rita")
                    #expect(try await works(one, on: second))
                    #expect(try await works(two, on: second))

                    let byToken = try await first.call("auth.revokeToken", ["tenant": .string(Self.tenant), "token": .string(one)], bearer: tenantKey)
                    #expect(byToken["result"]?["revoked"] == 1, "\(byToken)")
                    #expect(try await !works(one, on: second), "the other host still took a revoked token")
                    #expect(try await works(two, on: second))
                    // A user token may not revoke; a key of another tenant may not either.
                    let bySelf = try await first.call("auth.revokeToken", ["tenant": .string(Self.tenant), "userId": "rita"], bearer: two)
                    #expect(bySelf["error"]?["code"] == -32001)
                    let byUser = try await first.call("auth.revokeToken", ["tenant": .string(Self.tenant), "userId": "rita"], bearer: admin)
                    #expect(byUser["result"]?["revoked"] == 1)
                    #expect(try await !works(two, on: second))

                    // A token dies with the key that minted it.
                    let three = try await HostedFlowTests.mint(first, tenantKey, tenant: Self.tenant, user: "rita")
                    #expect(try await works(three, on: second))
                    let keys = try await AuthTests.command(["keys", "list", "--db", db]).stdout
                    let tenantKeyID = try #require(keys.split(separator: "\n").first { $0.contains(Self.tenant) }?.split(whereSeparator: \.isWhitespace).first)
                    #expect(try await AuthTests.command(["keys", "revoke", "--db", db, String(tenantKeyID)]).status == 0)
                    #expect(try await !works(three, on: second), "a token outlived the key that minted it")
                    #expect(try await !works(three, on: first))
                }
            }
        }
    }

    @Test func aStartLinkWorksOnceAndAnotherPersonsLinkAsksBeforeSwitching() async throws {
        try await HostedFlowTests.serving { http, admin, _ in
            let browser = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await browser.shutdown() } }
            let victim = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "victim")
            let first = try await browser.request(.GET, "/flow/\(Self.tenant)/start?token=\(victim)")
            #expect(first.status == 303)
            let signedIn = try #require(browser.cookies["platformd_flow"])
            // The same link again: refused, whoever opens it.
            let stranger = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await stranger.shutdown() } }
            #expect(try await stranger.request(.GET, "/flow/\(Self.tenant)/start?token=\(victim)").status == 401)
            #expect(stranger.cookies["platformd_flow"] == nil)

            // An attacker's link in the victim's browser: a page that asks, the cookie unchanged.
            let attacker = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "attacker")
            let asked = try await browser.request(.GET, "/flow/\(Self.tenant)/start?token=\(attacker)")
            #expect(asked.status == 200)
            #expect(asked.text.contains("Switch"))
            #expect(browser.cookies["platformd_flow"] == signedIn)
            // A forged confirmation without the page's CSRF token changes nothing.
            let forged = try await browser.request(.POST, "/flow/\(Self.tenant)/start", form: [("token", attacker)])
            #expect(forged.status == 403)
            #expect(browser.cookies["platformd_flow"] == signedIn)
            // The person's own choice switches.
            let csrf = try #require(HostedFlowTests.Browser.csrf(asked.text))
            let switched = try await browser.request(.POST, "/flow/\(Self.tenant)/start", form: [("_csrf", csrf), ("token", attacker)])
            #expect(switched.status == 303)
            #expect(browser.cookies["platformd_flow"] != signedIn)
        }
    }

    /// The attack the switch page is for comes from another site, and a browser withholds the
    /// SameSite=Strict cookie on such a navigation: the link saw no one signed in and signed the
    /// attacker in over the victim, unasked (found in Chromium). It now reloads itself from this
    /// site first, where the cookie comes and the page asks; a post from another site, without the
    /// cookie, switches nothing.
    @Test func anotherSitesLinkReloadsFromThisSiteBeforeItDecides() async throws {
        try await HostedFlowTests.serving { http, admin, _ in
            let browser = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await browser.shutdown() } }
            let victim = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "victim")
            #expect(try await browser.request(.GET, "/flow/\(Self.tenant)/start?token=\(victim)").status == 303)
            let signedIn = try #require(browser.cookies["platformd_flow"])

            // The navigation from the other site, as the browser sends it: without the cookie.
            let attacker = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "attacker")
            let withheld = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await withheld.shutdown() } }
            let crossSite = try await withheld.request(.GET, "/flow/\(Self.tenant)/start?token=\(attacker)", headers: [("Sec-Fetch-Site", "cross-site")])
            #expect(crossSite.status == 200)
            #expect(withheld.cookies["platformd_flow"] == nil, "signed in from another site, unasked")
            let encoded = attacker.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? attacker
            #expect(crossSite.text.contains("content=\"0;url=/flow/\(Self.tenant)/start?token=\(encoded)&amp;signin=1\""), "\(crossSite.text)")
            // The reload, from this site: the cookie comes, and the page asks.
            let asked = try await browser.request(
                .GET, "/flow/\(Self.tenant)/start?token=\(attacker)&signin=1", headers: [("Sec-Fetch-Site", "same-origin")])
            #expect(asked.status == 200)
            #expect(asked.text.contains("Switch"), "\(asked.text)")
            #expect(browser.cookies["platformd_flow"] == signedIn)

            // A post from another site (no cookie, so no CSRF token can be bound): nothing switches.
            let posted = try await withheld.request(.POST, "/flow/\(Self.tenant)/start", form: [("token", attacker), ("_csrf", "x")])
            #expect(posted.status == 403)
            #expect(withheld.cookies["platformd_flow"] == nil)
            // A person opening their own link in a fresh browser is signed in as before.
            let own = try await HostedFlowTests.mint(http, admin, tenant: Self.tenant, user: "newcomer")
            let fresh = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await fresh.shutdown() } }
            #expect(try await fresh.request(.GET, "/flow/\(Self.tenant)/start?token=\(own)", headers: [("Sec-Fetch-Site", "none")]).status == 303)
            #expect(fresh.cookies["platformd_flow"] != nil)
        }
    }

    @Test func theAdminCookieNamesASignInThatSignOutEnds() async throws {
        try await HostedFlowTests.serving { http, admin, _ in
            let browser = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await browser.shutdown() } }
            let form = try await browser.request(.GET, "/admin/")
            let csrf = try #require(HostedFlowTests.Browser.csrf(form.text))
            let signedIn = try await browser.request(.POST, "/admin/login", form: [("_csrf", csrf), ("secret", admin)])
            #expect(signedIn.status == 303)
            let cookie = try #require(browser.cookies["platformd_admin"])
            #expect(cookie != admin && !cookie.contains(admin), "the cookie holds the key")
            let home = try await browser.request(.GET, "/admin/")
            #expect(home.text.contains("Sign out"))
            // Signing out ends the sign-in on the server: a copy of the cookie signs nobody in.
            let outCSRF = try #require(HostedFlowTests.Browser.csrf(home.text))
            _ = try await browser.request(.POST, "/admin/logout", form: [("_csrf", outCSRF)])
            let copy = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await copy.shutdown() } }
            copy.cookies["platformd_admin"] = cookie
            let after = try await copy.request(.GET, "/admin/")
            #expect(!after.text.contains("Sign out"), "the sign-in outlived its sign-out")
        }
    }

    @Test func refusedLoginsAreLoggedThrottled() async throws {
        try await HTTPTests.withKeys { http, _, _ in
            let started = ContinuousClock.now
            for index in 0..<50 {
                _ = try await http.rpc(["jsonrpc": "2.0", "id": .int(Int64(index)), "method": "platform.info"], bearer: "pdk_wrong\(index)")
            }
            let seconds = (ContinuousClock.now - started).components.seconds
            let lines = http.server.stderrText.split(separator: "\n").filter { $0.contains("refused") && $0.contains("bearer") }
            // One line per 5 s at most, however busy the machine made the loop.
            #expect(!lines.isEmpty && lines.count <= 1 + Int(seconds) / 5, "\(lines.count) log lines for 50 refused bearers in \(seconds) s")
        }
    }
}
