import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage

/// What the hosted flow and the dashboard share: calling the RPC server as a principal, the
/// per-process key their CSRF tokens are signed with, and HTML responses.
struct WebSupport: Sendable {
    let server: RPCServer
    /// The keys, tokens and sign-ins (start links used, the dashboard's sign-ins).
    let credentials: Credentials
    /// Cookies carry `Secure` unless the listener is on a loopback address.
    let secureCookies: Bool
    /// Signs CSRF tokens; new at each start (a form from before a restart asks to reload).
    let csrfKey: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }

    /// A method called through the RPC server's dispatcher as `login` (the access rules, rate
    /// limit, metrics and spans of `POST /rpc`): the method's result as the value it is (no JSON
    /// written or parsed in between), or the error object a client would get.
    func call<Answer: Sendable>(
        _ method: PlatformMethod, _ params: [String: JSONValue], as login: ConnectionState.Login?, label: String = "web",
        returning type: Answer.Type = Answer.self
    ) async -> Result<Answer, WebRefusal> {
        let connection = login.map { ConnectionState($0, label: label, transport: "http") } ?? .trusted(label, transport: "http")
        return await server.call(method, params, connection: connection, as: Answer.self).mapError { WebRefusal($0.error.object) }
    }

    /// True the first time a start link is used, on any host.
    func useStartLink(_ token: String) async throws -> Bool {
        try await credentials.useStartLink(token: token)
    }

    func login(_ secret: String) async -> ConnectionState.Login? {
        guard case .success(let login) = await server.login(bearer: secret, connection: ConnectionState(nil, label: "web", transport: "http"))
        else { return nil }
        return login
    }

    /// A token for forms of `subject` (a cookie's value and where it is used), valid 12 hours.
    func csrfToken(for subject: String) -> String {
        WebhookSignature.value(body: Array(subject.utf8), secret: csrfKey, time: Date())
    }

    func csrfIsValid(_ token: String?, for subject: String) -> Bool {
        guard let token else { return false }
        return WebhookSignature.isValid(token, body: Array(subject.utf8), secret: csrfKey, now: Date(), tolerance: 12 * 3600)
    }

    static func html(_ status: HTTPResponse.Status, _ page: String, headers: [(HTTPField.Name, String)] = []) -> Response {
        var response = Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
        // Pages are per person: never cached; and never framed by another site.
        response.headers[.cacheControl] = "no-store"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Content-Security-Policy")!] =
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'"
        for (name, value) in headers { response.headers.append(HTTPField(name: name, value: value)) }
        return response
    }

    static func redirect(_ location: String, cookie: String? = nil) -> Response {
        var response = Response(status: .seeOther)
        response.headers[.location] = location
        response.headers[.cacheControl] = "no-store"
        if let cookie { response.headers[.setCookie] = cookie }
        return response
    }

    /// A page that only says something (a refusal, an expired form), with a way on.
    static func notice(_ status: HTTPResponse.Status, title: String, message: String, link: (href: String, text: String)? = nil) -> Response {
        var body = "<main>\n<h1>\(HTML.text(title))</h1>\n<p>\(HTML.text(message))</p>\n"
        if let link { body += "<p><a href=\"\(HTML.attribute(link.href))\">\(HTML.text(link.text))</a></p>\n" }
        body += "</main>"
        return html(status, HTML.page(title: title, language: "en", body: body))
    }

    static func asset(_ text: String, type: String) -> Response {
        var response = Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
        response.headers[.cacheControl] = "public, max-age=3600"
        return response
    }

    /// The body of a form POST, or nil when it is not one or is larger than `limit`.
    static func form(_ request: Request, limit: Int) async throws -> FormBody? {
        let type = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard type == "application/x-www-form-urlencoded" else { return nil }
        guard let body = try await HTTPTransport.collect(request, upTo: limit) else { return nil }
        return FormBody(Array(body.readableBytesView))
    }
}

/// A JSON-RPC error a page's call got, as an `Error`.
struct WebRefusal: Error {
    let object: RPCErrorObject
    init(_ object: RPCErrorObject) { self.object = object }
    var code: Int { object.code }
    var message: String { object.message }
    var details: RPCErrorObject.Details { object.details }
}
