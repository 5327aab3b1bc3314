import Foundation

/// The words and extra data a step shows, rendered for one session
/// (``FlowStep/copy(in:)``).
public struct StepCopy: Sendable {
    /// The step's heading.
    public var title: String
    /// A line under the title.
    public var subtitle: String?
    /// Smaller copy under the fields.
    public var helper: String?
    /// Kind-specific data sent as the step's `content` (a review's summary, a screen's symbol).
    public var content: [String: JSONValue]
    /// The step's buttons, `back` excluded: the engine adds it wherever there is a step to go back to.
    /// A submit must name one of them: `continue`, `skip` or `later` is refused on a step that
    /// does not offer it.
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

/// Where a step sends the session once it accepts a submit: the step's branching decision
/// (``FlowStep/transition(after:values:in:)``).
public enum StepTransition: Sendable, Hashable {
    /// The first of the step's `branches` whose condition holds, else the flow's way on (the
    /// next step of the sequence, or completion after the last).
    case next
    /// To the step with this id. Going to a step already on the path goes back to it (the steps
    /// after it leave the path). List the jump in ``FlowStep/edges`` for the diagram.
    case goTo(String)
    /// Completes the flow now: the flow's ``CompletionHandler`` writes the records.
    case complete
    /// Ends the session as rejected (an age rule, say): its answers are erased and it takes no
    /// more commands.
    case reject(Rejection)
    /// Server work failed because of an earlier answer: back to that step, with reasons to show there.
    case returnTo(String, errors: [FieldError])
}

/// An edge of the flow graph, for `flow.describe` and the diagrams.
public struct FlowEdge: Sendable, Hashable {
    /// The id of the step it leads to.
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
///
/// Its result is the step's computed result: ``StepContext/computed(for:)`` in
/// ``FlowStep/stored(_:in:)`` and in every later step.
public struct StepWork: Sendable {
    /// What the work is, for log lines.
    public var name: String
    /// How long `perform` may take before `fallback` is used; 10 seconds by default.
    public var timeout: Duration
    /// The work; its result is the step's computed result.
    public var perform: @Sendable () async throws -> JSONValue
    /// The result to use instead, given why `perform` did not give one.
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
///
/// Only ``id``, ``kind`` and ``copy(in:)`` have no default. A `continue` is handled in this
/// order:
///
/// 1. Each field of ``fields(in:)`` is checked by its own rules (``FieldSpec``). A field left out
///    of the submit keeps its saved answer on this step; one sent as `null` is cleared (and a
///    `required` one answers `required`). A field hidden by its `visibleWhen` is not checked, so
///    `required` does not apply, and its value is dropped.
/// 2. ``validate(_:in:)`` adds checks across fields.
/// 3. ``work(for:in:)``, if it returns work, runs before the submit is applied.
/// 4. ``stored(_:in:)`` says what is saved; the values of `sensitive` fields never are.
/// 5. ``transition(after:values:in:)`` decides where the session goes; when it answers `.next`,
///    the ``branches`` are tried in order, then the flow's way on.
///
/// A `skip` clears the step's saved answers and goes straight to step 5 with no values; `later`
/// defers the session without consulting the step's rules.
public protocol FlowStep: Sendable {
    /// The step's id, unique in its flow (``Flow/init(id:version:steps:resumePolicy:progress:completion:migrations:)``
    /// traps on two steps with one id).
    var id: String { get }
    /// How clients render it.
    var kind: StepKind { get }
    /// False for a step the progress bar does not count (a splash).
    var countsInProgress: Bool { get }
    /// Fields, for this session (options can depend on earlier answers).
    ///
    /// Field ids are unique in the whole flow, not only the step (answers are looked up by field
    /// id): ``Flow/definitionProblems(_:)`` checks it when the plugin is registered, with a
    /// context that has no answers.
    ///
    /// - Parameter context: the session; also a context with no session behind it (the
    ///   registration check, `flow.describe`, diagrams).
    /// - Returns: the fields in the order they are shown; none by default.
    func fields(in context: StepContext) -> [FieldSpec]
    /// Title, helper copy, content and buttons, personalised for this session.
    ///
    /// - Parameter context: the session; ``StepContext/displayName`` is the name to greet.
    /// - Returns: the copy; its `actions` are the submits the step accepts.
    func copy(in context: StepContext) -> StepCopy
    /// Checks beyond each field's own rules (across fields, against earlier answers).
    /// `values` holds the visible fields' normalised values.
    ///
    /// It is called even when some fields failed their own checks, so one reply carries every
    /// error; its errors for those fields are dropped, so a field shows only its own reasons.
    /// Errors with no `field` are kept. A `list` whose entries failed is the exception: `values`
    /// holds every entry in its place, each with the item fields that passed (so an index is the
    /// person's: `FieldError.entry(_:of:_:_:)`), and errors for the list are kept beside its
    /// entries' own.
    ///
    /// - Parameters:
    ///   - values: each visible field's normalised value, by field id; a field that failed its
    ///     checks, or an optional one left empty, is absent (a list: every entry, each with its
    ///     item fields that passed).
    ///   - context: the session before this submit.
    /// - Returns: the errors to answer with, all of them at once; none by default.
    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError]
    /// Server work to run before the submit is applied, if any.
    ///
    /// - Parameters:
    ///   - values: the validated values, as ``validate(_:in:)`` saw them.
    ///   - context: the session before this submit.
    /// - Returns: the work, or nil (the default) to apply the submit at once.
    func work(for values: [String: JSONValue], in context: StepContext) -> StepWork?
    /// What is kept of an accepted submit. `context.computed(for: id)` holds the work's result.
    ///
    /// - Parameters:
    ///   - values: the validated values (hidden fields dropped).
    ///   - context: the session with this step's computed result.
    /// - Returns: the step's saved answers; `values` as they are by default. Keys of `sensitive`
    ///   fields are removed from it.
    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue]
    /// What happens after an accepted `continue` or `skip` beyond the declared `branches`:
    /// rejecting the session, sending the user back with errors, or a jump decided in code.
    /// `.next` (the default) lets the branches, then the flow's sequence, decide.
    ///
    /// In a flow whose ``ResumePolicy`` is ``ResumePolicy/firstMissingAnswer`` it is also replayed,
    /// with the saved answers as `values`, to find where a returning user resumes; what it logs
    /// then is dropped.
    ///
    /// - Parameters:
    ///   - action: `continue` or `skip`.
    ///   - values: the validated values (empty after a skip).
    ///   - context: the session with this submit's answers saved.
    /// - Returns: where the session goes.
    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition
    /// Saved answers of this step, re-checked when an earlier answer changed; what no longer fits is dropped.
    ///
    /// The engine calls it whenever a submit moves the session to another step, for each saved
    /// step that is then not on the session's path (a step ahead the user may come back to).
    ///
    /// - Parameters:
    ///   - saved: the step's saved answers.
    ///   - context: the session as it is now.
    ///   - validator: the plugin's validator, for each field's own checks.
    /// - Returns: what to keep; empty drops the step's answers and its computed result.
    func reconciled(_ saved: [String: JSONValue], in context: StepContext, validator: FieldValidator) -> [String: JSONValue]
    /// The ways out of this step other than the next step: tried in order after `transition`
    /// answers `.next`; each one's words label the diagram's edge.
    ///
    /// A branch's own steps rejoin the flow after this step (see ``FlowBranch``); none by default.
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
        var reader = ConditionReader { saved[$0] ?? context.value(of: $0) }
        for spec in specs {
            guard let spec = reader.apply(spec) else {
                kept[spec.id] = nil
                continue
            }
            guard let value = saved[spec.id] else { continue }
            if case .valid = validator.check(value, against: spec) { continue }
            if spec.type == .multiChoice, let items = value.arrayValue {
                kept[spec.id] = .array(
                    items.filter { item in
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
