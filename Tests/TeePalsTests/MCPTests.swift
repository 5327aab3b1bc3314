import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

/// TeePals through `platformd mcp` (the real binary, PlatformTesting's `MCPClient`): the city
/// search tool, and the answer schemas checked by jsonschema.
@Suite("platformd mcp: TeePals")
struct MCPTests {
    @Test func teePalsCitySearchThenAnswerWithTheValue() async throws {
        try await PlatformdProcess.with(MCPClient.arguments("teepals", user: "golfer", db: ":memory:", ["--first-name", "Sam"])) { server in
            let client = MCPClient(server)
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
            #expect(MCPClient.text(search).contains("Austin, TX, United States [\(value)]"), "\(MCPClient.text(search))")

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

    @Test(.enabled("needs python3 with the jsonschema package (pip install jsonschema)") { await Python.has("jsonschema") })
    func answerSchemasAcceptAWalk() async throws {
        let (status, output) = try await Python.checkMCPAnswerSchemas([
            "teepals": [
                ["nickname": "Sam"], ["birthdate": "1991-08-17"], ["location": "4671654"], ["gender": "prefer_not_to_say"],
            ]
        ])
        #expect(status == 0, "\(output)")
        #expect(output.hasSuffix(" passed, 0 failed\n"), "\(output)")
    }
}
