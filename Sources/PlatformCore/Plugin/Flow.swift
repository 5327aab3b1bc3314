import Foundation

/// Where a returning user picks up when `flow.start` finds their session.
public enum ResumePolicy: Sendable, Hashable {
    /// The step they were on (StatLocker, AirFit, AFL Fantasy).
    case savedStep
    /// The first step, in flow order, that has no saved answer (TeePals).
    case firstMissingAnswer
}

/// The progress bar's numbers for each step: "Step N of M".
///
/// A flow derives one from its steps unless given one with ``ProgressNumbering/fixed(_:)``.
public struct ProgressScheme: Sendable {
    /// M: the index a completed session shows.
    public var total: Int
    /// The number shown on each step, by step id; steps missing here show index 0 and no label.
    /// Every key must name a step of the flow (checked at registration).
    public var indices: [String: Int]
    /// The label for an index (never called for index 0).
    public var label: @Sendable (_ index: Int, _ total: Int) -> String

    public init(total: Int, indices: [String: Int], label: @escaping @Sendable (_ index: Int, _ total: Int) -> String) {
        self.total = total
        self.indices = indices
        self.label = label
    }

    /// "Step N of M".
    public static let stepOfTotal: @Sendable (_ index: Int, _ total: Int) -> String = { "Step \($0) of \($1)" }
}

/// How a flow numbers its steps: derived from its graph (the default), or numbers of its own.
///
/// Progress is derived unless the flow is given ``fixed(_:)`` numbers, which are then kept as
/// given (a step added later has no number until the scheme names it).
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

    /// Numbers the plugin chose itself, used as they are.
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
    ///
    /// Called when a step's transition completes the flow (its way on after the last step, or
    /// ``StepTransition/complete``).
    ///
    /// - Parameter context: the session at completion: ``StepContext/answers`` and
    ///   ``StepContext/computedResults`` hold only the steps on the final path;
    ///   ``StepContext/answersOffPath`` holds answers of steps the user went back from.
    /// - Returns: the records that become the user's profile, and the completion copy.
    /// - Throws: ``ValidationFailure`` to refuse the last submit with its errors; any other error
    ///   is a defect of the plugin, answered as an internal error.
    func complete(_ context: StepContext) throws -> CompletionResult
}

/// What completing a flow writes and shows.
public struct CompletionResult: Sendable {
    /// Named records (each a JSON object) kept as the user's profile.
    public var records: [String: JSONValue]
    /// The completion message ("Welcome to StatLocker, Alex!").
    public var message: String
    /// The final screen the flow shows after completing (AirFit's coach profile, AFL's Complete).
    public var screen: CompletionScreen?

    public init(records: [String: JSONValue], message: String, screen: CompletionScreen? = nil) {
        self.records = records
        self.message = message
        self.screen = screen
    }
}

/// One onboarding flow of a plugin: its steps, how it numbers them, where a returning user
/// resumes, and what completing it writes.
///
/// The steps form a graph: each step goes on to the next of its sequence unless its
/// ``FlowStep/transition(after:values:in:)`` or one of its ``FlowStep/branches`` says otherwise,
/// and the flow completes where the way on ends: after the last step of the main sequence.
public struct Flow: Sendable {
    /// The flow's id, `onboarding` by default; unique in its plugin.
    public var id: String
    /// The version its plugin declares (`"2"`, `"2026-11-25"`): sessions record the version they
    /// run on (`flowVersion`). Bump it when the flow changes; its ``fingerprint(in:)`` changes
    /// with its shape either way, and a changed fingerprint under the same version counts as a
    /// new version.
    public var version: String
    /// How sessions on older versions that are no longer served move onto this one (renamed
    /// steps and fields, where a removed step resumes). Whatever is not declared is moved by the
    /// contract's rules: answers of steps and fields that are gone are dropped, and a session on
    /// a step that is gone resumes at the last step of its path that still exists.
    public var migrations: [FlowMigration]
    /// Every step: the main sequence, with each branch's own steps right after the step that
    /// branches to them.
    public let steps: [any FlowStep]
    /// Where a returning user picks up.
    public var resumePolicy: ResumePolicy
    /// The numbers the progress bar shows, derived or given when the flow was made.
    public var progress: ProgressScheme
    /// What completing the flow writes.
    public var completion: any CompletionHandler
    let layout: FlowLayout

