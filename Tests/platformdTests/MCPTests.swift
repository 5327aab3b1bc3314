import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// `platformd mcp` driven over stdio as an MCP host drives it (PlatformTesting's `MCPClient`): the
/// real binary, one JSON-RPC message per line, notifications collected as they come; on the
/// registered tenants. Each plugin's walks through the tools are in its own test target.
@Suite("platformd mcp")
struct MCPTests {
    @Test func initializeNegotiatesTheVersionAndAnswersEveryMethod() async throws {
        let tenant = Hosted.tenant
        try await PlatformdProcess.with(MCPClient.arguments(tenant, user: "u1", db: ":memory:")) { server in
            let client = MCPClient(server)
            let result = try await client.initialize(version: "2025-06-18")
            #expect(result["protocolVersion"] == "2025-06-18")
            #expect(result["capabilities"]?["tools"]?["listChanged"] == true)
            #expect(result["capabilities"]?["resources"] != nil)
            #expect(result["capabilities"]?["prompts"] != nil)
            #expect(result["serverInfo"]?["name"] == "platformd")
            #expect(result["serverInfo"]?["version"] == .string(Platform.version))
            #expect(result["instructions"]?.stringValue?.contains("onboarding_status") == true)

            #expect(try await client.result("ping") == [:])
            let unknown = try await client.request("sampling/createMessage", [:])
            #expect(unknown["error"]?["code"] == -32601)
            let unknownTool = try await client.request("tools/call", ["name": "onboarding_teleport", "arguments": [:]])
            #expect(unknownTool["error"]?["code"] == -32602)
            let missingURI = try await client.request("resources/read", [:])
            #expect(missingURI["error"]?["code"] == -32602)

            // Every line on stdout is a JSON-RPC message: logs went to stderr.
            #expect(client.lines.allSatisfy { (try? JSONValue.parse($0))?["jsonrpc"] == "2.0" })
            #expect(server.stderrText.contains("MCP server for tenant \(tenant)"))
            try server.closeStdin()
            #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
        }
        // A newer version this server speaks is answered as asked; an unknown one gets 2025-06-18.
        for (asked, answered) in [("2025-11-25", "2025-11-25"), ("2024-11-05", "2025-06-18"), ("2099-01-01", "2025-06-18")] {
            try await PlatformdProcess.with(MCPClient.arguments(tenant, user: "u1", db: ":memory:")) { server in
                let result = try await MCPClient(server).initialize(version: asked)
                #expect(result["protocolVersion"] == .string(answered))
            }
        }
    }

