import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PlatformCore
import PlatformProtocol
import PlatformServer
import PlatformStorage
import PlatformTransports
import Prometheus
import SQLiteStore
import Testing

/// The HTTP router in process (HummingbirdTesting, no socket): which route answers what, and
/// with which status, for `POST /rpc`, the operators' endpoints, the hosted flow's start link and
/// the methods a path does not take. What only a listening binary does (connection limits,
/// timeouts, the WebSocket upgrade, drain) stays in the binary tests.
@Suite("HTTP routes in process")
struct HTTPRoutesTests {
    /// One tenant of a two-step plugin written here, so the router is tested without a real app.
    struct Served {
        let transport: HTTPTransport
        let credentials: Credentials
        let tenantKey: String
    }

    static func serving(
        requireLogin: Bool = true, maxBodyBytes: Int = 64 * 1024, experiments: [Experiment] = [], look: HostedLook? = nil,
        _ body: @escaping @Sendable (Served, any TestClientProtocol) async throws -> Void
    ) async throws {
        let logger = Logger(label: "routes-test")
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let plugin = TwoStepPlugin()
        let platform = Platform(
            tenants: [HostedTenant(id: plugin.id, pluginName: plugin.name, plugin: plugin, experiments: experiments, look: look)], store: store, logger: logger)
        try await platform.startServingFlows(logger: logger)
        let credentials = Credentials(store: store)
        let server = platform.rpcServer(credentials: credentials)
        let connections = HTTPConnectionTable(limit: 64, logger: logger)
        let mcp = MCPHTTPSessions(
            platform: platform, server: server, maxBodyBytes: maxBodyBytes, allowedOrigins: [], connections: connections, logger: logger)
        let transport = HTTPTransport(
            server: server, mcp: mcp, platform: platform, store: store, preview: false, readiness: Readiness(),
            metrics: PrometheusCollectorRegistry(), host: "127.0.0.1", port: 0, requireLogin: requireLogin, maxBodyBytes: maxBodyBytes,
            connections: connections, budget: PartialLineBudget(logger: logger), logger: logger)
        let secret = try await credentials.createKey(tenant: TwoStepPlugin.tenant, name: "routes").secret
        let served = Served(transport: transport, credentials: credentials, tenantKey: secret)
        try await Application(router: transport.router()).test(.router) { client in
            try await body(served, client)
        }
    }

    static func rpc(_ body: String, bearer: String?) -> (URI: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer) {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        return ("/rpc", .post, headers, ByteBuffer(string: body))
    }

    static func json(_ response: TestResponse) throws -> JSONValue {
        try JSONValue.parse(Array(response.body.readableBytesView))
    }