    /// Traps when `steps` is empty or two steps (branch steps included) share an id.
    ///
    /// - Parameters:
    ///   - id: the flow's id, which `flow.start` names.
    ///   - steps: the main sequence, first to last; a step's `branches` bring in their own steps.
    ///   - resumePolicy: where a returning user picks up.
    ///   - progress: how "Step N of M" is numbered; by default derived from the steps and branches.
    ///   - completion: what completing the flow writes.
    ///   - version: the version sessions started on this definition record.
    ///   - migrations: how sessions on older, no longer served versions move onto this one.
    public init(
        id: String = "onboarding", version: String = "1", steps: [any FlowStep], resumePolicy: ResumePolicy = .savedStep,
        progress: ProgressNumbering = .derived(), completion: any CompletionHandler, migrations: [FlowMigration] = []
    ) {
        precondition(!steps.isEmpty, "a flow needs at least one step")
        let layout = FlowLayout(main: steps)
        precondition(Set(layout.steps.map(\.id)).count == layout.steps.count, "step ids must be unique in flow \(id)")
        self.id = id
        self.version = version
        self.migrations = migrations
        self.layout = layout
        self.steps = layout.steps
        self.resumePolicy = resumePolicy
        self.progress = progress.scheme(for: layout)
        self.completion = completion
    }

    /// The step with this id, branch steps included.
    public func step(_ id: String) -> (any FlowStep)? {
        steps.first { $0.id == id }
    }

    /// The position of the step in ``steps``.
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
    ///
    /// The host stops at start-up when any flow has a problem; a plugin's tests can call it.
    ///
    /// - Parameter context: the context the steps list their fields in (the host's has the
    ///   tenant and no answers).
    /// - Returns: one line per problem, each starting `flow <id>:`; empty when the flow is sound.
    public func definitionProblems(_ context: StepContext) -> [String] {
        var problems: [String] = []
        var owners: [String: String] = [:]
        // Each step's fields, asked for once (a step may build them per call).
        let fieldsByStep = steps.map { ($0, $0.fields(in: context)) }
        for (step, fields) in fieldsByStep {
            for field in fields {
                if let owner = owners[field.id] {
                    problems.append("field \(field.id) is in both \(owner) and \(step.id)")
                }
                owners[field.id] = step.id
                problems += Self.boundProblems(field, in: step.id)
                let siblings = Set(field.itemFields.map(\.id))
                for item in field.itemFields {
                    problems += Self.boundProblems(item, in: step.id)
                    for (name, condition) in item.conditions {
                        problems += condition.problems.map { "\(step.id): list item field \(field.id).\(item.id)'s \(name) \($0)" }
                        for unknown in condition.fields where !siblings.contains(unknown) {
                            problems.append(
                                "\(step.id): list item field \(field.id).\(item.id) is \(name == "visibleWhen" ? "visible" : "required") when \(unknown), which is not an item field of \(field.id)"
                            )
                        }
                    }
                }
            }
        }
        // A condition may read any field of the flow: one on the same step or answered earlier;
        // never a sensitive one, which is not saved, so it would read as unanswered afterwards.
        let sensitive = Set(fieldsByStep.flatMap(\.1).filter(\.sensitive).map(\.id))
        for (step, fields) in fieldsByStep {
            for field in fields {
                for (name, condition) in field.conditions {
                    problems += condition.problems.map { "\(step.id): field \(field.id)'s \(name) \($0)" }
                    for unknown in condition.fields where owners[unknown] == nil {
                        problems.append("\(step.id): field \(field.id)'s \(name) reads \(unknown), which is no field of the flow")
                    }
                    for secret in condition.fields where sensitive.contains(secret) {
                        problems.append("\(step.id): field \(field.id)'s \(name) reads \(secret), which is sensitive and never saved")
                    }
                }
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

    /// Date bounds on date fields and time bounds on time fields only, the earliest not after the latest.
    static func boundProblems(_ field: FieldSpec, in step: String) -> [String] {
        if field.dayOfMonth != nil, field.type != .date {
            return ["\(step): field \(field.id) (\(field.type.rawValue)) has a day-of-month rule, which only date fields take"]
        }
        let bounds = [field.earliest, field.latest].compactMap { $0 }
        guard !bounds.isEmpty else { return [] }
        switch field.type {
        case .date where bounds.allSatisfy({ $0.time == nil }):
            // Only bounds of one kind compare the same on every day (fixed ones, or relative ones).
            let day = CalendarDate(year: 2000, month: 1, day: 1)!
            if field.earliest?.isRelative == field.latest?.isRelative, let earliest = field.earliest?.date(on: day), let latest = field.latest?.date(on: day),
                latest < earliest
            {
                return ["\(step): field \(field.id)'s earliest date is after its latest"]
            }
            return []
        case .time where bounds.allSatisfy({ $0.time != nil }):
            if let earliest = field.earliest?.time, let latest = field.latest?.time, latest < earliest {
                return ["\(step): field \(field.id)'s earliest time is after its latest"]
            }
            return []
        default:
            return ["\(step): field \(field.id) (\(field.type.rawValue)) has bounds of another kind: dates bound date fields, times of day bound time fields"]
        }
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
