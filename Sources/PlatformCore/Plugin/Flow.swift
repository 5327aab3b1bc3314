import Foundation

/// Where a returning user picks up.
public enum ResumePolicy: Sendable, Hashable {
    /// The step they were on (StatLocker, AirFit, AFL Fantasy).
    case savedStep
    /// The first step, in flow order, that has no saved answer (TeePals).
    case firstMissingAnswer
}

/// How a flow numbers its steps for the progress bar.
public struct ProgressScheme: Sendable {
    public var total: Int
    /// The number shown on each counted step; steps missing here show index 0 and no label.
    public var indices: [String: Int]
    public var label: @Sendable (_ index: Int, _ total: Int) -> String

    public init(total: Int, indices: [String: Int], label: @escaping @Sendable (_ index: Int, _ total: Int) -> String) {
        self.total = total
        self.indices = indices
        self.label = label
    }

    /// Counted steps numbered 1...N in flow order.
    public static func sequential(
        _ steps: [any FlowStep],
        label: @escaping @Sendable (_ index: Int, _ total: Int) -> String = { "Step \($0) of \($1)" }
    ) -> ProgressScheme {
        let counted = steps.filter(\.countsInProgress).map(\.id)
        let indices = Dictionary(uniqueKeysWithValues: counted.enumerated().map { ($1, $0 + 1) })
        return ProgressScheme(total: counted.count, indices: indices, label: label)
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
    public var steps: [any FlowStep]
    public var resumePolicy: ResumePolicy
    public var progress: ProgressScheme
    public var completion: any CompletionHandler

    public init(
        id: String = "onboarding", steps: [any FlowStep], resumePolicy: ResumePolicy = .savedStep,
        progress: ProgressScheme? = nil, completion: any CompletionHandler
    ) {
        precondition(!steps.isEmpty, "a flow needs at least one step")
        precondition(Set(steps.map(\.id)).count == steps.count, "step ids must be unique in flow \(id)")
        self.id = id
        self.steps = steps
        self.resumePolicy = resumePolicy
        self.progress = progress ?? .sequential(steps)
        self.completion = completion
    }

    public func step(_ id: String) -> (any FlowStep)? {
        steps.first { $0.id == id }
    }

    public func index(of id: String) -> Int? {
        steps.firstIndex { $0.id == id }
    }

    /// The step after `id` in declaration order, nil after the last.
    public func step(after id: String) -> (any FlowStep)? {
        guard let index = index(of: id), index + 1 < steps.count else { return nil }
        return steps[index + 1]
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

    /// Every edge of the flow graph, with implicit "next in order" edges spelled out.
    public var edges: [(from: String, edge: FlowEdge)] {
        steps.flatMap { step -> [(from: String, edge: FlowEdge)] in
            if !step.edges.isEmpty { return step.edges.map { (step.id, $0) } }
            if let next = self.step(after: step.id) { return [(step.id, FlowEdge(to: next.id))] }
            return []
        }
    }
}
