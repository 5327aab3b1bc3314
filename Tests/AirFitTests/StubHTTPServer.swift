import Foundation
import PlatformTesting

/// A one-route stand-in for the OpenAI-compatible analyzer's server, so its client is tested
/// without a network: each connection gets one JSON reply from `respond`, or none at all when it
/// says to hang (PlatformTesting's `LoopbackHTTPServer` underneath).
final class StubHTTPServer: Sendable {
    enum Reply: Sendable {
        case json(status: Int, body: String)
        /// Any status, headers and body.
        case raw(status: Int, headers: [(String, String)], body: [UInt8])
        /// Keeps the connection open without answering, like a stalled upstream.
        case hang
    }

    struct Request: Sendable {
        var head: String
        var body: String
    }

    private let server: LoopbackHTTPServer

    init(_ respond: @escaping @Sendable (Request) -> Reply) throws {
        server = try LoopbackHTTPServer { request in
            switch respond(Request(head: request.head, body: String(decoding: request.body, as: UTF8.self))) {
            case .json(let status, let body):
                .answer(status: status, reason: "Stub", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
            case .raw(let status, let headers, let body): .answer(status: status, reason: "Stub", headers: headers, body: body)
            case .hang: .hang
            }
        }
    }

    var port: UInt16 { server.port }
    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/v1")! }
    var received: [Request] { server.received.map { Request(head: $0.head, body: String(decoding: $0.body, as: UTF8.self)) } }

    /// Stops accepting; connections left hanging are closed by the client's timeout.
    func close() { server.close() }
}
