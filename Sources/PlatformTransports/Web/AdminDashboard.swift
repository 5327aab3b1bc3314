import Foundation
import HTTPTypes
import Hummingbird
import PlatformCore
import PlatformProtocol
import PlatformServer
import PlatformStorage

/// `/admin/`: for operators, after signing in with an admin key's secret: the tenants, and per
/// flow its diagram and its funnel (overall and per version) drawn as SVG, the recent webhook
/// deliveries, and the keys (never a secret).
struct AdminDashboard: Sendable {
    let web: WebSupport
    let platform: Platform
    let store: any PlatformStore
    let maxBodyBytes: Int
    static let cookie = "platformd_admin"
    /// A nonce set with the sign-in form, which its CSRF token is bound to.
    static let loginCookie = "platformd_admin_login"

    func routes(_ router: Router<PlatformRequestContext>) {
        router.get("/admin") { request, _ in await home(request) }
        router.post("/admin/login") { request, _ in try await login(request) }
        router.post("/admin/logout") { request, _ in try await logout(request) }
        router.get("/admin/:tenant/:flow") { request, context in
            await flow(request, tenant: context.parameters.get("tenant") ?? "", flow: context.parameters.get("flow") ?? "")
        }
        router.get("/admin/:tenant/experiments/:experiment") { request, context in
            await experiment(request, tenant: context.parameters.get("tenant") ?? "", experiment: context.parameters.get("experiment") ?? "")
        }
    }

    /// The signed-in admin: the cookie names a sign-in the server keeps (never the key), ended
    /// by sign-out and by revoking its key, on every host. Its calls act as its key.
    func admin(_ request: Request) async -> (ConnectionState.Login, String)? {
        guard let secret = Cookies.value(Self.cookie, in: request.headers[.cookie]), secret.hasPrefix("pds_"),
            let signIn = try? await Credentials(store: store).signIn(secret: secret)
        else { return nil }
        return (ConnectionState.Login(principal: .admin, keyID: signIn.keyID), secret)
    }

    func page(_ title: String, _ body: String) -> Response {
        WebSupport.html(.ok, HTML.page(title: title, language: "en", body: "<main class=\"wide\">\n\(body)\n</main>"))
    }

    // MARK: - signing in

    /// The sign-in form; its CSRF token is bound to the nonce cookie set with it (kept while the
    /// browser has one, so an earlier copy of the form stays good).
    func loginPage(_ status: HTTPResponse.Status, _ request: Request, error: String? = nil) -> Response {
        let nonce = Cookies.value(Self.loginCookie, in: request.headers[.cookie]).flatMap { $0.isEmpty ? nil : $0 } ?? Platform.randomID()
        var body = "<main>\n<h1>platformd dashboard</h1>\n"
        if let error { body += "<div class=\"errors\" role=\"alert\"><p id=\"login-error\">\(HTML.text(error))</p></div>\n" }
        body += """
            <form method="post" action="/admin/login">
            <input type="hidden" name="_csrf" value="\(HTML.attribute(web.csrfToken(for: "admin-login|" + nonce)))">
            <div class="field"><label for="secret">Admin key</label>
            <input type="password" id="secret" name="secret" autocomplete="current-password" required aria-required="true"\(error == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"login-error\"")></div>
            <p class="muted">An admin key's secret (<code>platformd keys create --admin</code>). The server keeps the sign-in; the cookie only names it, never the key.</p>
            <div class="actions"><button type="submit" class="primary">Sign in</button></div>
            </form>
            </main>
            """
        return WebSupport.html(
            status, HTML.page(title: "Sign in: platformd dashboard", language: "en", body: body),
            headers: [(.setCookie, Cookies.set(Self.loginCookie, nonce, path: "/admin", secure: web.secureCookies))])
    }

