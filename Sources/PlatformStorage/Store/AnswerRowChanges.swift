import PlatformCore

/// The answer rows a new state changes against the stored one, with their JSON already encoded.
/// Only the steps whose answers changed are written, so unchanged rows are not rewritten; every
/// store writes the same rows, and a store can build them before its write transaction starts.
package struct AnswerRowChanges: Sendable {
    package struct Row: Sendable {
        package var step: String
        package var values: String
        package var computed: String?
    }

    /// Steps whose row is deleted, in step order.
    package var removed: [String]
    /// Rows inserted or replaced, in step order.
    package var upserted: [Row]

    package init(_ state: SessionState, replacing old: SessionState?) {
        let steps = Set(state.answers.keys).union(state.computed.keys)
        let oldSteps = Set(old?.answers.keys ?? [:].keys).union(old?.computed.keys ?? [:].keys)
        removed = oldSteps.subtracting(steps).sorted()
        upserted = steps.sorted().compactMap { step in
            guard old?.answers[step] != state.answers[step] || old?.computed[step] != state.computed[step] else { return nil }
            return Row(
                step: step, values: JSONValue.object(state.answers[step] ?? [:]).serialized(),
                computed: state.computed[step]?.serialized())
        }
    }
}
