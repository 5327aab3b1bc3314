import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// The hosted flow (`/flow/TENANT/`) and the dashboard (`/admin/`) through the real binary: over
/// plain HTTP for cookies, CSRF, refusals and what the pages may contain, and in Chromium for
/// every tenant's flow walked to completion with forms alone, a refused answer shown beside its
/// field and the dashboard's charts (screenshots written for a person to look at).
/// Serialized: its two Chromium tests (the walk, and the accessibility audit in
/// AccessibilityTests.swift) run one after the other, not beside each other.
@Suite("platformd serve --http: the hosted flow and the dashboard", .serialized)
struct HostedFlowTests {
    /// A database with an admin key and a key of `Hosted.tenant`, served over HTTP with
    /// `--preview`.
    static func serving<T>(_ body: (HTTPServing, _ admin: String, _ tenantKey: String) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("web.sqlite").path
            let admin = try await AuthTests.createKey(db, ["--admin"])
            let tenantKey = try await AuthTests.createKey(db, ["--tenant", Hosted.tenant])
            return try await HTTPServing.with(["--db", db, "--http", "127.0.0.1:0", "--preview"]) { http in
                try await body(http, admin, tenantKey)
            }
        }
    }

    /// A browser's side of the pages: no redirect followed, the cookies it was given sent back.
    final class Browser: @unchecked Sendable {
        let base: String
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        var cookies: [String: String] = [:]
        /// Every HTML page read, for the checks every page must pass.
        var pages: [String] = []

        init(base: String) { self.base = base }

        func shutdown() async throws { try await client.shutdown() }

        func request(
            _ method: HTTPMethod, _ path: String, form: [(String, String)]? = nil, headers: [(String, String)] = []
        ) async throws -> HTTPServing.Answer {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if !cookies.isEmpty { request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
            if let form {
                let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: body))
            }
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 8 << 20)
            let answer = HTTPServing.Answer(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: Array(body.readableBytesView))
            for (name, value) in answer.headers where name.lowercased() == "set-cookie" {
                let pair = value.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { cookies[pair[0]] = pair[1].isEmpty ? nil : pair[1] }
            }
            if answer.header("Content-Type")?.hasPrefix("text/html") == true { pages.append(answer.text) }
            return answer
        }

        static func encode(_ text: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
        }

        static func csrf(_ page: String) -> String? {
            guard let range = page.range(of: #"name="_csrf" value=""#) else { return nil }
            let rest = page[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]).replacingOccurrences(of: "&amp;", with: "&") }
        }
    }

    static func mint(_ http: HTTPServing, _ admin: String, tenant: String, user: String) async throws -> String {
        let minted = try await http.call("auth.userToken", ["tenant": .string(tenant), "userId": .string(user)], bearer: admin)
        return try #require(minted["result"]?["token"]?.stringValue, "\(minted)")
    }

    /// Whether a page names a URL of another host (in `src`, `href` or `action`).
    static func namesAnotherHost(_ page: String) -> Bool {
        page.firstMatch(of: #/(?i)(src|href|action)\s*=\s*["']?\s*(https?:)?\/\//#) != nil
    }

    @Test func aTokenHandedInOnceBecomesACookieAndEveryFormNeedsItsCSRFToken() async throws {
        try await Self.serving { http, admin, _ in
            let browser = Browser(base: http.base)
            defer { Task { try? await browser.shutdown() } }
            let tenant = Hosted.tenant
            let token = try await Self.mint(http, admin, tenant: tenant, user: "web-person")

            // Without the cookie, and with a token that is not one: 401, nothing set.
            #expect(try await browser.request(.GET, "/flow/\(tenant)/").status == 401)
            // A browser arriving from another site's link withholds the SameSite=Strict cookie on
            // that navigation: the page reloads itself once, same-site, before saying 401.
            let crossSite = try await browser.request(.GET, "/flow/\(tenant)/", headers: [("Sec-Fetch-Site", "cross-site")])
            #expect(crossSite.status == 200)
            #expect(crossSite.text.contains("<meta http-equiv=\"refresh\" content=\"0;url=/flow/\(tenant)/?signin=1\">"))
            #expect(try await browser.request(.GET, "/flow/\(tenant)/?signin=1", headers: [("Sec-Fetch-Site", "same-origin")]).status == 401)
            #expect(try await browser.request(.GET, "/flow/\(tenant)/start?token=pdt_wrong").status == 401)
            #expect(browser.cookies.isEmpty)
            // A token of this tenant's user does not open another tenant's flow.
            if let other = Hosted.otherTenant {
                #expect(try await browser.request(.GET, "/flow/\(other)/start?token=\(token)").status == 401)
            }

            let start = try await browser.request(.GET, "/flow/\(tenant)/start?token=\(token)")
            #expect(start.status == 303)
            #expect(start.header("Location") == "/flow/\(tenant)/", "the token leaves the address bar")
            let cookie = try #require(start.header("Set-Cookie"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Path=/flow/\(tenant)/"))
            #expect(!cookie.contains("Secure"), "the listener is on loopback: a browser keeps it over plain HTTP")

            let page = try await browser.request(.GET, "/flow/\(tenant)/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Cache-Control") == "no-store")
            #expect(page.text.contains("<form method=\"post\""))
            let csrf = try #require(Browser.csrf(page.text))

            // The same session as over JSON-RPC.
            let view = try await http.call("flow.get", ["tenant": .string(tenant), "userId": "web-person"], bearer: admin)
            let step = try #require(view["result"]?["step"]?["id"]?.stringValue)
            let revision = view["result"]?["revision"]?.intValue ?? 0
            let fields = view["result"]?["step"]?["fields"]?.arrayValue ?? []
            #expect(page.text.contains("value=\"\(step)\""))

            // No token, or another one: 403, nothing changed.
            let forged = try await browser.request(.POST, "/flow/\(tenant)/", form: [("_step", step), ("_revision", "\(revision)"), ("_action", "continue")])
            #expect(forged.status == 403)
            let wrong = try await browser.request(
                .POST, "/flow/\(tenant)/", form: [("_csrf", "t=1,v1=00"), ("_step", step), ("_revision", "\(revision)"), ("_action", "continue")])
            #expect(wrong.status == 403)
            let unchanged = try await http.call("flow.get", ["tenant": .string(tenant), "userId": "web-person"], bearer: admin)
            #expect(unchanged["result"]?["revision"]?.intValue == revision)

            // A step with a required field refuses an empty form: 422, the message beside the field.
            if let required = fields.first(where: { $0["required"] == true })?["id"]?.stringValue {
                let refused = try await browser.request(
                    .POST, "/flow/\(tenant)/", form: [("_csrf", csrf), ("_step", step), ("_revision", "\(revision)"), ("_action", "continue")])
                #expect(refused.status == 422)
                #expect(refused.text.contains("aria-invalid=\"true\""))
                let describedBy = try #require(refused.text.firstMatch(of: #/aria-describedby="(e-[^"]+)"/#)?.1)
                #expect(refused.text.contains("<p class=\"error\" id=\"\(describedBy)\">"), "the message is tied to \(required)")
            }
            for page in browser.pages {
                #expect(!Self.namesAnotherHost(page), "a page names another host")
                #expect(!page.contains(token), "the token is never written into a page")
            }
        }
    }

    @Test func theDashboardNeedsAnAdminKeyAndShowsChartsAndKeysWithoutSecrets() async throws {
        try await Self.serving { http, admin, tenantKey in
            let browser = Browser(base: http.base)
            defer { Task { try? await browser.shutdown() } }
            let login = try await browser.request(.GET, "/admin/")
            #expect(login.status == 200)
            #expect(login.text.contains("type=\"password\""))
            let csrf = try #require(Browser.csrf(login.text))
            // A tenant's key is not an admin's.
            #expect(try await browser.request(.POST, "/admin/login", form: [("_csrf", csrf), ("secret", tenantKey)]).status == 401)
            #expect(try await browser.request(.POST, "/admin/login", form: [("secret", admin)]).status == 403, "no CSRF token")
            #expect(browser.cookies["platformd_admin"] == nil)
            let signedIn = try await browser.request(.POST, "/admin/login", form: [("_csrf", csrf), ("secret", admin)])
            #expect(signedIn.status == 303)
            let cookie = try #require(signedIn.header("Set-Cookie"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/admin;"))

            let home = try await browser.request(.GET, "/admin")
            for tenant in Hosted.tenants { #expect(home.text.contains("/admin/\(tenant)/onboarding")) }
            #expect(home.text.contains("<h2>Keys</h2>"))
            // Nobody has started the flow yet: the page says what to do instead of drawing an
            // empty funnel; once someone has, the funnel is drawn.
            let empty = try await browser.request(.GET, "/admin/\(Hosted.tenant)/onboarding")
            #expect(empty.status == 200)
            #expect(empty.text.contains("class=\"diagram\"") && empty.text.contains("No one has started this flow yet"))
            #expect(!empty.text.contains("class=\"funnel\""))
            _ = try await http.call("flow.start", ["tenant": .string(Hosted.tenant), "userId": "dash-1"], bearer: tenantKey)
            let flow = try await browser.request(.GET, "/admin/\(Hosted.tenant)/onboarding")
            #expect(flow.status == 200)
            #expect(flow.text.contains("<svg") && flow.text.contains("class=\"diagram\"") && flow.text.contains("class=\"funnel\""))
            #expect(try await browser.request(.GET, "/admin/nope/onboarding").status == 404)
            for page in browser.pages {
                #expect(!page.contains(admin) && !page.contains(tenantKey), "a key's secret is never shown")
                #expect(!Self.namesAnotherHost(page), "a page names another host")
            }
            let css = try await browser.request(.GET, "/assets/platformd.css")
            #expect(css.status == 200 && css.header("Content-Type")?.hasPrefix("text/css") == true)
            #expect(!css.text.contains("http"), "the stylesheet loads nothing from elsewhere")
        }
    }

    @Test func previewIsRefusedOffLoopback() async throws {
        try await PlatformdProcess.with(["serve", "--db", ":memory:", "--http", "0.0.0.0:0", "--preview"]) { server in
            let exit = try await server.waitForExit()
            #expect(exit.status == 64)
            #expect(server.stderrText.contains("--preview"))
        }
    }

    // MARK: - in Chromium

    static var screenshots: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/screenshots/hosted-flow")
    }

    /// Chromium, its driver, and Python with Selenium and html5lib (`.ci/run` installs them).
    static func browserIsInstalled() async -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        else { return false }
        let selenium = await Python.has("selenium")
        let html5lib = await Python.has("html5lib")
        return selenium && html5lib
    }

    @Test(
        .timeLimit(.minutes(10)),
        .enabled("needs chromium, chromium-driver and python3 with selenium and html5lib") { await HostedFlowTests.browserIsInstalled() })
    func everyTenantsFlowWalkedToItsEndInChromiumWithFormsAlone() async throws {
        try await Self.serving { http, admin, _ in
            let run = try await Python.runYielding(
                [HTTPTests.script("browser_flow.py").path, http.base, admin, Self.screenshots.path] + Hosted.tenants)
            #expect(run.status == 0, "\(run.output)")
            let summary = try #require(try? JSONValue.parse(Array((run.output.split(separator: "\n").last ?? "").utf8)), "\(run.output)")
            print("hosted flow screenshots: \(Self.screenshots.path)")
            let walks = Hosted.tenants.flatMap { tenant in
                [(tenant, tenant, summary["tenants"]?[tenant]), (tenant, "\(tenant) in Spanish, dark", summary["spanish"]?[tenant])]
            }
            for (tenant, label, walked) in walks {
                #expect(walked?["status"] == "ended", "\(label): \(walked ?? .null)")
                #expect((walked?["pages"]?.intValue ?? 0) > 0)
                let message = walked?["message"]?.stringValue ?? ""
                #expect(!message.isEmpty)
                // Back after a step forward shows the step before, on every flow (the page reads the
                // session instead of starting it again, which resumed TeePals at its first missing answer).
                let back = walked?["pressed"]?["back"]
                #expect(back != nil && back?["to"] == back?["expected"], "\(label): Back led to \(back ?? .null)")
                // Every other button a flow offers was pressed once and led where it says.
                let offered = Set((walked?["offered"]?.arrayValue ?? []).compactMap(\.stringValue))
                let pressed = walked?["pressed"]
                if offered.contains("later") {
                    #expect(pressed?["later"]?["to"] == pressed?["later"]?["from"], "\(label): Later led to \(pressed?["later"] ?? .null)")
                }
                if offered.contains("skip") {
                    let skip = pressed?["skip"]
                    #expect(skip?["to"] != nil && skip?["to"] != skip?["from"], "\(label): Skip led to \(skip ?? .null)")
                }
                if offered.contains("edit") {
                    #expect(pressed?["edit"]?["to"] == pressed?["edit"]?["expected"], "\(label): Edit led to \(pressed?["edit"] ?? .null)")
                }
                // It ended completed: the funnel counts the browser's session as one.
                let funnel = try await http.call("analytics.funnel", ["tenant": .string(tenant)], bearer: admin)
                #expect((funnel["result"]?["completed"]?.intValue ?? 0) >= 1, "\(tenant): \(funnel)")
                let charts = summary["admin"]?["\(tenant)/onboarding"]
                #expect(charts?["diagram"] == 1 && charts?["funnel"] == 1, "\(tenant): \(charts ?? .null)")
                #expect((charts?["steps"]?.intValue ?? 0) > 0 && (charts?["bars"]?.intValue ?? 0) > 0)
            }
            // Across the apps the pages offered each of the buttons (an app's flow offering none of
            // one would leave that button untested).
            let offered = Set(Hosted.tenants.flatMap { summary["tenants"]?[$0]?["offered"]?.arrayValue ?? [] }.compactMap(\.stringValue))
            #expect(offered.isSuperset(of: ["back", "skip", "later", "edit"]), "offered: \(offered.sorted())")
            // The page's script shows a field when its condition comes to hold as the form is
            // filled in (a club team's fields once the switch is on), as the server decides it.
            let conditional = Hosted.tenants.flatMap { summary["tenants"]?[$0]?["conditional"]?.arrayValue ?? [] }
            #expect(conditional.contains { $0["hiddenBefore"] == true && $0["hiddenAfter"] == false }, "\(conditional)")
            #expect(summary["invalid"] == [], "pages that do not parse as HTML: \(summary["invalid"] ?? .null)")
            #expect(summary["external"] == [], "pages naming another host: \(summary["external"] ?? .null)")
            // Where a flow has a search field, the script suggested results as the walker typed.
            for (field, count) in summary["suggested"]?.objectValue ?? [:] {
                #expect((count.intValue ?? 0) > 0, "no suggestions for \(field)")
            }
            let refusal = summary["refusal"]
            #expect((refusal?["invalid"]?.intValue ?? 0) > 0)
            for tied in refusal?["tied"]?.arrayValue ?? [] {
                #expect(tied["beside"] == true && tied["message"]?.stringValue?.isEmpty == false, "\(tied)")
            }
        }
    }
}
