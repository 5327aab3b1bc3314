import Foundation

/// What a branch condition sees: the submit that left the step.
public struct BranchInput: Sendable {
    /// `continue` or `skip` (a skip posts no values).
    public var action: SubmitAction
    /// The step's accepted, normalised values (empty after a skip).
    public var values: [String: JSONValue]
    /// The session, for answers of earlier steps and the tenant's settings.
    public var context: StepContext

    public init(action: SubmitAction, values: [String: JSONValue], context: StepContext) {
        self.action = action
        self.values = values
        self.context = context
    }

    /// The value posted for `field` on this step.
    public subscript(field: String) -> JSONValue? { values[field] }
}

/// A way out of a step, declared once: its condition decides the transition and its words label
/// the diagram's edge. Branches are tried in order after the step accepts a `continue` or `skip`
/// (and its `transition` answered `.next`); when none holds the session goes on along the flow.
///
/// A branch either walks its own steps, which then rejoin the flow at the step after the one that
/// branched (a detour needs no jump back), or jumps to a step declared elsewhere in the flow.
///
/// A branch's steps are steps of the flow like any other: their ids and field ids are unique in
/// the flow, they may branch in turn, and their progress numbers continue from the branching
/// step (``ProgressNumbering/derived(label:countingCompletion:)``).
public struct FlowBranch: Sendable {
    /// Where a branch leads.
    public enum Destination: Sendable {
        /// Its own steps, in order, then the step after the branching one.
        case steps([any FlowStep])
        /// The step with this id, declared elsewhere in the flow.
        case step(String)
    }

    /// The condition in words, for `flow.describe` and the Mermaid diagram.
    public var when: String
    /// Whether the branch is taken, given the submit that left the step.
    public var condition: @Sendable (BranchInput) -> Bool
    /// Its own steps, or a step to jump to.
    public var destination: Destination

    /// A detour through `steps`, in order, rejoining after the branching step.
    public init(when: String, if condition: @escaping @Sendable (BranchInput) -> Bool, steps: [any FlowStep]) {
        precondition(!steps.isEmpty, "a branch needs at least one step")
        self.when = when
        self.condition = condition
        self.destination = .steps(steps)
    }

    /// A jump to a step declared elsewhere in the flow (ahead, or back to repeat a part).
    public init(when: String, if condition: @escaping @Sendable (BranchInput) -> Bool, to stepId: String) {
        self.when = when
        self.condition = condition
        self.destination = .step(stepId)
    }

    /// The step the branch leads to first.
    public var target: String {
        switch destination {
        case .steps(let steps): steps[0].id
        case .step(let id): id
        }
    }
}

/// The flow's steps laid out along its graph: every step (branch steps right after the step that
/// branches to them), where each one goes when no branch is taken, and each step's branches.
struct FlowLayout: Sendable {
    /// The flow's own sequence, as declared.
    let main: [any FlowStep]
    var steps: [any FlowStep] = []
    /// The step each one continues to; absent for a step whose way on is completion.
    var sequel: [String: String] = [:]
    var branches: [String: [FlowBranch]] = [:]

    init(main: [any FlowStep]) {
        self.main = main
        lay(main, rejoining: nil)
    }

    private mutating func lay(_ sequence: [any FlowStep], rejoining: String?) {
        for (position, step) in sequence.enumerated() {
            let following = position + 1 < sequence.count ? sequence[position + 1].id : rejoining
            steps.append(step)
            sequel[step.id] = following
            branches[step.id] = step.branches
            for branch in step.branches {
                if case .steps(let detour) = branch.destination {
                    lay(detour, rejoining: following)
                }
            }
        }
    }
}
