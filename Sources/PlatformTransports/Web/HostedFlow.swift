import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage

/// `/flow/TENANT/`: a tenant's flow as HTML pages for the person it onboards, signed in by the
/// user token their app's backend minted (`/flow/TENANT/start?token=…` sets the cookie once).
/// Every command goes through the RPC server as that user: the rules, limits and errors are
/// exactly those of JSON-RPC.
struct HostedFlow: Sendable {
    let web: WebSupport
    let platform: Platform
    let maxBodyBytes: Int
    static let cookie = "platformd_flow"

    func routes(_ router: Router<PlatformRequestContext>) {
        router.get("/assets/tenant/:tenant/theme.css") { _, context in theme(tenant: context.parameters.get("tenant") ?? "") }
        router.get("/assets/tenant/:tenant/logo") { _, context in logo(tenant: context.parameters.get("tenant") ?? "") }
        router.get("/flow/:tenant/start") { request, context in await start(request, tenant: context.parameters.get("tenant") ?? "") }
        router.post("/flow/:tenant/start") { request, context in try await confirmSwitch(request, tenant: context.parameters.get("tenant") ?? "") }
        router.get("/flow/:tenant/search") { request, context in await search(request, tenant: context.parameters.get("tenant") ?? "") }
        router.get("/flow/:tenant") { request, context in await page(request, tenant: context.parameters.get("tenant") ?? "") }
        router.post("/flow/:tenant") { request, context in try await post(request, tenant: context.parameters.get("tenant") ?? "") }
    }

    /// A tenant's theme as CSS variables over the standard stylesheet's.
    func theme(tenant: String) -> Response {
        guard let look = platform.look(for: tenant) else { return WebSupport.notice(.notFound, title: "Not found", message: "No such tenant.") }
        return WebSupport.asset(ThemeStyle.stylesheet(look), type: "text/css; charset=utf-8")
    }

    /// The tenant's logo (`hosted.logo`), as read at start; an SVG may not run script.
    func logo(tenant: String) -> Response {
        guard let logo = platform.look(for: tenant)?.logo else {
            return WebSupport.notice(.notFound, title: "Not found", message: "This tenant has no logo.")
        }
        var response = Response(status: .ok, headers: [.contentType: logo.contentType], body: .init(byteBuffer: ByteBuffer(bytes: logo.bytes)))
        response.headers[.cacheControl] = "public, max-age=3600"
        response.headers[HTTPField.Name("Content-Security-Policy")!] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
        return response
    }

    /// The person signed in by the page's cookie, for `tenant`.
    struct Person {
        let login: ConnectionState.Login
        let token: String
        let userId: String
    }

    func person(_ request: Request, tenant: String) async -> Person? {
        guard let token = Cookies.value(Self.cookie, in: request.headers[.cookie]) else { return nil }
        return await person(token: token, tenant: tenant)
    }

    func person(token: String, tenant: String) async -> Person? {
        guard let login = await web.login(token), login.principal.kind == .user, IDBytes.equal(login.principal.tenant, tenant),
            let userId = login.principal.userId
        else { return nil }
        return Person(login: login, token: token, userId: userId)
    }

    /// The page of `flow` (a query only for a flow other than `onboarding`).
    static func pagePath(_ tenant: String, _ flow: String) -> String {
        "/flow/\(tenant)/" + (flow == "onboarding" ? "" : "?flow=" + query(flow))
    }

