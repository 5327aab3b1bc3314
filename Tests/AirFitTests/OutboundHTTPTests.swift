import Foundation
import PlatformCore
import PlatformServer
import PlatformTesting
import PlatformTransports
import Synchronization
import Testing

@testable import AirFit

/// The HTTP client `platformd` hands its plugins, and Foundation's for a host that hands none,
/// against a local stub.
@Suite struct OutboundHTTPClients {
    static let clients: [any OutboundHTTP] = [ServerOutboundHTTP(), FoundationOutboundHTTP()]

    @Test(arguments: clients)
    func postsAndReadsTheWholeAnswer(client: any OutboundHTTP) async throws {
        let server = try StubHTTPServer { request in .json(status: 201, body: #"{"echo":\#(request.body.count)}"#) }
        defer { server.close() }
        let body = Array(#"{"hello":"world"}"#.utf8)
        let response = try await client.post(
            server.baseURL.appendingPathComponent("chat/completions"), headers: [(name: "Authorization", value: "Bearer k")], body: body,
            timeout: .seconds(60), maxResponseBytes: 1024)
        #expect(response.status == 201)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"echo":17}"#)
        let received = try #require(server.received.first)
        #expect(received.head.hasPrefix("POST /v1/chat/completions HTTP/1.1"))
        #expect(received.head.lowercased().contains("authorization: bearer k"))
        #expect(received.body == #"{"hello":"world"}"#)
    }

    @Test(arguments: clients)
    func aStatusThatIsNotSuccessIsAnAnswer(client: any OutboundHTTP) async throws {
        let server = try StubHTTPServer { _ in .json(status: 503, body: "{}") }
        defer { server.close() }
        let response = try await client.post(server.baseURL, headers: [], body: [], timeout: .seconds(60), maxResponseBytes: 1024)
        #expect(response.status == 503)
    }

    /// The server's client never follows a redirect: the 3xx is the answer.
    @Test func theServersClientFollowsNoRedirect() async throws {
        let target = try StubHTTPServer { _ in .json(status: 200, body: "{}") }
        defer { target.close() }
        let server = try StubHTTPServer { _ in .raw(status: 302, headers: [("Location", target.baseURL.absoluteString)], body: []) }
        defer { server.close() }
        let response = try await ServerOutboundHTTP().post(server.baseURL, headers: [], body: [], timeout: .seconds(60), maxResponseBytes: 1024)
        #expect(response.status == 302)
        #expect(target.received.isEmpty)
    }

    @Test func theServersClientStopsReadingPastTheLimit() async throws {
        let server = try StubHTTPServer { _ in .raw(status: 200, headers: [], body: Array(repeating: UInt8(ascii: "a"), count: 4096)) }
        defer { server.close() }
        await #expect(throws: OutboundHTTPError.responseTooLarge(limit: 1000)) {
            _ = try await ServerOutboundHTTP().post(server.baseURL, headers: [], body: [], timeout: .seconds(60), maxResponseBytes: 1000)
        }
    }

    @Test func theServersClientGivesUpAtTheDeadline() async throws {
        let server = try StubHTTPServer { _ in .hang }
        defer { server.close() }
        await #expect(throws: OutboundHTTPError.timedOut) {
            _ = try await ServerOutboundHTTP().post(server.baseURL, headers: [], body: [], timeout: .milliseconds(300), maxResponseBytes: 1000)
        }
    }

    @Test func aClosedPortFailsSayingSo() async throws {
        let server = try StubHTTPServer { _ in .hang }
        let url = server.baseURL
        server.close()
        do {
            _ = try await ServerOutboundHTTP().post(url, headers: [], body: [], timeout: .seconds(10), maxResponseBytes: 1000)
            Issue.record("expected a failure")
        } catch {
            guard case .failed(let reason) = error else {
                Issue.record("expected .failed, got \(error)")
                return
            }
            #expect(reason.contains("connection"))
        }
    }
}

/// The client the host hands in `TenantSettings.outbound` is the one AirFit's analyzer sends
/// through, whichever way the tenant configures it.
@Suite struct AnalyzerUsesTheHostsClient {
    /// Answers every request with one chat completion, and keeps what it was sent.
    final class RecordingClient: OutboundHTTP {
        let sent = Mutex<[(url: URL, body: [UInt8])]>([])

        func post(
            _ url: URL, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration, maxResponseBytes: Int
        ) async throws(OutboundHTTPError) -> OutboundHTTPResponse {
            sent.withLock { $0.append((url, body)) }
            let content = #"{"goal_type":"strength","primary_metric":"one_rep_max","target":{"value":140,"unit":"kg"}}"#
            let reply: JSONValue = ["choices": [["message": ["role": "assistant", "content": .string(content)]]]]
            return OutboundHTTPResponse(status: 200, body: reply.serializedBytes())
        }
    }

    @Test(arguments: [
        // A tenants file's settings.
        TenantSettings(values: ["analyzerUrl": "http://model.invalid/v1", "analyzerModel": "m", "analysisTimeoutSeconds": 8]),
        // The default tenant, configured by the environment.
        TenantSettings(values: ["analysisTimeoutSeconds": 8], environment: ["AIRFIT_ANALYZER_URL": "http://model.invalid/v1", "AIRFIT_ANALYZER_MODEL": "m"]),
    ])
    func theRegisteredPluginSendsThroughIt(settings: TenantSettings) async throws {
        let client = RecordingClient()
        var given = settings
        given.outbound = client
        let plugin = try #require(AirFitPlugin.registration.make(given) as? AirFitPlugin)
        let d = try await driver(plugin)
        let text = "Deadlift 140 kg"
        _ = try await complete(d, replacing: [.coreAspiration: ["aspirationPreset": "describe_own", "aspirationText": .string(text)]])
        let goal = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["goal"]
        #expect(goal?["analysis"] == ["source": "analysis", "analyzer": "openai-compatible", "fellBack": false])
        #expect(goal?["structured"]?["target"] == ["value": 140, "unit": "kg"])
        let sent = client.sent.withLock { $0 }
        #expect(sent.map(\.url.absoluteString) == ["http://model.invalid/v1/chat/completions"])
        #expect(try JSONValue.parse(sent.first?.body ?? [])["messages"]?.arrayValue?.last?["content"] == .string(text))
    }
}
