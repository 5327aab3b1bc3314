import Foundation

/// Where a returning user picks up.
public enum ResumePolicy: Sendable, Hashable {
    /// The step they were on (StatLocker, AirFit, AFL Fantasy).
    case savedStep
    /// The first step, in flow order, that has no saved answer (TeePals).
    case firstMissingAnswer
}

/// The progress bar's numbers for each step: "Step N of M".
public struct ProgressScheme: Sendable {
    public var total: Int
    /// The number shown on each step; steps missing here show index 0 and no label.
    public var indices: [String: Int]
    public var label: @Sendable (_ index: Int, _ total: Int) -> String

    public init(total: Int, indices: [String: Int], label: @escaping @Sendable (_ index: Int, _ total: Int) -> String) {
        self.total = total
        self.indices = indices
        self.label = label
    }

    public static let stepOfTotal: @Sendable (_ index: Int, _ total: Int) -> String = { "Step \($0) of \($1)" }
}

/// How a flow numbers its steps: derived from its graph (the default), or numbers of its own.
public struct ProgressNumbering: Sendable {
    enum Rule: Sendable {
        case derived(countingCompletion: Bool)
        case fixed(ProgressScheme)
    }

    let rule: Rule
    let label: @Sendable (_ index: Int, _ total: Int) -> String

    /// Counted steps numbered 1, 2, 3... along the main sequence. A branch's steps continue from
    /// the step that branches and the step where the branch rejoins keeps its own number, so
    /// alternatives share numbers. A step that does not count (a splash, a processing screen)
    /// shows the number of the step before it. The total is the highest number, plus one when
    /// `countingCompletion` (the finished screen is the last step). A completed session shows
    /// the total.
    public static func derived(
        label: @escaping @Sendable (_ index: Int, _ total: Int) -> String = ProgressScheme.stepOfTotal,
        countingCompletion: Bool = false
    ) -> ProgressNumbering {
        ProgressNumbering(rule: .derived(countingCompletion: countingCompletion), label: label)
    }

    /// Numbers the plugin chose itself.
    public static func fixed(_ scheme: ProgressScheme) -> ProgressNumbering {
        ProgressNumbering(rule: .fixed(scheme), label: scheme.label)
    }

    func scheme(for layout: FlowLayout) -> ProgressScheme {
        switch rule {
        case .fixed(let scheme):
            return scheme
        case .derived(let countingCompletion):
            var indices: [String: Int] = [:]
            var highest = 0
            func number(_ sequence: [any FlowStep], after start: Int) {
                var current = start
                for step in sequence {
                    if step.countsInProgress { current += 1 }
                    if current > 0 { indices[step.id] = current }
                    highest = max(highest, current)
                    for case .steps(let detour) in step.branches.map(\.destination) {
                        number(detour, after: current)
                    }
                }
            }
            number(layout.main, after: 0)
            return ProgressScheme(total: highest + (countingCompletion ? 1 : 0), indices: indices, label: label)
        }
    }
}

/// Turns a completed flow's answers into the app's records.
public protocol CompletionHandler: Sendable {
    /// Throwing leaves the session active with nothing written.
    func complete(_ context: StepContext) throws -> CompletionResult
}

public struct CompletionResult: Sendable {
    /// Named records (each a JSON object) kept as the user's profile.
    public var records: [String: JSONValue]
    public var message: String
    /// The final screen the flow shows after completing (AirFit's coach profile, AFL's Complete).
    public var screen: CompletionScreen?

    public init(records: [String: JSONValue], message: String, screen: CompletionScreen? = nil) {
        self.records = records
        self.message = message
        self.screen = screen
    }
}

/// One onboarding flow of a plugin.
public struct Flow: Sendable {
    public var id: String
    /// Every step: the main sequence, with each branch's own steps right after the step that
    /// branches to them.
    public let steps: [any FlowStep]
    public var resumePolicy: ResumePolicy
    public var progress: ProgressScheme
    public var completion: any CompletionHandler
    let layout: FlowLayout

    /// - Parameters:
    ///   - steps: the main sequence, first to last; a step's `branches` bring in their own steps.
    ///   - progress: how "Step N of M" is numbered; by default derived from the steps and branches.
    public init(
        id: String = "onboarding", steps: [any FlowStep], resumePolicy: ResumePolicy = .savedStep,
        progress: ProgressNumbering = .derived(), completion: any CompletionHandler
    ) {
        precondition(!steps.isEmpty, "a flow needs at least one step")
        let layout = FlowLayout(main: steps)
        precondition(Set(layout.steps.map(\.id)).count == layout.steps.count, "step ids must be unique in flow \(id)")
        self.id = id
        self.layout = layout
        self.steps = layout.steps
        self.resumePolicy = resumePolicy
        self.progress = progress.scheme(for: layout)
        self.completion = completion
    }

    public func step(_ id: String) -> (any FlowStep)? {
        steps.first { $0.id == id }
    }

    public func index(of id: String) -> Int? {
        steps.firstIndex { $0.id == id }
    }

    /// Where the flow goes on from `id` when no branch is taken: the next step of its sequence,
    /// the step a branch rejoins after its last step, nil where the way on is completion.
    public func step(after id: String) -> (any FlowStep)? {
        layout.sequel[id].flatMap { step($0) }
    }

    /// The step a submit leads to when the step's `transition` answered `.next`: the first
    /// branch whose condition holds, else the way on; nil means the flow completes.
    public func destination(after step: any FlowStep, _ input: BranchInput) -> String? {
        if let branch = (layout.branches[step.id] ?? []).first(where: { $0.condition(input) }) {
            return branch.target
        }
        return layout.sequel[step.id]
    }

    /// Whether leaving `id` is a decision between ways (it is logged as a `branch` event).
    public func branches(at id: String) -> Bool {
        waysOut(from: id).count > 1
    }

    /// What is wrong with the flow's definition, checked when a plugin is registered: field ids
    /// must be unique in the flow (answers are looked up by field id), progress numbers must name
    /// steps, edges must lead to steps.
    public func definitionProblems(_ context: StepContext) -> [String] {
        var problems: [String] = []
        var owners: [String: String] = [:]
        for step in steps {
            for field in step.fields(in: context) {
                if let owner = owners[field.id] {
                    problems.append("field \(field.id) is in both \(owner) and \(step.id)")
                }
                owners[field.id] = step.id
            }
        }
        for id in progress.indices.keys where self.step(id) == nil {
            problems.append("progress numbers unknown step \(id)")
        }
        for (from, edge) in edges where self.step(edge.to) == nil {
            problems.append("\(from) has an edge to unknown step \(edge.to)")
        }
        return problems.map { "flow \(id): \($0)" }
    }

    /// Every edge of the flow graph: each step's branches, its way on (labelled "otherwise" beside
    /// branches) and the ways its `transition` takes itself (`FlowStep.edges`).
    public var edges: [(from: String, edge: FlowEdge)] {
        steps.flatMap { step in waysOut(from: step.id).map { (step.id, $0) } }
    }

    func waysOut(from id: String) -> [FlowEdge] {
        let branches = layout.branches[id] ?? []
        var ways = branches.map { FlowEdge(to: $0.target, when: $0.when) }
        if let following = layout.sequel[id] {
            ways.append(FlowEdge(to: following, when: branches.isEmpty ? nil : "otherwise"))
        }
        for edge in step(id)?.edges ?? [] where !ways.contains(edge) {
            ways.append(edge)
        }
        return ways
    }

    /// Steps whose way on is completion (the diagram's edges into "completed").
    public var finishingSteps: [String] {
        steps.map(\.id).filter { layout.sequel[$0] == nil }
    }
}
