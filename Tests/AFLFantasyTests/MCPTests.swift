import Foundation
import PlatformCore
import PlatformTesting
import Testing

/// AFL Fantasy through `platformd mcp`: the answer tool's schema accepts each answer of a walk, and every
/// tool's input schema is valid JSON Schema (checked by Python's jsonschema).
@Suite("platformd mcp: AFL Fantasy")
struct MCPTests {
    @Test(.enabled("needs python3 with the jsonschema package (pip install jsonschema)") { await Python.has("jsonschema") })
    func answerSchemasAcceptAWalk() async throws {
        let (status, output) = try await Python.checkMCPAnswerSchemas([
            "aflfantasy": [
                [:], [:], ["hasExistingTeam": false],
                ["completedItems": ["visit_website", "sign_in", "pick_squad", "save_team", "find_team_id"]],
                ["firstName": "Riley", "email": "riley@example.com"], ["teamId": "4815162342", "teamName": "Riley's Roos"], [:],
            ]
        ])
        #expect(status == 0, "\(output)")
        #expect(output.hasSuffix(" passed, 0 failed\n"), "\(output)")
    }
}
