import Foundation
import PlatformCore
import PlatformServer
import PlatformTesting
import Testing

/// One operator of the contract's conditions: the field it reads, a value of it that makes the
/// condition hold and one that does not.
struct ConditionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var subject: FieldSpec
    var condition: FieldCondition
    var holding: JSONValue?
    var failing: JSONValue?
    var testDescription: String { name }

    static let choice = FieldSpec(
        id: "subject", type: .choice, label: "Subject", required: false,
        options: ["a", "b", "c"].map { FieldOption(value: $0, label: $0.uppercased()) })
    static let number = FieldSpec(id: "subject", type: .integer, label: "Subject", required: false)
    static let picks = FieldSpec(
        id: "subject", type: .multiChoice, label: "Subject", required: false,
        options: ["a", "other"].map { FieldOption(value: $0, label: $0) })
    static let text = FieldSpec(id: "subject", type: .text, label: "Subject", required: false)

    static let all: [ConditionCase] = [
        ConditionCase(name: "equals", subject: choice, condition: .field("subject", equals: "a"), holding: "a", failing: "b"),
        ConditionCase(name: "notEquals", subject: choice, condition: .field("subject", notEquals: "a"), holding: "b", failing: "a"),
        ConditionCase(name: "lessThan", subject: number, condition: .field("subject", lessThan: 18), holding: 17, failing: 18),
        ConditionCase(name: "atMost", subject: number, condition: .field("subject", atMost: 18), holding: 18, failing: 19),
        ConditionCase(name: "greaterThan", subject: number, condition: .field("subject", greaterThan: 18), holding: 19, failing: 18),
        ConditionCase(name: "atLeast", subject: number, condition: .field("subject", atLeast: 18), holding: 18, failing: 17),
        ConditionCase(name: "in", subject: choice, condition: .field("subject", in: ["a", "b"]), holding: "b", failing: "c"),
        ConditionCase(name: "contains", subject: picks, condition: .field("subject", contains: "other"), holding: ["a", "other"], failing: ["a"]),
        ConditionCase(name: "answered", subject: text, condition: .answered("subject"), holding: "hi", failing: nil),
        ConditionCase(name: "answered: false", subject: text, condition: .unanswered("subject"), holding: nil, failing: "hi"),
        ConditionCase(
            name: "all", subject: number, condition: .all([.field("subject", atLeast: 18), .field("subject", atMost: 65)]), holding: 30, failing: 70),
        ConditionCase(
            name: "any", subject: number, condition: .any([.field("subject", lessThan: 18), .field("subject", greaterThan: 65)]), holding: 70,
            failing: 30),
        ConditionCase(name: "not", subject: choice, condition: .not(.field("subject", equals: "a")), holding: "b", failing: "a"),
    ]
}

/// A one-question flow whose `target` is shown by the condition and whose `needed` is required by
/// it, at the top level and in each entry of a list.
struct ConditionPlugin: OnboardingPlugin {
    let id = "conditions"
    let name = "Conditions"
    let version = "1"
    let test: ConditionCase

    var flows: [Flow] { [Flow(steps: [Ask(test: test), Done()], completion: Nothing())] }

    struct Ask: FlowStep {
        let id = "ask"
        let kind = StepKind.question
        let test: ConditionCase
        func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Ask") }
        func fields(in context: StepContext) -> [FieldSpec] {
            [
                test.subject,
                FieldSpec(id: "target", type: .text, label: "Target", visibleWhen: test.condition),
                FieldSpec(id: "needed", type: .text, label: "Needed", requiredWhen: test.condition),
                FieldSpec(
                    id: "entries", type: .list, label: "Entries", required: false,
                    itemFields: [
                        test.subject,
                        FieldSpec(id: "target", type: .text, label: "Target", visibleWhen: test.condition),
                        FieldSpec(id: "needed", type: .text, label: "Needed", requiredWhen: test.condition),
                    ]),
            ]
        }
    }

    struct Done: FlowStep {
        let id = "done"
        let kind = StepKind.content
        func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Done") }
    }

    struct Nothing: CompletionHandler {
        func complete(_ context: StepContext) throws -> CompletionResult { CompletionResult(records: [:], message: "ok") }
    }
}

@Suite struct FieldConditionTests {
    @Test(arguments: ConditionCase.all)
    func eachOperatorHoldsAsTheContractSays(_ test: ConditionCase) {
        #expect(test.condition.holds(given: { $0 == "subject" ? test.holding : nil }))
        #expect(!test.condition.holds(given: { $0 == "subject" ? test.failing : nil }))
    }

    @Test(arguments: ConditionCase.all)
    func eachOperatorRoundTripsThroughItsWireForm(_ test: ConditionCase) throws {
        #expect(try FieldCondition(json: test.condition.json) == test.condition)
        let decoded = try JSONDecoder().decode(FieldCondition.self, from: JSONEncoder().encode(test.condition))
        #expect(decoded == test.condition)
    }