    /// A query parameter's value, percent-encoded.
    static func query(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func flowName(_ request: Request) -> String {
        request.uri.queryParameters["flow"].map(String.init).flatMap { $0.isEmpty ? nil : $0 } ?? "onboarding"
    }

    static func signedOut(_ tenant: String) -> Response {
        WebSupport.notice(
            .unauthorized, title: "Sign in from the app",
            message: "This page needs the link the app opens (it carries your sign-in), and that link may have expired. Open onboarding from the app again.")
    }

    // MARK: - GET /flow/TENANT/start?token=…

    /// A start link works once. Arriving while another person of the tenant is signed in on this
    /// browser (a page elsewhere sending the person to someone else's link, so that what they
    /// type lands in that session), it asks before switching.
    func start(_ request: Request, tenant: String) async -> Response {
        guard let token = request.uri.queryParameters["token"].map(String.init), let person = await person(token: token, tenant: tenant) else {
            return Self.signedOut(tenant)
        }
        let flow = Self.flowName(request)
        // That page elsewhere is a navigation from another site, on which a browser withholds the
        // SameSite=Strict cookie: with no sign-in seen, the link signed its person in over the one
        // this browser had, unasked. Such a start reloads itself from this site once (same-site,
        // so the cookie comes), and decides then. The link is not used meanwhile.
        if Self.arrivedWithoutItsCookie(request) {
            return Self.reloadFromThisSite("/flow/\(tenant)/start?token=\(Self.query(token))" + (flow == "onboarding" ? "" : "&flow=" + Self.query(flow)))
        }
        if let current = await self.person(request, tenant: tenant), !IDBytes.equal(current.userId, person.userId) {
            return switchPage(tenant: tenant, flow: flow, token: token, current: current)
        }
        return await signIn(token, tenant: tenant, flow: flow)
    }

    /// Uses the link (once, on every host) and sets the cookie.
    func signIn(_ token: String, tenant: String, flow: String) async -> Response {
        await Self.signIn(token, tenant: tenant, flow: flow, web: web)
    }

    static func signIn(_ token: String, tenant: String, flow: String, web: WebSupport) async -> Response {
        let first: Bool
        do {
            first = try await web.useStartLink(token)
        } catch {
            return WebSupport.notice(
                .serviceUnavailable, title: "Try again", message: "The sign-in cannot be checked right now: open the link again in a moment.")
        }
        guard first else {
            return WebSupport.notice(
                .unauthorized, title: "This link was used already",
                message: "A sign-in link works once. If it was you, carry on where you are signed in; otherwise open onboarding from the app again.",
                link: (pagePath(tenant, flow), "Continue"))
        }
        // The token leaves the address bar: it lives in the cookie from here on.
        return WebSupport.redirect(pagePath(tenant, flow), cookie: Cookies.set(Self.cookie, token, path: "/flow/\(tenant)/", secure: web.secureCookies))
    }

    static func switchSubject(_ current: Person, _ tenant: String) -> String { "switch|\(tenant)|\(current.token)" }

    func switchPage(tenant: String, flow: String, token: String, current: Person) -> Response {
        let action = "/flow/\(tenant)/start" + (flow == "onboarding" ? "" : "?flow=" + Self.query(flow))
        let body = """
            <main>
            <h1>Switch to another sign-in?</h1>
            <p>This browser is signed in to onboarding as someone else. Continue only if the link you opened is your own.</p>
            <form method="post" action="\(HTML.attribute(action))">
            <input type="hidden" name="_csrf" value="\(HTML.attribute(web.csrfToken(for: Self.switchSubject(current, tenant))))">
            <input type="hidden" name="token" value="\(HTML.attribute(token))">
            <div class="actions"><button type="submit" class="primary">Switch</button>
            <a href="\(HTML.attribute(Self.pagePath(tenant, flow)))">Stay signed in as before</a></div>
            </form>
            </main>
            """
        return WebSupport.html(.ok, HTML.page(title: "Switch sign-in", language: "en", body: body))
    }

    /// `POST /flow/TENANT/start`: the person chose to switch (a form only this site's page can
    /// post: its CSRF token is bound to the sign-in it replaces).
    func confirmSwitch(_ request: Request, tenant: String) async throws -> Response {
        guard let form = try await WebSupport.form(request, limit: maxBodyBytes), let token = form["token"],
            let person = await person(token: token, tenant: tenant)
        else { return Self.signedOut(tenant) }
        // Only the switch page posts here, and only to a browser signed in as someone: without
        // the cookie (a post from another site, which withholds it) there is no sign-in for the
        // CSRF token to be bound to, and the post signed the token's person in unasked.
        guard let current = await self.person(request, tenant: tenant) else { return Self.switchExpired }
        if !IDBytes.equal(current.userId, person.userId) {
            guard web.csrfIsValid(form["_csrf"], for: Self.switchSubject(current, tenant)) else { return Self.switchExpired }
        }
        return await signIn(token, tenant: tenant, flow: Self.flowName(request))
    }

    static var switchExpired: Response { WebSupport.notice(.forbidden, title: "This form expired", message: "Open the link again.") }

    /// A navigation from another site, without this flow's cookie (a browser withholds a
    /// SameSite=Strict cookie on one), not yet reloaded from here (`signin`).
    static func arrivedWithoutItsCookie(_ request: Request) -> Bool {
        Cookies.value(cookie, in: request.headers[.cookie]) == nil && request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "cross-site"
            && request.uri.queryParameters["signin"] == nil
    }

    /// A page that opens `path` (with `signin=1`) again at once, from this site: that navigation
    /// is same-site, so the browser sends the cookie it withheld.
    static func reloadFromThisSite(_ path: String) -> Response {
        let again = path + (path.contains("?") ? "&" : "?") + "signin=1"
        let body = "<main>\n<p><a href=\"\(HTML.attribute(again))\">Continue</a></p>\n</main>"
        let refresh = "<meta http-equiv=\"refresh\" content=\"0;url=\(HTML.attribute(again))\">"
        return WebSupport.html(.ok, HTML.page(title: "Continue", language: "en", body: body, head: refresh))
    }

    // MARK: - GET /flow/TENANT/

    func page(_ request: Request, tenant: String) async -> Response {
        guard let person = await person(request, tenant: tenant) else {
            // A browser withholds a SameSite=Strict cookie on a navigation that began on another
            // site, the start link's redirect included (an email, the app's website); reloading
            // from this page is same-site and carries it. Once.
            if Self.arrivedWithoutItsCookie(request) { return Self.reloadFromThisSite(Self.pagePath(tenant, Self.flowName(request))) }
            return Self.signedOut(tenant)
        }
        let flow = Self.flowName(request)
        var params: [String: JSONValue] = ["tenant": .string(tenant), "userId": .string(person.userId), "flow": .string(flow)]
        // A page shows the session where it is (flow.get): starting it again would move it to the
        // flow's resume position (TeePals': the first missing answer) and undo the page's Back,
        // Edit and Later. Only a person without a session yet starts one.
        var result = await session(of: person, tenant: tenant, flow: flow)
        if case .failure(let error) = result, error.code == ErrorCode.notFound.rawValue {
            if let header = request.headers[.acceptLanguage], let locale = platform.copy(for: tenant).preferred(LocaleTag.accepted(header)) {
                params["locale"] = .string(locale)
            }
            result = await web.call(.start, params, as: person.login)
        }
        switch result {
        case .success(let view):
            return WebSupport.html(.ok, pageFor(view, tenant: tenant, flow: flow, person: person).render())
        case .failure(let error):
            return failure(error)
        }
    }

    /// The person's session of the page's flow (`flow.get`, which finds it on a variant's flow
    /// when an experiment enrolled them); not found when they have none yet.
    func session(of person: Person, tenant: String, flow: String) async -> Result<SessionView, WebRefusal> {
        await web.call(
            .get, ["tenant": .string(tenant), "userId": .string(person.userId), "flow": .string(flow)], as: person.login, returning: SessionView.self)
    }

    func pageFor(_ view: SessionView, tenant: String, flow: String, person: Person) -> FlowPage {
        FlowPage(
            view: view, tenant: tenant, flow: flow, csrf: web.csrfToken(for: Self.csrfSubject(person.token, tenant)), copy: platform.copy(for: tenant),
            look: platform.look(for: tenant))
    }

    static func csrfSubject(_ token: String, _ tenant: String) -> String { "flow|\(tenant)|\(token)" }

    func failure(_ error: WebRefusal) -> Response {
        let status: HTTPResponse.Status =
            switch error.code {
            case ErrorCode.unauthorized.rawValue: .unauthorized
            case ErrorCode.notFound.rawValue: .notFound
            case ErrorCode.rateLimited.rawValue: .tooManyRequests
            case ErrorCode.unavailable.rawValue: .serviceUnavailable
            default: .badRequest
            }
        var response = WebSupport.notice(status, title: "Something went wrong", message: error.message, link: ("./", "Back to the flow"))
        if let wait = error.details.retryAfterMs {
            response.headers[.retryAfter] = "\(max(1, (wait + 999) / 1000))"
        }
        return response
    }

    // MARK: - POST /flow/TENANT/

    func post(_ request: Request, tenant: String) async throws -> Response {
        guard let person = await person(request, tenant: tenant) else { return Self.signedOut(tenant) }
        guard let form = try await WebSupport.form(request, limit: maxBodyBytes) else {
            return WebSupport.notice(.unsupportedMediaType, title: "Not a form", message: "Send the page's form (application/x-www-form-urlencoded).")
        }
        let flow = Self.flowName(request)
        let here = Self.pagePath(tenant, flow)
        guard web.csrfIsValid(form["_csrf"], for: Self.csrfSubject(person.token, tenant)) else {
            return WebSupport.notice(.forbidden, title: "This form expired", message: "Reload the page and answer again.", link: (here, "Reload"))
        }
        let current: SessionView
        switch await session(of: person, tenant: tenant, flow: flow) {
        case .success(let view):
            current = view
        case .failure(let error):
            return failure(error)
        }
        let revision = form["_revision"].flatMap(Int.init) ?? current.revision
        let session: [String: JSONValue] = ["tenant": .string(tenant), "sessionId": .string(current.sessionId), "revision": .int(Int64(revision))]
        let action = form["_action"] ?? "continue"
        var page = pageFor(current, tenant: tenant, flow: flow, person: person)

        if action == "back" {
            return await moved(web.call(.back, session, as: person.login), to: here)
        }
        if action.hasPrefix("edit:") {
            var params = session
            params["stepId"] = .string(String(action.dropFirst(5)))
            return await moved(web.call(.goto, params, as: person.login), to: here)
        }
        if action.hasPrefix("add:") || action.hasPrefix("remove:") {
            // A list grows or shrinks on the page only; nothing is saved until Continue.
            let parts = action.split(separator: ":").map(String.init)
            let name = parts.count > 1 ? parts[1] : ""
            let count = Self.entryCount(form, name)
            if parts[0] == "add" {
                page.posted = form
                page.entryCounts[name] = count + 1
            } else if let index = parts.last.flatMap(Int.init) {
                page.posted = Self.removing(entry: index, of: name, from: form)
                page.entryCounts[name] = max(0, count - 1)
            }
            return WebSupport.html(.ok, page.render())
        }
        if action.hasPrefix("search:") {
            let name = String(action.dropFirst(7))
            page.posted = form
            let query = form[name + ".query"] ?? ""
            if !query.trimmingCharacters(in: .whitespaces).isEmpty {
                var params = session
                params["field"] = .string(name)
                params["query"] = .string(query)
                params["revision"] = nil
                if case .success(let results) = await web.call(.search, params, as: person.login, returning: SearchResults.self) {
                    page.searchResults[name] = results.results
                    if results.results.isEmpty {
                        page.errors = [FieldError(field: name, code: .notAnOption, message: results.message ?? "No results found")]
                    }
                }
            }
            return WebSupport.html(.ok, page.render())
        }

        var params = session
        params["stepId"] = .string(form["_step"] ?? current.step?.id ?? "")
        params["action"] = .string(action)
        params["values"] = .object(action == "continue" ? FormValues.values(form, fields: current.step?.fields ?? []) : [:])
        switch await web.call(.submit, params, as: person.login, returning: SessionView.self) {
        case .success:
            return WebSupport.redirect(here)
        case .failure(let error) where error.code == ErrorCode.validationFailed.rawValue:
            page.posted = form
            page.errors = error.details.errors ?? []
            if let view = error.details.session {
                page = FlowPage(
                    view: view, tenant: tenant, flow: flow, csrf: page.csrf, posted: form, errors: page.errors, copy: page.copy,
                    look: page.look)
            }
            return WebSupport.html(.unprocessableContent, page.render())
        case .failure(let error) where [ErrorCode.conflict.rawValue, ErrorCode.invalidState.rawValue].contains(error.code):
            // The page was behind the session (another tab, the app): show where it is now.
            return WebSupport.redirect(here)
        case .failure(let error):
            return failure(error)
        }
    }

    func moved(_ result: Result<SessionView, WebRefusal>, to here: String) -> Response {
        switch result {
        case .success: WebSupport.redirect(here)
        case .failure(let error) where [ErrorCode.conflict.rawValue, ErrorCode.invalidState.rawValue].contains(error.code): WebSupport.redirect(here)
        case .failure(let error): failure(error)
        }
    }

    /// How many entries of list `name` the form holds.
    static func entryCount(_ form: FormBody, _ name: String) -> Int {
        (form.pairs.compactMap { FormValues.entryIndex(of: $0.name, in: name) }.max() ?? -1) + 1
    }

    /// The form without entry `index` of list `name`, the entries after it numbered down.
    static func removing(entry index: Int, of name: String, from form: FormBody) -> FormBody {
        var pairs: [(name: String, value: String)] = []
        for pair in form.pairs {
            guard let position = FormValues.entryIndex(of: pair.name, in: name) else {
                pairs.append(pair)
                continue
            }
            if position == index { continue }
            let tail = pair.name.dropFirst("\(name)[\(position)]".count)
            pairs.append((position > index ? "\(name)[\(position - 1)]" + tail : pair.name, pair.value))
        }
        return FormBody(pairs: pairs)
    }

    // MARK: - GET /flow/TENANT/search?field=…&q=…

    /// Suggestions for the page's script, as JSON: `{ "results": [ { "value", "label" } ] }`.
    func search(_ request: Request, tenant: String) async -> Response {
        guard let person = await person(request, tenant: tenant) else {
            return HTTPTransport.json(.unauthorized, #"{"results":[]}"#)
        }
        let flow = Self.flowName(request)
        let field = request.uri.queryParameters["field"].map(String.init) ?? ""
        let query = request.uri.queryParameters["q"].map(String.init) ?? ""
        guard
            case .success(let view) = await web.call(
                .get, ["tenant": .string(tenant), "userId": .string(person.userId), "flow": .string(flow)], as: person.login, returning: SessionView.self)
        else { return HTTPTransport.json(.notFound, #"{"results":[]}"#) }
        let params: [String: JSONValue] = [
            "tenant": .string(tenant), "sessionId": .string(view.sessionId), "field": .string(field), "query": .string(query), "limit": 8,
        ]
        switch await web.call(.search, params, as: person.login, returning: SearchResults.self) {
        case .success(let results): return HTTPTransport.json(.ok, ((try? JSONValue(encoding: results)) ?? [:]).serialized())
        case .failure: return HTTPTransport.json(.badRequest, #"{"results":[]}"#)
        }
    }
}

extension FormBody {
    init(pairs: [(name: String, value: String)]) {
        self.pairs = pairs
    }
}
