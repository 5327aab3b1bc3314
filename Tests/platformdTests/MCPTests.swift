import Foundation
import PlatformTesting
import PlatformCore
import Testing

/// `platformd mcp` driven over stdio as an MCP host drives it: the real binary, one JSON-RPC
/// message per line, notifications collected as they come.
@Suite("platformd mcp")
struct MCPTests {
    /// An MCP client over a `platformd mcp` process: requests by id, notifications kept.
    final class Client {
        let server: PlatformdProcess
        private var nextId: Int64 = 1
        /// Notifications the server sent, in order (`notifications/tools/list_changed`).
        private(set) var notifications: [JSONValue] = []
        /// Every line the server wrote on stdout.
        private(set) var lines: [String] = []

        init(_ server: PlatformdProcess) {
            self.server = server
        }

        /// Sends a request and reads lines until its reply, keeping notifications on the way.
        func request(_ method: String, _ params: JSONValue? = nil) async throws -> JSONValue {
            let id = nextId
            nextId += 1
            var message: [String: JSONValue] = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
            if let params { message["params"] = params }
            try server.send(JSONValue.object(message).serialized())
            while true {
                let line = try await server.readLine()
                lines.append(line)
                let reply = try JSONValue.parse(line)
                #expect(reply["jsonrpc"] == "2.0", "not JSON-RPC 2.0: \(line)")
                if reply["id"] == nil {
                    notifications.append(reply)
                    continue
                }
                #expect(reply["id"] == .int(id), "reply out of order: \(line)")
                return reply
            }
        }

        func result(_ method: String, _ params: JSONValue? = nil) async throws -> JSONValue {
            let reply = try await request(method, params)
            return try #require(reply["result"], "\(method) failed: \(reply.serialized())")
        }

        func initialize(version: String = "2025-06-18") async throws -> JSONValue {
            let result = try await self.result("initialize", [
                "protocolVersion": .string(version), "capabilities": [:], "clientInfo": ["name": "MCPTests", "version": "1"],
            ])
            try server.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            return result
        }

        /// `tools/call`; returns the result (a tool's refusal is a result with isError).
        func call(_ tool: String, _ arguments: JSONValue = [:]) async throws -> JSONValue {
            try await result("tools/call", ["name": .string(tool), "arguments": arguments])
        }

        /// A tool call that must succeed; returns its structured content (the SessionView).
        func view(_ tool: String, _ arguments: JSONValue = [:]) async throws -> JSONValue {
            let result = try await call(tool, arguments)
            #expect(result["isError"] == false, "\(tool) \(arguments.serialized()) failed: \(Self.text(result))")
            return try #require(result["structuredContent"], "\(tool): no structuredContent")
        }

        func answer(_ values: JSONValue) async throws -> JSONValue {
            try await view("onboarding_answer", ["values": values])
        }

        static func text(_ result: JSONValue) -> String {
            (result["content"]?.arrayValue ?? []).compactMap { $0["type"] == "text" ? $0["text"]?.stringValue : nil }
                .joined(separator: "\n")
        }
    }

    static func mcp(_ tenant: String, user: String, db: String, _ extra: [String] = []) -> [String] {
        ["mcp", "--tenant", tenant, "--user-id", user, "--db", db] + extra
    }

    @Test func initializeNegotiatesTheVersionAndAnswersEveryMethod() async throws {
        try await PlatformdProcess.with(Self.mcp("statlocker", user: "u1", db: ":memory:")) { server in
            let client = Client(server)
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
            #expect(server.stderrText.contains("MCP server for tenant statlocker"))
            try server.closeStdin()
            #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
        }
        // A newer version this server speaks is answered as asked; an unknown one gets 2025-06-18.
        for (asked, answered) in [("2025-11-25", "2025-11-25"), ("2024-11-05", "2025-06-18"), ("2099-01-01", "2025-06-18")] {
            try await PlatformdProcess.with(Self.mcp("statlocker", user: "u1", db: ":memory:")) { server in
                let result = try await Client(server).initialize(version: asked)
                #expect(result["protocolVersion"] == .string(answered))
            }
        }
    }

