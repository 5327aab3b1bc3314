import PlatformTesting
import Testing

/// The tests' HTTP stand-in (webhook receivers, remote APIs). A server closed at once, as
/// `WebhookReceiver.freePort()` does, left an accept thread that had not yet called `accept`:
/// it later accepted on the same descriptor number, by then a newer server's listener, and
/// answered that server's requests with its own replies (a webhook test saw its receiver's
/// second attempt "never arrive" in loaded runs: a stale receiver had answered it 200).
@Suite struct LoopbackHTTPServerTests {
    @Test func aClosedServerNeverAnswersALaterServersRequests() throws {
        for _ in 0..<30 {
            try LoopbackHTTPServer { _ in .answer(status: 418, reason: "Stale") }.close()
        }
        let server = try LoopbackHTTPServer { _ in .answer(status: 200, reason: "OK") }
        defer { server.close() }
        var statuses: [Int] = []
        for _ in 0..<30 {
            let client = try RawHTTP(port: Int(server.port), timeoutSeconds: 5)
            try client.send("GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            statuses.append(try client.readHead()?.status ?? 0)
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(server.received.count == 30)
    }
}
