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

    /// Only the changed steps are sorted: a commit changes a step or two of a dozen, and the
    /// union of every step's keys, sorted on each commit, was most of this type's cost.
    package init(_ state: SessionState, replacing old: SessionState?) {
        var changed: [String] = []
        for (step, values) in state.answers where old?.answers[step] != values || old?.computed[step] != state.computed[step] {
            changed.append(step)
        }
        for (step, computed) in state.computed where state.answers[step] == nil && (old?.answers[step] != nil || old?.computed[step] != computed) {
            changed.append(step)
        }
        var gone: [String] = []
        if let old {
            for step in old.answers.keys where state.answers[step] == nil && state.computed[step] == nil { gone.append(step) }
            for step in old.computed.keys where old.answers[step] == nil && state.answers[step] == nil && state.computed[step] == nil {
                gone.append(step)
            }
        }
        removed = gone.sorted()
        upserted = changed.sorted().map { step in
            Row(step: step, values: JSONValue.object(state.answers[step] ?? [:]).serialized(), computed: state.computed[step]?.serialized())
        }
    }
}
