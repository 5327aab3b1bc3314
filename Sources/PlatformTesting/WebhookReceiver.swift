import Crypto
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import Synchronization

/// A webhook receiver on 127.0.0.1 for tests (a `LoopbackHTTPServer`): every request recorded
/// with what it was answered. The first `failFirst` deliveries of each event fail, alternately
/// with HTTP 500 and with a connection closed without an answer; later ones get 200.
public final class WebhookReceiver: Sendable {
    public struct Request: Sendable {
        public var path: String
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]
        /// What the receiver did: 200, 500, or 0 for a connection closed with no answer.
        public var answered: Int

        public var eventId: String? { headers["platformd-event-id"] }
        public var json: JSONValue? { try? JSONValue.parse(body) }
    }

    /// What was received, and how often each event was attempted.
    final class Record: Sendable {
        let state = Mutex<(requests: [Request], attempts: [String: Int])>(([], [:]))
    }

    public let failFirst: Int
    private let server: LoopbackHTTPServer
    private let record = Record()

    /// Listens on `port` (0: a free one).
    public init(port: UInt16 = 0, failFirst: Int = 0) throws {
        self.failFirst = failFirst
        let record = self.record
        server = try LoopbackHTTPServer(port: port) { request in
            let eventId = request.headers["platformd-event-id"]
            let answered = record.state.withLock { state in
                state.attempts[eventId ?? "", default: 0] += 1
                let attempt = state.attempts[eventId ?? ""]!
                let answered = attempt > failFirst ? 200 : attempt % 2 == 1 ? 500 : 0
                state.requests.append(Request(path: request.path, headers: request.headers, body: request.body, answered: answered))
                return answered
            }
            return answered == 0 ? .close : .answer(status: answered, reason: answered == 200 ? "OK" : "Oops")
        }
    }

    public var port: UInt16 { server.port }

    /// A port nothing listens on now (bound, then let go), for a receiver started later.
    /// A port free now that stays free for a while: taken below Linux's ephemeral range (32768
    /// and up, `ip_local_port_range`), where the kernel never hands a port to a `bind(0)` or an
    /// outgoing connection, so a test that listens there seconds later finds it free even with
    /// the whole suite opening connections meanwhile (a port from `bind(0)` was once taken by
    /// then: EADDRINUSE).
    public static func freePort() throws -> UInt16 {
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                let receiver = try WebhookReceiver(port: UInt16.random(in: 20_000..<32_000))
                receiver.close()
                return receiver.port
            } catch {
                lastError = error
            }
        }
        throw lastError ?? SocketClient.Failure(description: "no free port below the ephemeral range")
    }

    public var url: String { "http://127.0.0.1:\(port)/hooks" }
    public var requests: [Request] { record.state.withLock { $0.requests } }

    /// The events received with a 200, each once (deduplicated by id, as a receiver must).
    public var delivered: [String: Request] {
        var events: [String: Request] = [:]
        for request in requests where request.answered == 200 {
            if let id = request.eventId, events[id] == nil { events[id] = request }
        }
        return events
    }

    public func close() { server.close() }
}

extension WebhookReceiver {
    /// Checks a `Platformd-Signature` header independently of the server's code: HMAC-SHA256 of
    /// "t." + body with `secret`, `t` within five minutes of now.
    public static func validSignature(_ header: String?, body: [UInt8], secret: String) -> Bool {
        guard let header else { return false }
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let t = fields["t"], let seconds = Double(t), abs(Date().timeIntervalSince1970 - seconds) < 300 else { return false }
        let code = HMAC<SHA256>.authenticationCode(for: Array((t + ".").utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
        return fields["v1"] == code.map { String(format: "%02x", $0) }.joined()
    }
}
