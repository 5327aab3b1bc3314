import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// StatLocker through `platformd mcp` (the real binary, PlatformTesting's `MCPClient`): the tools'
/// schemas for its steps, a whole walk with a refusal, a back and an edit, the official Python
/// SDK as the client, and the answer schemas checked by jsonschema against a rich walk.
@Suite("platformd mcp: StatLocker")
struct MCPTests {
    /// The answer tool follows StatLocker's steps: the sport step (its locked option in the text),
    /// then profile_details' bounded integer. (The tool list itself is checked on any tenant in
    /// platformdTests.)
    @Test func theAnswerToolFollowsTheStep() async throws {
        try await PlatformdProcess.with(MCPClient.arguments("statlocker", user: "u1", db: ":memory:", ["--first-name", "Alex"])) { server in
            let client = MCPClient(server)
            _ = try await client.initialize()
            _ = try await client.result("tools/list")

            // onboarding_status starts the session: the answer tool now describes the sport step.
            let status = try await client.call("onboarding_status")
            #expect(client.notifications == [["jsonrpc": "2.0", "method": "notifications/tools/list_changed"]])
            let text = MCPClient.text(status)
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

    /// Someone the revamp experiment sent to the classic flow: the tools, their schema and the
    /// step resource follow their session on classic, though the server's flow is onboarding.
    @Test func anEnrolledPersonsToolsFollowTheirVariantsFlow() async throws {
        let experiment = ExperimentSimulationTests.revamp()
        let user = try #require((0..<100).map { "mcp-\($0)" }.first { experiment.assignment(of: $0)?.id == "classic" })
        let file = #"""
            { "tenants": [ { "id": "statlocker", "plugin": "StatLocker", "experiments": [ { "id": "revamp", "flow": "onboarding",
              "variants": [ { "id": "classic", "flow": "classic", "weight": 50 }, { "id": "revamp", "flow": "onboarding", "weight": 50 } ],
              "control": "classic", "seed": "revamp" } ] } ] }
            """#
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("tenants.json")
            try Data(file.utf8).write(to: path)
            try await PlatformdProcess.with(MCPClient.arguments("statlocker", user: user, db: ":memory:", ["--tenants", path.path])) { server in
                let client = MCPClient(server)
                _ = try await client.initialize()
                let view = try await client.view("onboarding_status")
                #expect(view["flow"] == "classic")
                #expect(view["experiment"] == ["id": "revamp", "variant": "classic"])
                #expect(view["step"]?["title"] == "Let's build your Locker")
                let tools = try await client.result("tools/list")["tools"]?.arrayValue ?? []
                let values = tools.first { $0["name"] == "onboarding_answer" }?["inputSchema"]?["properties"]?["values"]
                #expect(values?["required"] == ["sport"], "the answer tool describes the classic session's step")
                let next = try await client.answer(["sport": "lacrosse"])
                #expect(next["step"]?["id"] == "team_gender", "classic has no motivational screen after the sport")
                let resources = try await client.result("resources/list")["resources"]?.arrayValue ?? []
                let stepURI = try #require(resources.compactMap { $0["uri"]?.stringValue }.first { $0.contains("step") })
                let read = try await client.result("resources/read", ["uri": .string(stepURI)])
                let body = read["contents"]?[0]?["text"]?.stringValue ?? ""
                #expect(body.contains("team_gender"), "\(body)")
            }
        }
    }

    /// The whole StatLocker flow through the tools: one wrong answer (refused, nothing saved),
    /// one back and one edit on the way; then a `serve` on the same file sees the profile.
    @Test func statLockerWalkToCompletionThenServeSeesTheProfile() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("mcp.sqlite").path
            try await PlatformdProcess.with(MCPClient.arguments("statlocker", user: "walker", db: db, ["--first-name", "Alex", "--last-name", "Morgan"])) {
                server in
                let client = MCPClient(server)
                _ = try await client.initialize()
                var view = try await client.view("onboarding_status")
                #expect(view["step"]?["id"] == "sport")
                let revision = view["revision"]

                let wrong = try await client.call("onboarding_answer", ["values": ["sport": "basketball"]])
                #expect(wrong["isError"] == true)
                let refusal = MCPClient.text(wrong)
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
                #expect(MCPClient.text(back).contains("Saved answer: 2026"), "\(MCPClient.text(back))")
                view = try await client.answer(["gradYear": 2026, "level": "JV"])

                let after: [(String, JSONValue)] = [
                    ("position", ["position": "Midfield"]),
                    (
                        "team_info",
                        [
                            "hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                            "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
                        ]
                    ),
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
                let review = MCPClient.text(try await client.call("onboarding_status"))
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
                #expect(MCPClient.text(done) == "Onboarding complete.\nWelcome to StatLocker, Alex!")
                let again = try await client.call("onboarding_answer", ["values": [:]])
                #expect(again["isError"] == true)
                #expect(MCPClient.text(again).hasPrefix("There is nothing left to answer."))

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

    /// The answer tool's schema accepts each answer of a walk with padded text, a club team and a
    /// custom goal, and every tool's input schema is valid JSON Schema (checked by jsonschema).
    @Test(.enabled("needs python3 with the jsonschema package (pip install jsonschema)") { await Python.has("jsonschema") })
    func answerSchemasAcceptARichWalk() async throws {
        let (status, output) = try await Python.checkMCPAnswerSchemas([
            "statlocker": [
                ["sport": "lacrosse"], [:], ["teamGender": "girls"], ["gradYear": 2026, "level": "JV"], ["position": "Midfield"],
                [
                    "hsTeamName": " Duxbury High School ", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                    "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
                ],
                ["seasonGoals": ["g-mid-jv-dc-50", "g-mid-jv-goals-28", ["title": "Win 60% of draws", "targetValue": 60, "unit": "%"]]],
                [:], ["aiTone": "Analyst"], [:], [:],
            ]
        ])
        #expect(status == 0, "\(output)")
        #expect(output.hasSuffix(" passed, 0 failed\n"), "\(output)")
    }

    /// The official MCP Python SDK (`pip install mcp`) as the client: initialise, list the tools,
    /// walk StatLocker with one wrong answer, one back and one edit, read the resources and the
    /// prompt (Scripts/mcp_client_walk.py). Skipped, saying so, where the package is missing.
    @Test(.enabled("needs python3 with the mcp package (pip install mcp)") { await Python.has("mcp.client.stdio") })
    func theOfficialPythonSDKWalksStatLocker() async throws {
        let binary = try #require(PlatformdProcess.binaryURL)
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("python.sqlite").path
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/mcp_client_walk.py")
            let (status, output) = try await Python.run([script.path, binary.path, db])
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