    func login(_ request: Request) async throws -> Response {
        let nonce = Cookies.value(Self.loginCookie, in: request.headers[.cookie]) ?? ""
        guard let form = try await WebSupport.form(request, limit: maxBodyBytes), !nonce.isEmpty,
            web.csrfIsValid(form["_csrf"], for: "admin-login|" + nonce)
        else {
            return loginPage(.forbidden, request, error: "The form expired: sign in again.")
        }
        guard let secret = form["secret"]?.trimmingCharacters(in: .whitespaces), !secret.isEmpty,
            let login = await web.login(secret), login.principal.kind == .admin, let keyID = login.keyID
        else {
            return loginPage(.unauthorized, request, error: "That is not an active admin key.")
        }
        let signIn: String
        do {
            signIn = try await Credentials(store: store).signIn(keyID: keyID)
        } catch {
            return loginPage(.serviceUnavailable, request, error: "The sign-in cannot be kept right now: try again.")
        }
        return WebSupport.redirect("/admin/", cookie: Cookies.set(Self.cookie, signIn, path: "/admin", secure: web.secureCookies))
    }

    func logout(_ request: Request) async throws -> Response {
        guard let (_, secret) = await admin(request), let form = try await WebSupport.form(request, limit: maxBodyBytes),
            web.csrfIsValid(form["_csrf"], for: "admin|" + secret)
        else { return WebSupport.redirect("/admin/") }
        // Ended on the server: a copy of the cookie kept elsewhere signs nobody in.
        try? await Credentials(store: store).endSignIn(secret: secret)
        return WebSupport.redirect("/admin/", cookie: Cookies.set(Self.cookie, "", path: "/admin", secure: web.secureCookies, maxAge: 0))
    }

    func header(_ secret: String) -> String {
        """
        <form method="post" action="/admin/logout" class="actions signout">
        <input type="hidden" name="_csrf" value="\(HTML.attribute(web.csrfToken(for: "admin|" + secret)))">
        <button type="submit" class="link">Sign out</button></form>
        """
    }

    // MARK: - the tenants and the keys

    func home(_ request: Request) async -> Response {
        guard let (_, secret) = await admin(request) else { return loginPage(.ok, request) }
        var body =
            header(secret)
            + "<h1>Tenants</h1>\n<table><thead><tr><th scope=\"col\">tenant</th><th scope=\"col\">plugin</th><th scope=\"col\">flows</th><th scope=\"col\">languages</th><th scope=\"col\">experiments</th></tr></thead><tbody>\n"
        for tenant in platform.hosted {
            let flows = tenant.plugin.flows.map { flow in
                "<a href=\"/admin/\(HTML.attribute(tenant.id))/\(HTML.attribute(flow.id))\">\(HTML.text(flow.id))</a>"
            }.joined(separator: ", ")
            let experiments = tenant.experiments.map { experiment in
                "<a href=\"/admin/\(HTML.attribute(tenant.id))/experiments/\(HTML.attribute(experiment.id))\">\(HTML.text(experiment.id))</a>"
            }.joined(separator: ", ")
            body +=
                "<tr><td>\(HTML.text(tenant.id))</td><td>\(HTML.text(tenant.pluginName))</td><td>\(flows)</td><td>\(HTML.text(tenant.copy.locales.joined(separator: ", ")))</td><td>\(experiments.isEmpty ? "-" : experiments)</td></tr>\n"
        }
        body += "</tbody></table>\n<h2>Keys</h2>\n"
        do {
            let keys = try await Credentials(store: store).keys()
            if keys.isEmpty {
                body += "<p class=\"muted\">No keys yet: <code>platformd keys create</code>.</p>\n"
            } else {
                body +=
                    "<table><thead><tr><th scope=\"col\">id</th><th scope=\"col\">tenant</th><th scope=\"col\">name</th><th scope=\"col\">created</th><th scope=\"col\">last used</th><th scope=\"col\">state</th></tr></thead><tbody>\n"
                for key in keys {
                    let state = key.revokedAt.map { "revoked " + Timestamp.string($0) } ?? "active"
                    body +=
                        "<tr><td><code>\(HTML.text(key.id))</code></td><td>\(HTML.text(key.tenant ?? "admin"))</td><td>\(HTML.text(key.name))</td><td>\(HTML.text(Timestamp.string(key.createdAt)))</td><td>\(HTML.text(key.lastUsedAt.map(Timestamp.string) ?? "-"))</td><td>\(HTML.text(state))</td></tr>\n"
                }
                body += "</tbody></table>\n"
            }
        } catch {
            body += "<p class=\"errors\">The keys cannot be read right now: \(HTML.text("\(error)"))</p>\n"
        }
        return page("platformd dashboard", body)
    }

    // MARK: - one flow

