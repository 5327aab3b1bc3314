import Foundation
import PlatformCore
import PlatformServer
import PlatformTesting
import Testing

/// Conditions that read another step, and the ways round them a client might try: a submit that
/// sends another step's field, a `profile.update` whose conditions read answers that are not
/// editable, a condition on a sensitive field, a view from a later version.
struct GuardianPlugin: OnboardingPlugin {
    let id = "guardian"
    let name = "Guardian"
    let version = "1"
    static let minor = FieldCondition.field("age", lessThan: 18)

    var flows: [Flow] { [Flow(steps: [Age(), School()], completion: Keep())] }
    var editableFields: [FieldSpec] {
        [
            FieldSpec(id: "nickname", type: .text, label: "Nickname", required: false, record: "person"),
            FieldSpec(id: "school", type: .text, label: "School", visibleWhen: Self.minor, record: "person"),
        ]
    }

    struct Age: FlowStep {
        let id = "age"
        let kind = StepKind.question
        func fields(in context: StepContext) -> [FieldSpec] { [FieldSpec(id: "age", type: .integer, label: "Age", min: 0, max: 120)] }
        func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Age") }
    }

    struct School: FlowStep {
        let id = "school"
        let kind = StepKind.question
        func fields(in context: StepContext) -> [FieldSpec] {
            [
                FieldSpec(id: "school", type: .text, label: "School", visibleWhen: GuardianPlugin.minor),
                FieldSpec(id: "guardian", type: .text, label: "Guardian", requiredWhen: GuardianPlugin.minor),
            ]
        }
        func copy(in context: StepContext) -> StepCopy { StepCopy(title: "School") }
    }

    struct Keep: CompletionHandler {
        func complete(_ context: StepContext) throws -> CompletionResult {
            var person: [String: JSONValue] = [:]
            for id in ["age", "school", "guardian"] { person[id] = context.value(of: id) }
            return CompletionResult(records: ["person": .object(person)], message: "ok")
        }
    }
}

@Suite struct FieldConditionDoorsTests {
    let driver: FlowDriver

    init() async throws { driver = try await FlowDriver(plugin: GuardianPlugin()) }

    @Test func aViewDecidesWhatReadsAnEarlierStep() async throws {
        var adult = try await driver.start("adult")
        adult = try await driver.submit(adult, ["age": 30])
        #expect(adult.field("school") == nil, "hidden by an earlier answer: not served")
        #expect(adult.field("guardian")?["required"] == false)
        #expect(adult.field("guardian")?["requiredWhen"] == nil, "decided, so not served")

        var minor = try await driver.start("minor")
        minor = try await driver.submit(minor, ["age": 12])
        #expect(minor.field("school")?["visibleWhen"] == nil, "shown for sure")
        #expect(minor.field("guardian")?["required"] == true)
    }

    @Test func aSubmitCannotDecideAConditionWithAnotherStepsField() async throws {
        var minor = try await driver.start("minor")
        minor = try await driver.submit(minor, ["age": 12])
        let refused = await driver.refuse(minor, ["age": 30, "school": "Elm"])
        #expect(refused?.fieldErrors.map(\.field) == ["guardian"], "the saved age decides, not the one sent again")

        var adult = try await driver.start("adult")
        adult = try await driver.submit(adult, ["age": 30])
        adult = try await driver.submit(adult, ["age": 12, "school": "Elm"])
        #expect(adult.status == .completed)
        #expect(try await driver.profile("adult")["records"]?["person"]?["school"] == nil, "a school revealed by a forged age is not kept")
    }

    @Test func aProfileUpdateReadsAnswersThatAreNotEditableFromTheRecords() async throws {
        var minor = try await driver.start("minor")
        minor = try await driver.submit(minor, ["age": 12])
        minor = try await driver.submit(minor, ["school": "Elm", "guardian": "Pat"])
        #expect(minor.status == .completed)
        _ = try await driver.call("profile.update", ["userId": "minor", "values": ["nickname": "Mo"]])
        let person = try await driver.profile("minor")["records"]?["person"]
        #expect(person?["school"] == "Elm", "an update of another field keeps the school a minor's age shows")
        #expect(person?["nickname"] == "Mo")
    }

    @Test func aConditionOnASensitiveFieldIsADefinitionProblem() {
        let birthday = FieldSpec(id: "birthday", type: .date, label: "Birthday", sensitive: true)
        let note = FieldSpec(id: "note", type: .text, label: "Note", visibleWhen: .answered("birthday"))
        struct Both: FlowStep {
            let id = "both"
            let kind = StepKind.question
            let specs: [FieldSpec]
            func fields(in context: StepContext) -> [FieldSpec] { specs }
            func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Both") }
        }
        let flow = Flow(steps: [Both(specs: [birthday, note])], completion: GuardianPlugin.Keep())
        let problems = flow.definitionProblems(StepContext(tenant: "t", displayName: "x", now: Date()))
        #expect(problems == ["flow onboarding: both: field note's visibleWhen reads birthday, which is sensitive and never saved"])
    }

    @Test func aConditionOfALaterVersionLeavesTheFieldShownAndTheViewReadable() throws {
        let json: JSONValue = [
            "id": "a", "type": "text", "label": "A", "required": false, "value": nil,
            "visibleWhen": ["field": "b", "between": [1, 2]],
        ]
        let view = try json.decode(FieldView.self)
        #expect(view.visibleWhen == nil)
        #expect(view.id == "a")
    }
}