    /// What a host that writes its requests and closes stdin at once gets: every reply, then exit 0.
    @Test func requestsSentBeforeEOFAreAllAnswered() async throws {
        try await PlatformdProcess.with(Self.mcp("teepals", user: "u1", db: ":memory:")) { server in
            try server.send(#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
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
            #expect(replies[3]["result"]?["structuredContent"]?["step"]?["id"] == "nickname")
            #expect(replies[4]["error"]?["code"] == -32700)
        }
    }

    @Test func toolsAreListedWithSchemasAndTheAnswerToolFollowsTheStep() async throws {
        try await PlatformdProcess.with(Self.mcp("statlocker", user: "u1", db: ":memory:", ["--first-name", "Alex"])) { server in
            let client = Client(server)
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

            // onboarding_status starts the session: the answer tool now describes the sport step.
            let status = try await client.call("onboarding_status")
            #expect(client.notifications == [["jsonrpc": "2.0", "method": "notifications/tools/list_changed"]])
            let text = Client.text(status)
            #expect(text.contains("Step 1 of 11: Hey Alex 👋 What sport do you play? [step sport]"), "\(text)")
            #expect(text.contains("- Basketball [basketball] (Coming soon) 🔒 locked"), "\(text)")
            #expect(text.contains("Buttons: Continue [continue]"), "\(text)")
            let relisted = try await client.result("tools/list")["tools"]?.arrayValue ?? []
            let values = try #require(relisted.first { $0["name"] == "onboarding_answer" }?["inputSchema"]?["properties"]?["values"])
            #expect(values["required"] == ["sport"])
            #expect(values["properties"]?["sport"]?["type"] == "string")
            #expect(values["properties"]?["sport"]?["enum"] == ["lacrosse", "basketball", "field_hockey", "football", "baseball"])

            // profile_details: an integer with bounds and a choice.
            _ = try await client.answer(["sport": "lacrosse"])
            _ = try await client.answer([:])
            _ = try await client.answer(["teamGender": "girls"])
            #expect(client.notifications.count == 2, "one list_changed per listing the client has not caught up with")
            let details = try await client.result("tools/list")["tools"]?.arrayValue?.first { $0["name"] == "onboarding_answer" }
            let gradYear = details?["inputSchema"]?["properties"]?["values"]?["properties"]?["gradYear"]
            #expect(gradYear?["type"] == "integer")
            #expect(gradYear?["minimum"] == 2024)
            #expect(gradYear?["maximum"] == 2030)
        }
    }

    /// The whole StatLocker flow through the tools: one wrong answer (refused, nothing saved),
    /// one back and one edit on the way; then a `serve` on the same file sees the profile.
    @Test func statLockerWalkToCompletionThenServeSeesTheProfile() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("mcp.sqlite").path
            try await PlatformdProcess.with(Self.mcp("statlocker", user: "walker", db: db, ["--first-name", "Alex", "--last-name", "Morgan"])) { server in
                let client = Client(server)
                _ = try await client.initialize()
                var view = try await client.view("onboarding_status")
                #expect(view["step"]?["id"] == "sport")
                let revision = view["revision"]

                let wrong = try await client.call("onboarding_answer", ["values": ["sport": "basketball"]])
                #expect(wrong["isError"] == true)
                let refusal = Client.text(wrong)
                #expect(refusal.hasPrefix("Not saved. Please fix:\n- Sport [sport]: Basketball is coming soon!"), "\(refusal)")
                #expect(refusal.contains("The step, unchanged:\nStep 1 of 11"), "\(refusal)")
                let structured = try #require(wrong["structuredContent"])
                #expect(structured["code"] == -32004)
                #expect(structured["errors"]?.arrayValue?.map { $0["code"] } == ["locked"])
                #expect(structured["session"]?["revision"] == revision)
                view = try await client.view("onboarding_status")
                #expect(view["revision"] == revision, "the refused answer saved nothing")
                #expect(view["step"]?["fields"]?[0]?["value"] == .null)

                let before: [(String, JSONValue)] = [
                    ("sport", ["sport": "lacrosse"]),
                    ("welcome_journey", [:]),
                    ("team_gender", ["teamGender": "girls"]),
                    ("profile_details", ["gradYear": 2026, "level": "JV"]),
                ]
                for (step, values) in before {
                    #expect(view["step"]?["id"] == .string(step))
                    view = try await client.answer(values)
                }
                #expect(view["step"]?["id"] == "position")
                let back = try await client.call("onboarding_back")
                #expect(back["structuredContent"]?["step"]?["id"] == "profile_details")
                #expect(Client.text(back).contains("Saved answer: 2026"), "\(Client.text(back))")
                view = try await client.answer(["gradYear": 2026, "level": "JV"])

                let after: [(String, JSONValue)] = [
                    ("position", ["position": "Midfield"]),
                    ("team_info", [
                        "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                        "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
                    ]),
                    ("season_goals", ["seasonGoals": ["g-mid-jv-dc-50", "g-mid-jv-goals-28", ["title": "Win 60% of draws", "targetValue": 60, "unit": "%"]]]),
                    ("goals_locked_in", [:]),
                    ("tone_quiz", ["aiTone": "Analyst"]),
                    ("almost_there", [:]),
                ]
                for (step, values) in after {
                    #expect(view["step"]?["id"] == .string(step))
                    view = try await client.answer(values)
                }
                #expect(view["step"]?["id"] == "review")
                let review = Client.text(try await client.call("onboarding_status"))
                #expect(review.contains("- Position: Midfield | Class of 2026 (edit: step position)"), "\(review)")
                #expect(review.contains("Buttons: Enter Your Locker [continue], Edit [edit], Back [back]"), "\(review)")

                view = try await client.view("onboarding_edit", ["stepId": "season_goals"])
                #expect(view["step"]?["id"] == "season_goals")
                let goals = try #require(view["step"]?["fields"]?[0]?["value"])
                #expect(goals.arrayValue?.count == 3)
                for values in [["seasonGoals": goals], [:], ["aiTone": "Captain"], [:]] as [JSONValue] {
                    view = try await client.answer(values)
                }
                #expect(view["step"]?["id"] == "review")

                let done = try await client.call("onboarding_answer", ["values": [:]])
                #expect(done["isError"] == false)
                #expect(done["structuredContent"]?["status"] == "completed")
                #expect(Client.text(done) == "Onboarding complete.\nWelcome to StatLocker, Alex!")
                let again = try await client.call("onboarding_answer", ["values": [:]])
                #expect(again["isError"] == true)
                #expect(Client.text(again).hasPrefix("There is nothing left to answer."))

                // The edit on the way is in the profile (Captain, not Analyst).
                try server.closeStdin()
                #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
            }
            try await PlatformdProcess.with(["serve", "--db", db]) { serve in
                let profile = try await serve.call("profile.get", ["tenant": "statlocker", "userId": "walker"])
                let records = try #require(profile["result"]?["records"], "\(profile.serialized())")
                #expect(records["profile"]?["firstName"] == "Alex")
                #expect(records["profile"]?["position"] == "Midfield")
                #expect(records["profile"]?["aiTone"] == "Captain")
                #expect(records["profile"]?["seasonGoals"]?.arrayValue?.count == 3)
                #expect(records["team"]?["clubTeamName"] == "Laxachusetts")
            }
        }
    }

    @Test func teePalsCitySearchThenAnswerWithTheValue() async throws {
        try await PlatformdProcess.with(Self.mcp("teepals", user: "golfer", db: ":memory:", ["--first-name", "Sam"])) { server in
            let client = Client(server)
            _ = try await client.initialize()
            _ = try await client.view("onboarding_status")
            _ = try await client.answer(["nickname": "Sam"])
            var view = try await client.answer(["birthdate": "1991-08-17"])
            #expect(view["step"]?["id"] == "location")

            let search = try await client.call("onboarding_search", ["field": "location", "query": "austin"])
            #expect(search["isError"] == false)
            let results = try #require(search["structuredContent"]?["results"]?.arrayValue)
            let austin = try #require(results.first { $0["label"]?.stringValue?.hasPrefix("Austin, TX") == true }, "\(results)")
            let value = try #require(austin["value"]?.stringValue)
            #expect(Client.text(search).contains("Austin, TX, United States [\(value)]"), "\(Client.text(search))")

            let nothing = try await client.call("onboarding_search", ["field": "location", "query": "Qwxzzy"])
            #expect(nothing["structuredContent"] == ["results": [], "message": "No results found"])
            let badField = try await client.call("onboarding_search", ["field": "nickname", "query": "x"])
            #expect(badField["isError"] == true)

            // A name typed in is not a city: the app's message, nothing saved.
            let typed = try await client.call("onboarding_answer", ["values": ["location": "Austin"]])
            #expect(typed["isError"] == true)
            #expect(typed["structuredContent"]?["errors"]?[0]?["code"] == "unknown_city")

            view = try await client.answer(["location": .string(value)])
            #expect(view["step"]?["id"] == "gender")
            view = try await client.answer(["gender": "prefer_not_to_say"])
            #expect(view["status"] == "completed")
            #expect(view["completion"]?["message"] == "Welcome to TeePals, Sam!")
        }
    }

    @Test func resourcesAndThePrompt() async throws {
        try await PlatformdProcess.with(Self.mcp("aflfantasy", user: "coach 1", db: ":memory:")) { server in
            let client = Client(server)
            _ = try await client.initialize()
            let resources = try await client.result("resources/list")["resources"]?.arrayValue ?? []
            #expect(resources.map { $0["uri"] } == ["platformd://aflfantasy/flow.mmd", "platformd://aflfantasy/coach%201/current-step"])
            #expect(resources.map { $0["mimeType"] } == ["text/vnd.mermaid", "application/json"])

            let diagram = try await client.result("resources/read", ["uri": "platformd://aflfantasy/flow.mmd"])
            #expect(diagram["contents"]?[0]?["text"]?.stringValue?.hasPrefix("flowchart TD") == true)
            // Reading the current step never starts a session.
            var current = try await client.result("resources/read", ["uri": "platformd://aflfantasy/coach%201/current-step"])
            #expect(try JSONValue.parse(current["contents"]?[0]?["text"]?.stringValue ?? "")["status"] == "not_started")
            _ = try await client.view("onboarding_status")
            current = try await client.result("resources/read", ["uri": "platformd://aflfantasy/coach%201/current-step"])
            let session = try JSONValue.parse(current["contents"]?[0]?["text"]?.stringValue ?? "")
            #expect(session["step"]?["id"] == "splash")
            #expect(session["userId"] == "coach 1")
            let missing = try await client.request("resources/read", ["uri": "platformd://aflfantasy/nope"])
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
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("shared.sqlite").path
            try await PlatformdProcess.with(Self.mcp("statlocker", user: "both", db: db)) { mcp in
                try await PlatformdProcess.with(["serve", "--db", db]) { serve in
                    let client = Client(mcp)
                    _ = try await client.initialize()
                    let view = try await client.view("onboarding_status")
                    let moved = try await serve.call("flow.submit", [
                        "tenant": "statlocker", "sessionId": view["sessionId"]!, "stepId": "sport", "revision": view["revision"]!,
                        "values": ["sport": "lacrosse"],
                    ])
                    #expect(moved["result"]?["step"]?["id"] == "welcome_journey")
                    let next = try await client.answer([:])
                    #expect(next["step"]?["id"] == "team_gender")
                    #expect(next["revision"] == 2)
                }
            }
        }
    }

    @Test func authRequiredChecksTheUserTokenFromTheEnvironment() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("auth.sqlite").path
            let token = try await PlatformdProcess.with(["serve", "--db", db]) { serve in
                let minted = try await serve.call("auth.userToken", ["tenant": "statlocker", "userId": "u1", "ttlSeconds": 600])
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
                (Self.mcp("statlocker", user: "u1", db: db, required), nil, "PLATFORMD_TOKEN, which is not set"),
                (Self.mcp("statlocker", user: "u1", db: db, required), "pdt_wrong", "is not a valid user token (unknown secret)"),
                (Self.mcp("statlocker", user: "u2", db: db, required), token, "a user token for another user of statlocker, not u2"),
                (Self.mcp("teepals", user: "u1", db: db, required), token, "a user token for another tenant, not teepals"),
            ]
            for check in cases {
                let (exit, stderr) = try await refusal(check.arguments, token: check.token)
                #expect(exit == .init(status: 77, signaled: false), "\(check.says): \(stderr)")
                #expect(stderr.contains("platformd mcp: refused to start: "), "\(stderr)")
                #expect(stderr.contains(check.says), "\(stderr)")
                #expect(!stderr.contains(token), "the log never holds a token")
            }
            try await PlatformdProcess.with(Self.mcp("statlocker", user: "u1", db: db, required), environment: ["PLATFORMD_TOKEN": token]) { server in
                let client = Client(server)
                _ = try await client.initialize()
                #expect(try await client.view("onboarding_status")["step"]?["id"] == "sport")
                #expect(!server.stderrText.contains(token))
            }
            // --auth none (the default) does not check a token it is given.
            try await PlatformdProcess.with(Self.mcp("statlocker", user: "u2", db: db), environment: ["PLATFORMD_TOKEN": "pdt_wrong"]) { server in
                let client = Client(server)
                _ = try await client.initialize()
                #expect(try await client.view("onboarding_status")["step"]?["id"] == "sport")
                #expect(server.stderrText.contains("PLATFORMD_TOKEN is set but --auth is none"))
            }
        }
    }

    @Test func anUnknownTenantIsAUsageError() async throws {
        try await PlatformdProcess.with(Self.mcp("nope", user: "u1", db: ":memory:")) { server in
            let exit = try await server.waitForExit()
            #expect(exit == .init(status: 64, signaled: false))
            #expect(server.stderrText.contains("tenant nope is not hosted (tenants: statlocker, teepals, airfit, aflfantasy)"))
            #expect(server.stdoutBytes.isEmpty)
        }
    }

    /// Every input schema at every step of the four walks is valid JSON Schema (2020-12) and the
    /// answer tool's schema accepts each answer the server accepts, checked by Python's
    /// jsonschema (Scripts/mcp_answer_schemas.py). Skipped, saying so, where it is missing.
    @Test func answerSchemasAreValidAndAcceptEveryWalksAnswers() async throws {
        guard DiscoverTests.pythonWithJsonschema() != nil else {
            print("skipped: python3 with the jsonschema package is not available (pip install jsonschema)")
            return
        }
        let binary = try #require(PlatformdProcess.binaryURL)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/mcp_answer_schemas.py")
        let (status, output) = try DiscoverTests.run("/usr/bin/env", ["python3", script.path, binary.path])
        #expect(status == 0, "\(output)")
        #expect(output.hasSuffix(" passed, 0 failed\n"), "\(output)")
    }

    /// The official MCP Python SDK (`pip install mcp`) as the client: initialise, list the tools,
    /// walk StatLocker with one wrong answer, one back and one edit, read the resources and the
    /// prompt (Scripts/mcp_client_walk.py). Skipped, saying so, where the package is missing.
    @Test func theOfficialPythonSDKWalksStatLocker() async throws {
        guard let (status, _) = try? DiscoverTests.run("/usr/bin/env", ["python3", "-c", "import mcp.client.stdio"]), status == 0 else {
            print("skipped: python3 with the mcp package is not available (pip install mcp)")
            return
        }
        let binary = try #require(PlatformdProcess.binaryURL)
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("python.sqlite").path
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/mcp_client_walk.py")
            let (status, output) = try DiscoverTests.run("/usr/bin/env", ["python3", script.path, binary.path, db])
            #expect(status == 0, "\(output)")
            let closing = output.split(separator: "\n").last { $0.contains(" passed, ") }.map(String.init) ?? ""
            #expect(closing.hasSuffix(" passed, 0 failed"), "\(output)")
            #expect((Int(closing.split(separator: " ").first ?? "") ?? 0) >= 100, "\(closing)")
            try await PlatformdProcess.with(["serve", "--db", db]) { serve in
                let profile = try await serve.call("profile.get", ["tenant": "statlocker", "userId": "py-walker"])
                #expect(profile["result"]?["records"]?["profile"]?["aiTone"] == "Captain", "\(profile.serialized())")
            }
        }
    }
}

extension JSONValue {
    /// The array's item at `index`, if this is an array that long.
    fileprivate subscript(index: Int) -> JSONValue? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
