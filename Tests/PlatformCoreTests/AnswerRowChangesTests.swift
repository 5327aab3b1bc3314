import Foundation
import PlatformCore
import PlatformStorage
import Testing

/// The answer rows a commit writes: every step whose answers or computed value changed, and
/// every step that is gone, each once and in step order, whatever else the states hold.
@Suite struct AnswerRowChangesTests {
    /// What the rows must be, read the slow way: every step of either state compared.
    static func expected(_ state: SessionState, _ old: SessionState?) -> (removed: [String], upserted: [String]) {
        let steps = Set(state.answers.keys).union(state.computed.keys)
        let oldSteps = Set(old?.answers.keys ?? [:].keys).union(old?.computed.keys ?? [:].keys)
        let upserted = steps.sorted().filter { step in
            old?.answers[step] != state.answers[step] || old?.computed[step] != state.computed[step]
        }
        return (oldSteps.subtracting(steps).sorted(), upserted)
    }

    static func state(_ answers: [String: [String: JSONValue]], _ computed: [String: JSONValue]) -> SessionState {
        SessionState(
            id: "s", tenant: "t", userId: "u", flow: "f", path: ["a"], answers: answers, computed: computed,
            arrivedAt: Date(timeIntervalSince1970: 0), createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func everyChangeOfSixStepsIsWrittenOnceInOrder() {
        var generator = SystemRandomNumberGenerator()
        let steps = ["a", "b", "c", "d", "e", "f"]
        let values: [[String: JSONValue]?] = [nil, [:], ["x": 1], ["x": 2], ["x": 1, "y": "z"]]
        let computedValues: [JSONValue?] = [nil, .null, 1, "two"]
        func random() -> SessionState {
            var answers: [String: [String: JSONValue]] = [:]
            var computed: [String: JSONValue] = [:]
            for step in steps {
                answers[step] = values.randomElement(using: &generator)!
                computed[step] = computedValues.randomElement(using: &generator)!
            }
            return Self.state(answers, computed)
        }
        for _ in 0..<2_000 {
            let old = Bool.random(using: &generator) ? random() : nil
            // Half the time the new state is the old one with a step or two changed, as a commit's is.
            var state = old ?? random()
            if old == nil || Bool.random(using: &generator) {
                state = random()
            } else {
                let step = steps.randomElement(using: &generator)!
                state.answers[step] = values.randomElement(using: &generator)!
            }
            let changes = AnswerRowChanges(state, replacing: old)
            let expected = Self.expected(state, old)
            #expect(changes.removed == expected.removed)
            #expect(changes.upserted.map(\.step) == expected.upserted)
            for row in changes.upserted {
                #expect(row.values == JSONValue.object(state.answers[row.step] ?? [:]).serialized())
                #expect(row.computed == state.computed[row.step]?.serialized())
            }
        }
    }
}
