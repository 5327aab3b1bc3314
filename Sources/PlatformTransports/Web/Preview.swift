import Hummingbird
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import Synchronization

/// `serve --preview`: `/preview/` lists the tenants, `/preview/TENANT/` starts the tenant's flow
/// for a new throwaway user with a token the server mints for itself, so a plugin author looks at
/// a flow without writing a client. Only on a loopback listener (`Serve.validate`).
struct Preview: Sendable {
    let web: WebSupport
    let platform: Platform
    let logger: Logger

    func routes(_ router: Router<PlatformRequestContext>) {
        router.get("/preview") { _, _ in index() }
        router.get("/preview/:tenant") { _, context in await start(tenant: context.parameters.get("tenant") ?? "") }
    }

    func index() -> Response {
        let links = platform.hosted.map { tenant in
            "<li><a href=\"/preview/\(HTML.attribute(tenant.id))/\">\(HTML.text(tenant.id))</a> (\(HTML.text(tenant.pluginName)))</li>"
        }.joined(separator: "\n")
        let body = "<main>\n<h1>Preview</h1>\n<p>Each link starts the tenant's flow for a new throwaway user.</p>\n<ul>\n\(links)\n</ul>\n</main>"
        return WebSupport.html(.ok, HTML.page(title: "Preview", language: "en", body: body))
    }

    /// Previews started in the last minute, at most `perMinute`: each mints a token and a
    /// session for anyone who reaches the port, so their number is bounded.
    static let perMinute = 30
    let recent = PreviewStarts()

    /// A new user (`preview-…`) with a token minted as the server itself, sent on to the flow. The
    /// token lives an hour (the least a token may), long enough to look at a flow.
    func start(tenant: String) async -> Response {
        guard recent.admit(limit: Self.perMinute) else {
            var response = WebSupport.notice(
                .tooManyRequests, title: "Too many previews", message: "At most \(Self.perMinute) previews start a minute: try again shortly.")
            response.headers[.retryAfter] = "60"
            return response
        }
        let userId = "preview-" + Platform.randomID().prefix(8)
        let ttl = JSONValue.int(Int64(ParamBounds.tokenLifetime.defaultValue))
        switch await web.call(
            .userToken, ["tenant": .string(tenant), "userId": .string(userId), "ttlSeconds": ttl], as: nil, label: "preview", returning: UserToken.self)
        {
        case .success(let minted):
            let token = minted.token
            logger.info("preview session", metadata: ["tenant": "\(tenant)", "user": "\(userId)"])
            // Signed in here, not through the start link: the author asked for a new throwaway
            // person, so the link's question before switching people would only be in the way.
            return await HostedFlow.signIn(token, tenant: tenant, flow: "onboarding", web: web)
        case .failure(let error):
            return WebSupport.notice(.notFound, title: "No such tenant", message: error.message, link: ("/preview/", "All tenants"))
        }
    }
}

/// When the last previews started, to bound how many start a minute.
final class PreviewStarts: Sendable {
    private let starts = Mutex<[ContinuousClock.Instant]>([])

    func admit(limit: Int, now: ContinuousClock.Instant = .now) -> Bool {
        starts.withLock { starts in
            starts.removeAll { now - $0 >= .seconds(60) }
            guard starts.count < limit else { return false }
            starts.append(now)
            return true
        }
    }
}
