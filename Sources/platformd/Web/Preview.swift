import Hummingbird
import Logging
import PlatformCore

/// `serve --preview`: `/preview/` lists the tenants, `/preview/TENANT/` starts the tenant's flow
/// for a new throwaway user with a token the server mints for itself, so a plugin author looks at
/// a flow without writing a client. Only on a loopback listener (`Serve.validate`).
struct Preview: Sendable {
    let web: WebSupport
    let platform: Platform
    let logger: Logger

    func routes(_ router: Router<BasicRequestContext>) {
        router.get("/preview") { _, _ in index() }
        router.get("/preview/:tenant") { _, context in await start(tenant: context.parameters.get("tenant") ?? "") }
    }

    func index() -> Response {
        let links = platform.hosted.map { tenant in
            "<li><a href=\"/preview/\(HTML.attribute(tenant.id))/\">\(HTML.text(tenant.id))</a> (\(HTML.text(tenant.pluginName)))</li>"
        }.joined(separator: "\n")
        let body = "<main>\n<h1>Preview</h1>\n<p>Each link starts the tenant's flow for a new throwaway user.</p>\n<ul>\n\(links)\n</ul>\n</main>"
        return WebSupport.html(.ok, HTML.page(title: "Preview", language: "en", body: body, script: false))
    }

    /// A new user (`preview-…`) with a token minted as the server itself, sent on to the flow.
    func start(tenant: String) async -> Response {
        let userId = "preview-" + Platform.randomID().prefix(8)
        switch await web.call(.userToken, ["tenant": .string(tenant), "userId": .string(userId), "ttlSeconds": 86_400], as: nil, label: "preview") {
        case .success(let minted):
            guard let token = minted["token"]?.stringValue else { return WebSupport.notice(.internalServerError, title: "No token", message: "auth.userToken answered no token") }
            logger.info("preview session", metadata: ["tenant": "\(tenant)", "user": "\(userId)"])
            return WebSupport.redirect("/flow/\(tenant)/start?token=\(token)")
        case .failure(let error):
            return WebSupport.notice(.notFound, title: "No such tenant", message: error.message, link: ("/preview/", "All tenants"))
        }
    }
}