    func flow(_ request: Request, tenant: String, flow: String) async -> Response {
        guard let (login, secret) = await admin(request) else { return loginPage(.unauthorized, request) }
        let description: FlowDescription
        switch await web.call(.describe, ["tenant": .string(tenant), "flow": .string(flow)], as: login, returning: FlowDescription.self) {
        case .success(let described):
            description = described
        case .failure(let error):
            return WebSupport.notice(.notFound, title: "Not found", message: error.message, link: ("/admin/", "All tenants"))
        }
        var body = header(secret) + "<nav><a href=\"/admin/\">All tenants</a></nav>\n"
        body += "<h1>\(HTML.text(tenant)): \(HTML.text(flow))</h1>\n"
        if let version = description.version {
            body += "<p class=\"muted\">version \(HTML.text(version)), fingerprint <code>\(HTML.text(description.fingerprint ?? ""))</code></p>\n"
        }
        body += "<h2>Diagram</h2>\n<figure>\(Charts.diagram(description))<figcaption>\(Charts.diagramCaption(description))</figcaption></figure>\n"

        body += "<h2>Funnel</h2>\n"
        switch await web.call(.funnel, ["tenant": .string(tenant), "flow": .string(flow)], as: login, returning: PlatformProtocol.Funnel.self) {
        case .success(let funnel) where funnel.started == 0:
            body +=
                "<p class=\"muted\">No one has started this flow yet. Its funnel appears here once people do: open it from the app, or with <code>platformd serve --preview</code> on loopback to try it yourself.</p>\n"
        case .success(let funnel):
            do {
                body +=
                    "<figure>\(Charts.funnel(funnel, title: "Funnel of \(flow), all versions", id: "all"))<figcaption>Light: sessions that reached the step; dark: went on from it.</figcaption></figure>\n"
                let versions = funnel.versions ?? []
                if versions.count > 1 {
                    body += "<h3>By version</h3>\n"
                    for version in versions {
                        if case .success(let byVersion) = await web.call(
                            .funnel, ["tenant": .string(tenant), "flow": .string(flow), "version": .string(version.version)], as: login,
                            returning: PlatformProtocol.Funnel.self)
                        {
                            body +=
                                "<figure>\(Charts.funnel(byVersion, title: "Version \(version.version): started \(version.started), completed \(version.completed)", id: "v-\(version.version)"))<figcaption>\(HTML.text("Version \(version.version)"))</figcaption></figure>\n"
                        }
                    }
                } else if let only = versions.first {
                    body += "<p class=\"muted\">\(HTML.text("All sessions on version \(only.version)."))</p>\n"
                }
            }
        case .failure(let error):
            body += "<p class=\"errors\">\(HTML.text(error.message))</p>\n"
        }

        body += "<h2>Recent webhook deliveries</h2>\n"
        do {
            let events = try await store.recentEvents(tenant: tenant, limit: 20, failedOnly: false)
            let rows = events.flatMap { item in
                item.deliveries.map { delivery in
                    "<tr><td><code>\(HTML.text(item.entry.event.id))</code></td><td>\(HTML.text(item.entry.event.type.rawValue))</td><td>\(HTML.text(Timestamp.string(item.entry.event.occurredAt)))</td><td>\(HTML.text(delivery.webhook))</td><td>\(HTML.text(delivery.state.rawValue))</td><td>\(delivery.attempts)</td><td>\(HTML.text(delivery.lastStatus.map { "HTTP \($0)" } ?? delivery.lastError ?? ""))</td></tr>"
                }
            }
            if rows.isEmpty {
                body += "<p class=\"muted\">No deliveries yet for \(HTML.text(tenant)).</p>\n"
            } else {
                body +=
                    "<table><thead><tr><th scope=\"col\">event</th><th scope=\"col\">type</th><th scope=\"col\">occurred</th><th scope=\"col\">webhook</th><th scope=\"col\">outcome</th><th scope=\"col\">attempts</th><th scope=\"col\">last answer</th></tr></thead><tbody>\n\(rows.joined(separator: "\n"))\n</tbody></table>\n"
            }
        } catch {
            body += "<p class=\"errors\">The deliveries cannot be read right now.</p>\n"
        }
        return page("\(tenant) \(flow): platformd dashboard", body)
    }
}