    /// What a host that writes its requests and closes stdin at once gets: every reply, then exit 0.
    @Test func requestsSentBeforeEOFAreAllAnswered() async throws {
        let tenant = Hosted.tenant
        let firstStep = try await Hosted.firstStep(of: tenant)
        try await PlatformdProcess.with(MCPClient.arguments(tenant, user: "u1", db: ":memory:")) { server in
            try server.send(
                #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#
            )
            try server.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            try server.send(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
            try server.send(#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"onboarding_status"}}"#)
            try server.send(#"{not json"#)
            try server.closeStdin()
            #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
            let replies = String(decoding: server.stdoutBytes, as: UTF8.self).split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
            // The status call started the session, so the listed answer tool changed: the
            // notification comes before the call's result.
            #expect(replies.map { $0["id"] } == [1, 2, nil, 3, .null])
            #expect(replies[2]["method"] == "notifications/tools/list_changed")
            #expect(replies[3]["result"]?["structuredContent"]?["step"]?["id"] == .string(firstStep))
            #expect(replies[4]["error"]?["code"] == -32700)
        }
    }

    /// The tools, their schemas, and the answer tool following the step, on the first registered
    /// tenant; what the schemas say of a plugin's fields is checked in its own target.
    @Test func toolsAreListedWithSchemasAndTheAnswerToolFollowsTheStep() async throws {
        try await PlatformdProcess.with(MCPClient.arguments(Hosted.tenant, user: "u1", db: ":memory:", ["--first-name", "Alex"])) { server in
            let client = MCPClient(server)
            _ = try await client.initialize()
            let tools = try await client.result("tools/list")["tools"]?.arrayValue ?? []
            #expect(tools.compactMap { $0["name"]?.stringValue } == MCPServer.toolNames)
            for tool in tools {
                #expect(tool["inputSchema"]?["type"] == "object", "\(tool.serialized())")
                #expect(tool["description"]?.stringValue?.isEmpty == false)
                #expect(tool["outputSchema"] == nil)
            }
            let byName = Dictionary(uniqueKeysWithValues: tools.map { ($0["name"]?.stringValue ?? "", $0) })
            #expect(byName["onboarding_edit"]?["inputSchema"]?["required"] == ["stepId"])
            #expect(byName["onboarding_search"]?["inputSchema"]?["required"] == ["field", "query"])
            // Before the session starts, the answer tool takes a generic object.
            #expect(byName["onboarding_answer"]?["inputSchema"]?["properties"]?["values"]?["properties"] == nil)
            #expect(client.notifications.isEmpty)

            // onboarding_status starts the session: the answer tool now describes the step's fields.
            let status = try await client.call("onboarding_status")
            #expect(client.notifications == [["jsonrpc": "2.0", "method": "notifications/tools/list_changed"]])
            let step = try #require(status["structuredContent"]?["step"])
            #expect(MCPClient.text(status).contains("[step \(step["id"]?.stringValue ?? "?")]"), "\(MCPClient.text(status))")
            func answerSchemaFields() async throws -> Set<String> {
                let relisted = try await client.result("tools/list")["tools"]?.arrayValue ?? []
                let values = relisted.first { $0["name"] == "onboarding_answer" }?["inputSchema"]?["properties"]?["values"]
                return Set(values?["properties"]?.objectValue?.keys.map { $0 } ?? [])
            }
            let fieldIds = { (view: JSONValue?) in Set(view?["fields"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []) }
            #expect(try await answerSchemaFields() == fieldIds(step))

            // Two steps answered: one list_changed per listing the client has not caught up with.
            _ = try await client.answerGenerically()
            let next = try await client.answerGenerically()
            #expect(client.notifications.count == 2, "one list_changed per listing the client has not caught up with")
            #expect(try await answerSchemaFields() == fieldIds(next["step"]))
        }
    }

    @Test func resourcesAndThePrompt() async throws {
        let tenant = Hosted.tenant
        let firstStep = try await Hosted.firstStep(of: tenant)
        try await PlatformdProcess.with(MCPClient.arguments(tenant, user: "coach 1", db: ":memory:")) { server in
            let client = MCPClient(server)
            _ = try await client.initialize()
            let resources = try await client.result("resources/list")["resources"]?.arrayValue ?? []
            #expect(resources.map { $0["uri"] } == [.string("platformd://\(tenant)/flow.mmd"), .string("platformd://\(tenant)/coach%201/current-step")])
            #expect(resources.map { $0["mimeType"] } == ["text/vnd.mermaid", "application/json"])

            let diagram = try await client.result("resources/read", ["uri": .string("platformd://\(tenant)/flow.mmd")])
            #expect(diagram["contents"]?[0]?["text"]?.stringValue?.hasPrefix("flowchart TD") == true)
            // Reading the current step never starts a session.
            var current = try await client.result("resources/read", ["uri": .string("platformd://\(tenant)/coach%201/current-step")])
            #expect(try JSONValue.parse(current["contents"]?[0]?["text"]?.stringValue ?? "")["status"] == "not_started")
            _ = try await client.view("onboarding_status")
            current = try await client.result("resources/read", ["uri": .string("platformd://\(tenant)/coach%201/current-step")])
            let session = try JSONValue.parse(current["contents"]?[0]?["text"]?.stringValue ?? "")
            #expect(session["step"]?["id"] == .string(firstStep))
            #expect(session["userId"] == "coach 1")
            let missing = try await client.request("resources/read", ["uri": .string("platformd://\(tenant)/nope")])
            #expect(missing["error"]?["code"] == -32002)

            let prompts = try await client.result("prompts/list")["prompts"]?.arrayValue ?? []
            #expect(prompts.map { $0["name"] } == ["guide_onboarding"])
            let prompt = try await client.result("prompts/get", ["name": "guide_onboarding"])
            let text = prompt["messages"]?[0]?["content"]?["text"]?.stringValue ?? ""
            #expect(prompt["messages"]?[0]?["role"] == "user")
            for phrase in ["one step at a time", "Never invent", "exactly as it is written", "onboarding_search", "onboarding_edit"] {
                #expect(text.contains(phrase), "the prompt lacks “\(phrase)”")
            }
            let unknown = try await client.request("prompts/get", ["name": "nope"])
            #expect(unknown["error"]?["code"] == -32602)
        }
    }

    /// A `serve` on the same database moves the session between two tool calls: the next answer
    /// is made against the session as it is now, not a stale revision.
    @Test func aServeOnTheSameDatabaseMovingTheSessionCausesNoConflict() async throws {
        let tenant = Hosted.tenant
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("shared.sqlite").path
            try await PlatformdProcess.with(MCPClient.arguments(tenant, user: "both", db: db)) { mcp in
                try await PlatformdProcess.with(["serve", "--db", db]) { serve in
                    let client = MCPClient(mcp)
                    _ = try await client.initialize()
                    let view = try await client.view("onboarding_status")
                    #expect(view["revision"] == 0)
                    // The serve answers the first step.
                    let moved = try await serve.walk(tenant: tenant, userId: "both") { $0["revision"] == 1 }
                    #expect(moved["step"]?["id"] != view["step"]?["id"])
                    let next = try await client.answerGenerically()
                    #expect(next["revision"] == 2)
                    #expect(next["step"]?["id"] != moved["step"]?["id"])
                    let seen = try await serve.call("flow.get", ["tenant": .string(tenant), "userId": "both"])
                    #expect(seen["result"] == next)
                }
            }
        }
    }

    @Test(.enabled(if: Hosted.otherTenant != nil, "the other-tenant case needs a second registered plugin"))
    func authRequiredChecksTheUserTokenFromTheEnvironment() async throws {
        let tenant = Hosted.tenant
        let other = try #require(Hosted.otherTenant)
        let firstStep = try await Hosted.firstStep(of: tenant)
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("auth.sqlite").path
            let token = try await PlatformdProcess.with(["serve", "--db", db]) { serve in
                let minted = try await serve.call("auth.userToken", ["tenant": .string(tenant), "userId": "u1", "ttlSeconds": 600])
                return try #require(minted["result"]?["token"]?.stringValue)
            }
            func refusal(_ arguments: [String], token: String?) async throws -> (PlatformdProcess.Exit, String) {
                try await PlatformdProcess.with(arguments, environment: token.map { ["PLATFORMD_TOKEN": $0] } ?? [:]) { server in
                    let exit = try await server.waitForExit()
                    #expect(server.stdoutBytes.isEmpty, "stdout carries only MCP messages")
                    return (exit, server.stderrText)
                }
            }
            let required = ["--auth", "required"]
            let cases: [(arguments: [String], token: String?, says: String)] = [
                (MCPClient.arguments(tenant, user: "u1", db: db, required), nil, "PLATFORMD_TOKEN, which is not set"),
                (MCPClient.arguments(tenant, user: "u1", db: db, required), "pdt_wrong", "is not a valid user token (unknown secret)"),
                (MCPClient.arguments(tenant, user: "u2", db: db, required), token, "a user token for another user of \(tenant), not u2"),
                (MCPClient.arguments(other, user: "u1", db: db, required), token, "a user token for another tenant, not \(other)"),
            ]
            for check in cases {
                let (exit, stderr) = try await refusal(check.arguments, token: check.token)
                #expect(exit == .init(status: 77, signaled: false), "\(check.says): \(stderr)")
                #expect(stderr.contains("platformd mcp: refused to start: "), "\(stderr)")
                #expect(stderr.contains(check.says), "\(stderr)")
                #expect(!stderr.contains(token), "the log never holds a token")
            }
            try await PlatformdProcess.with(MCPClient.arguments(tenant, user: "u1", db: db, required), environment: ["PLATFORMD_TOKEN": token]) { server in
                let client = MCPClient(server)
                _ = try await client.initialize()
                #expect(try await client.view("onboarding_status")["step"]?["id"] == .string(firstStep))
                #expect(!server.stderrText.contains(token))
            }
            // --auth none (the default) does not check a token it is given.
            try await PlatformdProcess.with(MCPClient.arguments(tenant, user: "u2", db: db), environment: ["PLATFORMD_TOKEN": "pdt_wrong"]) { server in
                let client = MCPClient(server)
                _ = try await client.initialize()
                #expect(try await client.view("onboarding_status")["step"]?["id"] == .string(firstStep))
                #expect(server.stderrText.contains("PLATFORMD_TOKEN is set but --auth is none"))
            }
        }
    }

    @Test func anUnknownTenantIsAUsageError() async throws {
        try await PlatformdProcess.with(MCPClient.arguments("nope", user: "u1", db: ":memory:")) { server in
            let exit = try await server.waitForExit()
            #expect(exit == .init(status: 64, signaled: false))
            #expect(server.stderrText.contains("tenant nope is not hosted (tenants: \(Hosted.tenants.joined(separator: ", ")))"))
            #expect(server.stdoutBytes.isEmpty)
        }
    }

    /// Every input schema at every step of a walk of each registered tenant (generic answers) is
    /// valid JSON Schema (2020-12) and the answer tool's schema accepts each answer the server
    /// accepts, checked by Python's jsonschema (PlatformTesting's Scripts/mcp_answer_schemas.py).
    /// Each plugin's target runs the same check with its own, richer answers. Skipped, saying so,
    /// where jsonschema is missing.
    @Test(.enabled("needs python3 with the jsonschema package (pip install jsonschema)") { await Python.has("jsonschema") })
    func answerSchemasAreValidAndAcceptEveryWalksAnswers() async throws {
        var walks: [String: [[String: JSONValue]]] = [:]
        try await PlatformdProcess.withServer { server in
            for tenant in Hosted.tenants {
                let (view, accepted) = try await server.recordedWalk(tenant: tenant, userId: "schemas")
                #expect(view["status"] == "completed", "\(tenant): \(view.serialized())")
                walks[tenant] = accepted
            }
        }
        let (status, output) = try await Python.checkMCPAnswerSchemas(walks)
        #expect(status == 0, "\(output)")
        #expect(output.hasSuffix(" passed, 0 failed\n"), "\(output)")
    }
}