    @Test func postRPCAnswersTheCallerItsBearerActsFor() async throws {
        try await Self.serving { served, client in
            let start = #"{"jsonrpc":"2.0","id":1,"method":"flow.start","params":{"tenant":"two-step","userId":"ana"}}"#
            let refused = Self.rpc(start, bearer: nil)
            try await client.execute(uri: refused.URI, method: refused.method, headers: refused.headers, body: refused.body) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == "Bearer")
                let code = try Self.json(response)["error"]?["code"]
                #expect(code == .int(Int64(ErrorCode.unauthorized.rawValue)))
            }
            let allowed = Self.rpc(start, bearer: served.tenantKey)
            try await client.execute(uri: allowed.URI, method: allowed.method, headers: allowed.headers, body: allowed.body) { response in
                #expect(response.status == .ok)
                let reply = try Self.json(response)
                #expect(reply["id"] == 1)
                #expect(reply["result"]?["step"]?["id"] == "first")
            }
            // Another tenant's key cannot reach this tenant, whatever the route.
            let wrong = Self.rpc(start, bearer: "pdk_not-a-key")
            try await client.execute(uri: wrong.URI, method: wrong.method, headers: wrong.headers, body: wrong.body) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func aBodyOverTheLimitIs413AndAnUnparsableOneIsAParseError() async throws {
        try await Self.serving(maxBodyBytes: 256) { served, client in
            let big = Self.rpc(String(repeating: " ", count: 300) + "{}", bearer: served.tenantKey)
            try await client.execute(uri: big.URI, method: big.method, headers: big.headers, body: big.body) { response in
                #expect(response.status == .contentTooLarge)
            }
            let broken = Self.rpc(#"{"jsonrpc":"2.0","id":1,"method""#, bearer: served.tenantKey)
            try await client.execute(uri: broken.URI, method: broken.method, headers: broken.headers, body: broken.body) { response in
                let code = try Self.json(response)["error"]?["code"]
                #expect(code == .int(Int64(ErrorCode.parseError.rawValue)))
            }
        }
    }

    @Test func eachPathAnswersOnlyItsMethods() async throws {
        try await Self.serving { _, client in
            try await client.execute(uri: "/rpc", method: .get) { response in
                #expect(response.status == .upgradeRequired)
            }
            try await client.execute(uri: "/rpc", method: .put) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "POST, GET")
            }
            try await client.execute(uri: "/health/live", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/nowhere", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    /// The hosted flow's start link signs a person in once: the page it leads to is the session's
    /// step, read through the same dispatcher; the link cannot be used twice.
    @Test func theStartLinkSignsInOnceAndThePageShowsTheStep() async throws {
        try await Self.serving { served, client in
            let token = try await served.credentials.mintToken(tenant: TwoStepPlugin.tenant, userId: "ana", ttl: 600).token
            var cookie = ""
            try await client.execute(uri: "/flow/\(TwoStepPlugin.tenant)/start?token=\(token)", method: .get) { response in
                #expect(response.status == .seeOther)
                cookie = String(response.headers[.setCookie]?.split(separator: ";").first ?? "")
            }
            #expect(!cookie.isEmpty)
            try await client.execute(uri: "/flow/\(TwoStepPlugin.tenant)/", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("First question"))
            }
            try await client.execute(uri: "/flow/\(TwoStepPlugin.tenant)/start?token=\(token)", method: .get) { response in
                #expect(response.status.code >= 400, "a start link is used once")
            }
        }
    }

    /// A person an experiment sent to another flow: the page reads their session on it, and a
    /// posted answer moves it on (the page asks for the experiment's flow, not the variant's).
    @Test func aPersonEnrolledOnAnotherFlowAnswersOnThePage() async throws {
        let experiment = Experiment(
            id: "shorter", flow: "onboarding",
            variants: [.init(id: "long", flow: "onboarding", weight: 1), .init(id: "short", flow: "short", weight: 1)], control: "long")
        let user = try #require((0..<100).map { "person-\($0)" }.first { experiment.assignment(of: $0)?.id == "short" })
        try await Self.serving(experiments: [experiment]) { served, client in
            let token = try await served.credentials.mintToken(tenant: TwoStepPlugin.tenant, userId: user, ttl: 600).token
            var cookie = ""
            try await client.execute(uri: "/flow/\(TwoStepPlugin.tenant)/start?token=\(token)", method: .get) { response in
                cookie = String(response.headers[.setCookie]?.split(separator: ";").first ?? "")
            }
            var csrf = ""
            for _ in 0..<2 {
                try await client.execute(uri: "/flow/\(TwoStepPlugin.tenant)/", method: .get, headers: [.cookie: cookie]) { response in
                    #expect(response.status == .ok)
                    let page = String(buffer: response.body)
                    #expect(page.contains("Only question"), "the variant's flow, read again on every load")
                    let marker = #"name="_csrf" value=""#
                    if let range = page.range(of: marker), let end = page[range.upperBound...].firstIndex(of: "\"") {
                        csrf = String(page[range.upperBound..<end]).replacingOccurrences(of: "&amp;", with: "&")
                    }
                }
            }
            let form = "_csrf=\(csrf.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&_action=continue&onlyAnswer=yes"
            try await client.execute(
                uri: "/flow/\(TwoStepPlugin.tenant)/", method: .post,
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: form)
            ) { response in
                #expect(response.status == .seeOther, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/flow/\(TwoStepPlugin.tenant)/", method: .get, headers: [.cookie: cookie]) { response in
                #expect(String(buffer: response.body).contains("Done"), "completed on the variant's flow")
            }
        }
    }
}
