import Foundation

/// The words and extra data a step shows, rendered for one session.
public struct StepCopy: Sendable {
    public var title: String
    public var subtitle: String?
    public var helper: String?
    public var content: [String: JSONValue]
    /// The step's buttons, `back` excluded: the engine adds it wherever there is a step to go back to.
    public var actions: [StepAction]

    public init(
        title: String, subtitle: String? = nil, helper: String? = nil,
        content: [String: JSONValue] = [:], actions: [StepAction] = [.continue()]
    ) {
        self.title = title
        self.subtitle = subtitle
        self.helper = helper
        self.content = content
        self.actions = actions
    }
}

/// Where a step sends the session once it accepts a submit: the step's branching decision.
public enum StepTransition: Sendable, Hashable {
    /// The first of the step's `branches` whose condition holds, else the flow's way on (the
    /// next step of the sequence, or completion after the last).
    case next
    case goTo(String)
    case complete
    case reject(Rejection)
    /// Server work failed because of an earlier answer: back to that step, with reasons to show there.
    case returnTo(String, errors: [FieldError])
}

/// An edge of the flow graph, for `flow.describe` and the diagrams.
public struct FlowEdge: Sendable, Hashable {
    public var to: String
    /// The branch condition in words, when there is more than one way out.
    public var when: String?

    public init(to: String, when: String? = nil) {
        self.to = to
        self.when = when
    }
}

/// Server work a step needs before its submit can be applied (analysis, validation).
/// The host runs it outside any transaction, bounded by `timeout`; if it throws or times out,
/// `fallback` gives the result instead, so the flow never blocks on it.
public struct StepWork: Sendable {
    public var name: String
    public var timeout: Duration
    public var perform: @Sendable () async throws -> JSONValue
    public var fallback: @Sendable (_ reason: String) -> JSONValue

    public init(
        name: String, timeout: Duration = .seconds(10),
        perform: @escaping @Sendable () async throws -> JSONValue,
        fallback: @escaping @Sendable (_ reason: String) -> JSONValue
    ) {
        self.name = name
        self.timeout = timeout
        self.perform = perform
        self.fallback = fallback
    }
}

/// One screen of a flow. Steps are values the engine consults: they render themselves,
/// check what was posted, and decide where the session goes next.
public protocol FlowStep: Sendable {
    var id: String { get }
    var kind: StepKind { get }
    /// False for a step the progress bar does not count (a splash).
    var countsInProgress: Bool { get }
    /// Fields, for this session (options can depend on earlier answers).
    func fields(in context: StepContext) -> [FieldSpec]
    /// Title, helper copy, content and buttons, personalised for this session.
    func copy(in context: StepContext) -> StepCopy
    /// Checks beyond each field's own rules (across fields, against earlier answers).
    /// `values` holds the visible fields' normalised values.
    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError]
    /// Server work to run before the submit is applied, if any.
    func work(for values: [String: JSONValue], in context: StepContext) -> StepWork?
    /// What is kept of an accepted submit. `context.computed(for: id)` holds the work's result.
    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue]
    /// What happens after an accepted `continue` or `skip` beyond the declared `branches`:
    /// rejecting the session, sending the user back with errors, or a jump decided in code.
    /// `.next` (the default) lets the branches, then the flow's sequence, decide.
    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition
    /// Saved answers of this step, re-checked when an earlier answer changed; what no longer fits is dropped.
    func reconciled(_ saved: [String: JSONValue], in context: StepContext, validator: FieldValidator) -> [String: JSONValue]
    /// The ways out of this step other than the next step: tried in order after `transition`
    /// answers `.next`; each one's words label the diagram's edge.
    var branches: [FlowBranch] { get }
    /// Ways out that `transition` takes itself (a `.goTo` or `.returnTo`), for the diagram;
    /// the branches and the way on are drawn without being listed here.
    var edges: [FlowEdge] { get }
}

extension FlowStep {
    public var countsInProgress: Bool { true }
    public func fields(in context: StepContext) -> [FieldSpec] { [] }
    public func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] { [] }
    public func work(for values: [String: JSONValue], in context: StepContext) -> StepWork? { nil }
    public func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] { values }
    public func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition { .next }
    public var branches: [FlowBranch] { [] }
    public var edges: [FlowEdge] { [] }

    /// Keeps each saved value that still passes its field's checks in the new context;
    /// a multi-choice keeps the items that are still offered (and its custom entries).
    public func reconciled(_ saved: [String: JSONValue], in context: StepContext, validator: FieldValidator) -> [String: JSONValue] {
        let specs = fields(in: context)
        var kept = saved
        for spec in specs {
            guard let value = saved[spec.id] else { continue }
            let visible = spec.isVisible { saved[$0] ?? context.value(of: $0) }
            guard visible else {
                kept[spec.id] = nil
                continue
            }
            if case .valid = validator.check(value, against: spec) { continue }
            if spec.type == .multiChoice, let items = value.arrayValue {
                kept[spec.id] = .array(items.filter { item in
                    guard let choice = item.stringValue else { return spec.allowCustom }
                    return spec.option(choice).map { !$0.locked } ?? false
                })
            } else if spec.type == .search {
                continue
            } else {
                kept[spec.id] = nil
            }
        }
        return kept
    }
}
