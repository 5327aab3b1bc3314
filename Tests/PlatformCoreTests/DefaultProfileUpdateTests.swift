import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// `profile.update` works without plugin code: an editable field names its record, and the
/// platform validates the value and writes it there (null clears an optional field).
@Suite struct DefaultProfileUpdateTests {
    struct NameStep: FlowStep {
        let id = "name"
        let kind = StepKind.question
        func fields(in context: StepContext) -> [FieldSpec] {
            [FieldSpec(id: "nickname", type: .text, label: "Nickname", minLength: 2, maxLength: 20)]
        }
        func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Your name") }
    }

    struct Completion: CompletionHandler {
        func complete(_ context: StepContext) throws -> CompletionResult {
            CompletionResult(
                records: ["account": ["nickname": context.value(of: "nickname") ?? .null, "bio": "Hello"]],
                message: "Done")
        }
    }

    /// A plugin with editable fields and no `updatedRecords` of its own.
    struct Plain: OnboardingPlugin {
        let id = "plain"
        let name = "Plain"
        let version = "1.0.0"
        var flows: [Flow] { [Flow(steps: [NameStep()], completion: Completion())] }
        var editableFields: [FieldSpec] {
            [
                FieldSpec(id: "nickname", type: .text, label: "Nickname", minLength: 2, maxLength: 20, record: "account"),
                FieldSpec(id: "bio", type: .text, label: "Bio", required: false, maxLength: 100, record: "account"),
                FieldSpec(
                    id: "links", type: .list, label: "Links", required: false, maxItems: 3,
                    itemFields: [
                        FieldSpec(id: "title", type: .text, label: "Title", maxLength: 10),
                        FieldSpec(id: "rank", type: .integer, label: "Rank", min: 1, max: 3),
                    ], record: "account"),
            ]
        }
    }

    @Test func valuesAreValidatedAndMergedIntoTheirRecord() async throws {
        let d = try await FlowDriver(plugin: Plain())
        let view = try await d.start("u1")
        _ = try await d.submit(view, ["nickname": "Sam"])
        let updated = try await d.call("profile.update", ["userId": "u1", "values": ["nickname": "Samwise", "bio": .null]])
        #expect(updated["records"]?["account"] == ["nickname": "Samwise", "bio": .null])
        let refused = await d.error("profile.update", ["userId": "u1", "values": ["nickname": "S", "color": "red"]])
        #expect(refused?.code == -32004)
        #expect(Set(refused?.fieldErrors.map(\.code) ?? []) == [.tooShort, .notEditable])
        // Nothing of a refused update is written.
        #expect(try await d.profile("u1")["records"]?["account"]?["nickname"] == "Samwise")
    }

    @Test func everyBadListItemIsReportedAsInAFlow() async throws {
        let d = try await FlowDriver(plugin: Plain())
        _ = try await d.submit(try await d.start("u1"), ["nickname": "Sam"])
        let refused = await d.error(
            "profile.update",
            [
                "userId": "u1",
                "values": [
                    "links": [["title": "far too long a title", "rank": 1], ["title": "ok", "rank": 9]]
                ],
            ])
        #expect(refused?.fieldErrors.map(\.code) == [.tooLong, .outOfRange])
        #expect(refused?.fieldErrors.allSatisfy { $0.field == "links" } == true)
    }
}
