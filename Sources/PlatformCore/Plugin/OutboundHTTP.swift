import Foundation

/// The host's HTTP client, for a plugin that calls a service outside the server (AirFit's goal
/// analysis by a model's API). A plugin links no HTTP stack of the server's; the server hands it
/// this one in `TenantSettings.outbound`, so a plugin's requests share the server's client (its
/// event loops, its TLS, its connection pool) instead of each plugin bringing its own.
///
/// A host that hands none (a plugin's own tests through `FlowDriver`, another host) leaves the
/// plugin to its fallback.
public protocol OutboundHTTP: Sendable {
    /// Sends one POST and reads the whole answer. The deadline is `timeout` from the call,
    /// for the connection, the request and the answer's body together. (`platformd`'s client
    /// follows no redirect: a 3xx is the answer.)
    ///
    /// - Throws: `OutboundHTTPError`: no answer in time, a body over `maxResponseBytes`, or the
    ///   connection failed. A status that is not 2xx is an answer, not an error.
    func post(
        _ url: URL, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration, maxResponseBytes: Int
    ) async throws(OutboundHTTPError) -> OutboundHTTPResponse
}

/// A service's answer: its status and its whole body.
public struct OutboundHTTPResponse: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Why an outbound request has no answer. Its description names the failure, never what was
/// sent or answered (a person's text may be in either).
public enum OutboundHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    case timedOut
    case responseTooLarge(limit: Int)
    case failed(String)

    public var description: String {
        switch self {
        case .timedOut: "no answer within the timeout"
        case .responseTooLarge(let limit): "the answer is larger than \(limit) bytes"
        case .failed(let reason): reason
        }
    }
}