    @Test func unansweredAndMismatchedValuesAreNotOrdered() {
        let under = FieldCondition.field("age", lessThan: 18)
        #expect(!under.holds(given: { _ in nil }))
        #expect(!under.holds(given: { _ in "17" }), "a text is not compared with a number")
        #expect(!under.holds(given: { _ in true }))
        #expect(FieldCondition.field("day", lessThan: "2027-01-01").holds(given: { _ in "2026-12-31" }), "ISO dates order as texts")
        #expect(FieldCondition.field("age", notEquals: 3).holds(given: { _ in nil }), "unanswered is not equal to a value")
        #expect(FieldCondition.field("n", equals: 1).holds(given: { _ in .double(1.0) }))
        #expect(!FieldCondition.answered("name").holds(given: { _ in "  " }), "a blank text is no answer")
        #expect(!FieldCondition.answered("picks").holds(given: { _ in [] }), "no picks is no answer")
    }

    @Test func malformedConditionsAreRefusedWithAReason() {
        for json: JSONValue in [
            ["field": "a"], ["field": "a", "equals": 1, "notEquals": 2], ["field": "a", "in": 1], ["field": "a", "answered": "yes"],
            ["field": "a", "between": [1, 2]], ["all": "x"], ["not": ["field": "a"]], ["equals": 1], "a",
        ] {
            #expect(throws: FieldCondition.Malformed.self, "\(json.serialized())") { try FieldCondition(json: json) }
        }
    }

    @Test func aViewDecidesWhatReadsOtherStepsAndKeepsWhatReadsItsOwn() {
        let local: Set<String> = ["school"]
        let age: (String) -> JSONValue? = { $0 == "age" ? 15 : nil }
        #expect(FieldCondition.field("age", lessThan: 18).residual(open: local, value: age) == .decided(true))
        let mixed = FieldCondition.all([.field("age", lessThan: 18), .answered("school")])
        #expect(mixed.residual(open: local, value: age) == .open(.answered("school")))
        #expect(FieldCondition.any([.field("age", atLeast: 18), .answered("school")]).residual(open: local, value: age) == .open(.answered("school")))
        #expect(FieldCondition.not(.field("age", lessThan: 18)).residual(open: local, value: age) == .decided(false))
        #expect(FieldCondition.all([.field("age", atLeast: 18), .answered("school")]).residual(open: local, value: age) == .decided(false))
        #expect(FieldCondition.any([.field("age", lessThan: 18), .answered("school")]).residual(open: local, value: age) == .decided(true))
        #expect(FieldCondition.all([]).residual(open: local, value: age) == .decided(true))
        #expect(FieldCondition.any([]).residual(open: local, value: age) == .decided(false))
    }

    // MARK: - through the engine and the method table (schema-checked replies)

    @Test(arguments: ConditionCase.all)
    func atTheTopLevelAHiddenFieldIsDroppedAndARequiredOneRefused(_ test: ConditionCase) async throws {
        let driver = try await FlowDriver(plugin: ConditionPlugin(test: test))
        let view = try await driver.start("u1")
        #expect(view.field("target")?["visibleWhen"] == test.condition.json)
        #expect(view.field("needed")?["requiredWhen"] == test.condition.json)
        #expect(view.field("needed")?["required"] == false)
        let holding = test.holding.map { ["subject": $0] } ?? [:]
        let refused = await driver.refuse(view, holding)
        #expect(refused?.fieldErrors.map(\.field) == ["target", "needed"])
        #expect(refused?.fieldErrors.map(\.code) == [.required, .required])

        let failing = test.failing.map { ["subject": $0] } ?? [:]
        var moved = try await driver.submit(view, failing.merging(["target": "kept?", "needed": "yes"]) { first, _ in first })
        #expect(moved.stepId == "done")
        moved = try await driver.back(moved)
        #expect(moved.value("target") == nil, "a hidden field's value is dropped")
        #expect(moved.value("needed") == "yes", "an optional answer is kept")
    }

    @Test(arguments: ConditionCase.all)
    func inAListEachEntryIsDecidedOnItsOwn(_ test: ConditionCase) async throws {
        let driver = try await FlowDriver(plugin: ConditionPlugin(test: test))
        let view = try await driver.start("u1")
        let items = view.field("entries")?["itemFields"]?.arrayValue ?? []
        #expect(items.first { $0["id"] == "target" }?["visibleWhen"] == test.condition.json)
        var holding: [String: JSONValue] = ["needed": "n"]
        holding["subject"] = test.holding
        var failing: [String: JSONValue] = ["target": "dropped"]
        failing["subject"] = test.failing
        let top: [String: JSONValue] = ["subject": test.failing ?? .null, "needed": "n"]
        let refused = await driver.refuse(view, top.merging(["entries": [.object(failing), .object(holding)]]) { first, _ in first })
        #expect(refused?.fieldErrors.map(\.message) == ["Entry 2: Target is required."])

        holding["target"] = "shown"
        holding["needed"] = nil
        let refusedAgain = await driver.refuse(view, top.merging(["entries": [.object(failing), .object(holding)]]) { first, _ in first })
        #expect(refusedAgain?.fieldErrors.map(\.message) == ["Entry 2: Needed is required."])

        holding["needed"] = "n"
        var moved = try await driver.submit(view, top.merging(["entries": [.object(failing), .object(holding)]]) { first, _ in first })
        moved = try await driver.back(moved)
        let saved = moved.value("entries")?.arrayValue ?? []
        #expect(saved.first?["target"] == nil, "the first entry's hidden target is dropped")
        #expect(saved.last?["target"] == "shown")
    }
}
