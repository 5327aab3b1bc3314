import Foundation
import PlatformCore
import PlatformTesting
import Testing

/// A hosted page's command and an MCP tool take the path `POST /rpc` takes (`RPCServer.dispatch`):
/// each method they run is counted in the same request series, under its own name, and a page's
/// Back is the same flow.back a client sends.
@Suite("Pages and MCP share the dispatcher")
struct PageDispatchTests {
    @Test func aPagesCommandsAreCountedAsTheSameMethodsAsPOSTRPC() async throws {
        try await HostedFlowTests.serving { http, admin, _ in
            let tenant = Hosted.tenant
            let get = #"platformd_requests_total{transport="http",method="flow.get",outcome="ok"}"#
            let back = #"platformd_requests_total{transport="http",method="flow.back",outcome="ok"}"#
            let start = #"platformd_requests_total{transport="http",method="flow.start",outcome="ok"}"#

            // Over POST /rpc: a start and a read, each counted once.
            let before = try await http.metrics()
            let started = try await http.call("flow.start", ["tenant": .string(tenant), "userId": "pages"], bearer: admin)
            let sessionId = try #require(started["result"]?["sessionId"])
            #expect(try await http.call("flow.get", ["tenant": .string(tenant), "sessionId": sessionId], bearer: admin)["result"] != nil)
            let afterRPC = try await http.metrics()
            #expect(afterRPC[start] == (before[start] ?? 0) + 1)
            #expect(afterRPC[get] == (before[get] ?? 0) + 1)

            // The same person on the hosted page: showing it is one flow.get, in the same series.
            let token = try await HostedFlowTests.mint(http, admin, tenant: tenant, user: "pages")
            let browser = HostedFlowTests.Browser(base: http.base)
            defer { Task { try? await browser.shutdown() } }
            #expect(try await browser.request(.GET, "/flow/\(tenant)/start?token=\(token)").status == 303)
            let beforePage = try await http.metrics()
            let page = try await browser.request(.GET, "/flow/\(tenant)/")
            #expect(page.status == 200)
            let afterPage = try await http.metrics()
            #expect(afterPage[get] == (beforePage[get] ?? 0) + 1, "the page's read is counted as flow.get")
            #expect(afterPage[start] == beforePage[start], "a person with a session is not started again")

            // Answer the first step over /rpc, then the page's Back runs flow.back.
            let view = try await http.call("flow.get", ["tenant": .string(tenant), "sessionId": sessionId], bearer: admin)
            let values = GenericAnswers().valuesWithoutSearch(for: view["result"]?["step"]?["fields"]?.arrayValue ?? [])
            let submitted = try await http.call(
                "flow.submit",
                [
                    "tenant": .string(tenant), "sessionId": sessionId, "stepId": view["result"]?["step"]?["id"] ?? .null,
                    "revision": view["result"]?["revision"] ?? .null, "values": .object(values),
                ], bearer: admin)
            try #require(submitted["result"] != nil, "\(submitted)")
            let shown = try await browser.request(.GET, "/flow/\(tenant)/")
            let csrf = try #require(HostedFlowTests.Browser.csrf(shown.text))
            let beforeBack = try await http.metrics()
            let posted = try await browser.request(.POST, "/flow/\(tenant)/", form: [("_csrf", csrf), ("_action", "back")])
            #expect(posted.status == 303)
            let afterBack = try await http.metrics()
            #expect(afterBack[back] == (beforeBack[back] ?? 0) + 1, "the page's Back is counted as flow.back")
            let moved = try await http.call("flow.get", ["tenant": .string(tenant), "sessionId": sessionId], bearer: admin)
            #expect(moved["result"]?["step"]?["id"] == view["result"]?["step"]?["id"], "Back returned to the first step")
        }
    }

    @Test func anMCPToolRunsItsMethodsThroughTheDispatcher() async throws {
        try await HostedFlowTests.serving { http, admin, _ in
            let tenant = Hosted.tenant
            let token = try await HostedFlowTests.mint(http, admin, tenant: tenant, user: "assistant")
            let opened = try await AuthDoorsTests.initialize(http, token: token)
            let session = try #require(opened.header("Mcp-Session-Id"))
            func tool(_ name: String, _ id: Int64) async throws -> HTTPServing.Answer {
                let call: JSONValue = ["jsonrpc": "2.0", "id": .int(id), "method": "tools/call", "params": ["name": .string(name), "arguments": [:]]]
                return try await http.request(
                    .POST, "/mcp", body: call.serializedBytes(), headers: [("Authorization", "Bearer \(token)"), ("Mcp-Session-Id", session)])
            }
            let start = #"platformd_requests_total{transport="mcp",method="flow.start",outcome="ok"}"#
            let get = #"platformd_requests_total{transport="mcp",method="flow.get",outcome="ok"}"#
            let notFound = #"platformd_requests_total{transport="mcp",method="flow.get",outcome="-32002"}"#
            let before = try await http.metrics()
            // No session yet: the status tool reads (not found), then starts one.
            #expect(try await tool("onboarding_status", 2).json?["result"]?["isError"] == false)
            let afterFirst = try await http.metrics()
            #expect(afterFirst[notFound] == (before[notFound] ?? 0) + 1)
            #expect(afterFirst[start] == (before[start] ?? 0) + 1)
            // Then it only reads.
            #expect(try await tool("onboarding_status", 3).json?["result"]?["isError"] == false)
            let afterSecond = try await http.metrics()
            #expect(afterSecond[get] == (afterFirst[get] ?? 0) + 1)
            #expect(afterSecond[start] == afterFirst[start])
        }
    }
}
