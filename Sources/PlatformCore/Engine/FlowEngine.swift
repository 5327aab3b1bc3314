import Crypto
import Foundation

/// The flow engine: a functional core. Given a session's state and a command it returns the new
/// state, the events and the plugin's log lines, or the error to reply with. No I/O, no clock, no
/// randomness: time and the id generator come with the command, and log lines are returned for
/// the caller to write once the transition is committed.
///
/// A class, though immutable: the platform hands an engine around with every command (placement,
/// the tenant's table, the submit's closure), and as a struct each copy retained its flow's,
/// plugin's and copy book's references one by one.
public final class FlowEngine: Sendable {
    public let plugin: any OnboardingPlugin
    public let flow: Flow
    let validator: FieldValidator
    /// The plugin's log label, read once: the default derives it from the name character by
    /// character, and every context a command builds needs it.
    let logLabel: String
    /// The flow's fingerprint for this plugin (its settings included), computed once.
    public let fingerprint: String
    /// The tenant's texts in every locale it serves: views are translated as they are made.
    public let copy: CopyBook

    /// - Parameters:
    ///   - plugin: the plugin whose flow this is (its validator, settings and log label).
    ///   - flow: the flow the engine runs, one of the plugin's ``OnboardingPlugin/flows``.
    ///   - copy: the tenant's texts; nil: the plugin's catalogs as shipped.
    public init(plugin: any OnboardingPlugin, flow: Flow, copy: CopyBook? = nil) {
        self.copy = copy ?? .shipped(by: plugin)
        self.plugin = plugin
        self.flow = flow
        self.validator = plugin.validator
        self.logLabel = plugin.logLabel
        self.fingerprint = flow.fingerprint(
            in: StepContext(tenant: plugin.id, displayName: plugin.defaultDisplayName, now: Date(timeIntervalSince1970: 0)))
    }

    /// The version a session on this engine records.
    public var version: String { flow.version }

    /// Whether `state` runs on this engine's definition (its version and fingerprint).
    public func runs(_ state: SessionState) -> Bool {
        state.flowVersion == flow.version && state.flowFingerprint == fingerprint
    }

    /// A command's effect: the state to save, what happened, and the records of a completion.
    public struct Transition: Sendable {
        public var state: SessionState
        public var events: [FlowEvent]
        /// Written with the state when the command completed the session.
        public var profile: Profile?
        /// False when the command changed nothing (a retry, a resume that stayed put).
        public var changed: Bool
        /// What the plugin logged while deciding (in `validate`, `stored`, `transition`, completion),
        /// to be written only once the transition is committed.
        public var logs: [PluginLogLine] = []
    }

    public struct Submit: Sendable, Hashable {
        public var stepId: String
        public var revision: Int
        public var action: String
        public var values: [String: JSONValue]

        public init(stepId: String, revision: Int, action: String = "continue", values: [String: JSONValue] = [:]) {
            self.stepId = stepId
            self.revision = revision
            self.action = action
            self.values = values
        }

        /// Identifies the submit without keeping its values: SHA-256 of its canonical JSON.
        public var digest: String {
            Hex.string(SHA256.hash(data: Array(canonical.serialized().utf8)))
        }

        /// For a submit with sensitive values (a birthdate has few enough values to search a
        /// plain digest for them): an HMAC keyed by a secret that never leaves the process.
        public func keyedDigest(key: [UInt8]) -> String {
            let code = HMAC<SHA256>.authenticationCode(
                for: Array(canonical.serialized().utf8), using: SymmetricKey(data: key))
            return "hmac:" + Hex.string(code)
        }

        var canonical: JSONValue {
            [.string(stepId), .int(Int64(revision)), .string(action), JSONValue.object(values).canonical]
        }
    }

    /// The key of sensitive submits' digests: random per process, kept in memory only. After a
    /// restart such a resend is no longer recognised as a retry and gets -32003 or -32005.
    static let processDigestKey: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()

    public enum SubmitResult: Sendable {
        case applied(Transition)
        /// Run this work (outside any transaction) and submit again with its result.
        case needsWork(StepWork)
    }

    // MARK: - start

    /// Creates the user's session (its id from `newID`) or resumes the existing one.
    public func start(
        _ existing: SessionState?, tenant: String, userId: String, user: UserDetails?, locale: String? = nil, now: Date,
        newID: @Sendable () -> String
    ) -> Transition {
        // An expired session's user starts afresh: a new session (the store replaces the old row).
        guard var state = existing, state.status != .expired else {
            let first = flow.steps[0].id
            let state = SessionState(
                id: newID(), tenant: tenant, userId: userId, flow: flow.id, flowVersion: flow.version, flowFingerprint: fingerprint,
                locale: locale ?? "", user: user ?? .empty,
                path: [first], arrivedAt: now, createdAt: now, updatedAt: now
            )
            return Transition(
                state: state, events: [FlowEvent(.started, at: now), FlowEvent(.arrived, step: first, at: now)],
                profile: nil, changed: true
            )
        }
        var changed = false
        var events: [FlowEvent] = []
        if let user, existing?.status != .rejected, state.user.merged(with: user) != state.user {
            state.user = state.user.merged(with: user)
            changed = true
        }
        // A person who comes back with another language (a new phone, a changed setting) reads
        // on in it.
        if let locale, locale != state.locale {
            state.locale = locale
            changed = true
        }
        if flow.resumePolicy == .firstMissingAnswer, !state.status.isFinal {
            let path = resumePath(state, now: now)
            if path != state.path, let target = path.last {
                if let current = state.currentStep {
                    leave(&state, step: current, action: "resume", now: now, events: &events)
                }
                events.append(FlowEvent(.arrived, step: target, at: now))
                state.path = path
                state.arrivedAt = now
                state.revision += 1
                state.lastSubmitDigest = nil
                changed = true
            }
        }
        if changed { state.updatedAt = now }
        return Transition(state: state, events: events, profile: nil, changed: changed)
    }

    /// The path to the first step with no saved answer, following each step's own branching.
    /// Replaying a saved answer's transition is no new decision: what it logs is dropped.
    func resumePath(_ state: SessionState, now: Date) -> [String] {
        var path = [flow.steps[0].id]
        let context = self.context(state, now: now)
        while let current = path.last, let step = flow.step(current), path.count <= flow.steps.count {
            let skipped = state.skipped.contains(current)
            guard let saved = skipped ? [:] : state.answers[current] else { break }
            let action: SubmitAction = skipped ? .skip : .continue
            let next: String?
            switch step.transition(after: action, values: saved, in: context) {
            case .next: next = flow.destination(after: step, BranchInput(action: action, values: saved, context: context))
            case .goTo(let target): next = target
            default: next = nil
            }
            guard let next, flow.step(next) != nil, !path.contains(next) else { break }
            path.append(next)
        }
        return path
    }

    // MARK: - submit

    /// Applies a submit. `newID` is what the plugin's `context.newID()` draws from.
    public func submit(
        _ state: SessionState, _ command: Submit, workResult: JSONValue? = nil, now: Date,
        newID: @escaping @Sendable () -> String
    ) throws(FlowError) -> SubmitResult {
        // One buffer for the command: what the plugin logs is returned only with an applied transition.
        let effects = CommandEffects(label: logLabel, newID: newID)
        let context = self.context(state, now: now, effects: effects)
        // The named step's fields, built once: the digest, the validation and the answer kept use them.
        let fields = flow.step(command.stepId)?.fields(in: context) ?? []
        let digest = Self.digest(of: command, fields: fields)
        if state.lastSubmitDigest == digest {
            return .applied(Transition(state: state, events: [], profile: nil, changed: false))
        }
        let view = { self.view(state, now: now) }
        guard !state.status.isFinal, let current = state.currentStep, let step = flow.step(current) else {
            throw .invalidState("the session is \(state.status.rawValue)", session: view())
        }
        let offered = step.copy(in: context).actions.map(\.id)
        guard let action = SubmitAction(rawValue: command.action), offered.contains(command.action) else {
            switch command.action {
            case "back": throw .invalidState("back is its own method: call flow.back", session: view())
            case "edit": throw .invalidState("edit is done with flow.goto to the step to change", session: view())
            default: throw .invalidState("step \(current) does not offer the action \(command.action)", session: view())
            }
        }
        guard command.stepId == current, command.revision == state.revision else {
            throw .conflict(
                "the session is on step \(current) at revision \(state.revision)", session: view())
        }

        var next = state
        var events: [FlowEvent] = []
        next.lastSubmitDigest = digest
        next.revision += 1
        next.updatedAt = now
        next.status = .active
        leave(&next, step: current, action: action.rawValue, now: now, events: &events)

        let values: [String: JSONValue]
        switch action {
        case .later:
            next.status = .deferred
            events.append(FlowEvent(.deferred, step: current, at: now))
            return .applied(Transition(state: next, events: events, profile: nil, changed: true, logs: effects.lines))
        case .skip:
            values = [:]
            next.answers[current] = nil
            next.computed[current] = nil
            next.skipped.insert(current)
        case .continue:
            let clean = try validated(command.values, step: step, fields: fields, context: context, state: state, now: now)
            if let work = step.work(for: clean, in: context), workResult == nil {
                return .needsWork(work)
            }
            next.computed[current] = workResult
            next.skipped.remove(current)
            let sensitive = fields.filter(\.sensitive).map(\.id)
            next.answers[current] = step.stored(clean, in: self.context(next, now: now, effects: effects))
                .filter { !sensitive.contains($0.key) }
            values = clean
        }
        next.stepErrors[current] = nil
        let leaving = self.context(next, now: now, effects: effects)
        var decision = step.transition(after: action, values: values, in: leaving)
        if decision == .next {
            let input = BranchInput(action: action, values: values, context: leaving)
            decision = flow.destination(after: step, input).map(StepTransition.goTo) ?? .complete
        }
        // A session moved from an older version completes only once it has answered every
        // required step the new version asks on its way (one added before its position).
        if decision == .complete, let missing = unansweredRequiredSteps(next, now: now).first(where: { $0 != current }) {
            decision = .goTo(missing)
        }
        var transition = try apply(decision, from: step, to: next, before: state, events: events, now: now, effects: effects)
        transition.logs = effects.lines
        return .applied(transition)
    }

    static func digest(of command: Submit, fields: [FieldSpec]) -> String {
        let sensitive = fields.contains { $0.sensitive && command.values[$0.id] != nil }
        return sensitive ? command.keyedDigest(key: Self.processDigestKey) : command.digest
    }

    /// The visible fields' normalised values, or every reason they were refused; `specs` are the step's fields in `context`.
    func validated(
        _ values: [String: JSONValue], step: any FlowStep, fields specs: [FieldSpec], context: StepContext, state: SessionState,
        now: Date
    ) throws(FlowError) -> [String: JSONValue] {
        // A field the client left out keeps the answer the step showed (walking forward again
        // after a goto), so clients need not resend what they prefilled; an explicit null
        // still clears it. The server never fills in `defaultValue`: that is the client's prefill.
        let saved = state.answers[step.id] ?? [:]
        let values = values.merging(saved.filter { key, _ in values[key] == nil && specs.contains { $0.id == key } }) { given, _ in given }
        let (clean, errors) = dated(context).checkStep(step, values: values, fields: specs, context: context)
        guard errors.isEmpty else {
            throw .validationFailed(localized(errors, state), session: view(state, now: now))
        }
        return clean
    }

    /// `before` is the session as stored, for the view an error answers with.
    func apply(
        _ decision: StepTransition, from step: any FlowStep, to state: SessionState, before: SessionState,
        events: [FlowEvent], now: Date, effects: CommandEffects
    ) throws(FlowError) -> Transition {
        var state = state
        var events = events
        func arrive(at target: String) throws(FlowError) {
            guard flow.step(target) != nil else { throw .defect("step \(step.id) leads to unknown step \(target)") }
            if flow.branches(at: step.id) {
                events.append(FlowEvent(.branch, step: step.id, toStep: target, at: now))
            }
            if let index = state.path.firstIndex(of: target) {
                state.path.removeSubrange((index + 1)...)
            } else {
                state.path.append(target)
            }
            state.arrivedAt = now
            events.append(FlowEvent(.arrived, step: target, at: now))
            reconcileAnswersAhead(&state, now: now, effects: effects)
        }
        switch decision {
        case .next:
            // `submit` resolves `.next` through the flow's branches before applying it.
            throw .defect("step \(step.id)'s way on was not resolved")
        case .goTo(let target):
            try arrive(at: target)
        case .complete:
            return try complete(state, before: before, events: events, now: now, effects: effects)
        case .reject(let rejection):
            state.status = .rejected
            state.rejection = rejection
            state.erase()
            events.append(FlowEvent(.rejected, step: step.id, at: now))
        case .returnTo(let target, let errors):
            try arrive(at: target)
            state.stepErrors[target] = errors
        }
        return Transition(state: state, events: events, profile: nil, changed: true)
    }

    func complete(
        _ state: SessionState, before: SessionState, events: [FlowEvent], now: Date, effects: CommandEffects
    ) throws(FlowError) -> Transition {
        var onPath = state
        onPath.answers = state.answers.filter { state.path.contains($0.key) }
        onPath.computed = state.computed.filter { state.path.contains($0.key) }
        var completionContext = context(onPath, now: now, effects: effects)
        completionContext.answersOffPath = state.answers.filter { !state.path.contains($0.key) }
        let result: CompletionResult
        do {
            result = try flow.completion.complete(completionContext)
        } catch let failure as ValidationFailure {
            throw .validationFailed(localized(failure.errors, before), session: view(before, now: now))
        } catch {
            throw .defect("completion of \(plugin.id)/\(flow.id) failed: \(error)")
        }
        var done = state
        done.status = .completed
        done.progressTotal = flow.progress.total
        done.completion = CompletionView(message: result.message, records: result.records.keys.sorted(), screen: result.screen)
        done.clearProgress()
        let profile = Profile(tenant: state.tenant, userId: state.userId, completedAt: now, records: result.records)
        return Transition(
            state: done, events: events + [FlowEvent(.completed, at: now)], profile: profile, changed: true)
    }

    /// Answers of steps no longer on the path are re-checked against the new context.
    func reconcileAnswersAhead(_ state: inout SessionState, now: Date, effects: CommandEffects) {
        let context = self.context(state, now: now, effects: effects)
        for (stepId, saved) in state.answers where !state.path.contains(stepId) {
            guard let step = flow.step(stepId) else { continue }
            let kept = step.reconciled(saved, in: context, validator: dated(context))
            guard kept != saved else { continue }
            if kept.isEmpty {
                state.answers[stepId] = nil
                state.computed[stepId] = nil
            } else {
                state.answers[stepId] = kept
            }
        }
    }

    func leave(_ state: inout SessionState, step: String, action: String, now: Date, events: inout [FlowEvent]) {
        let seconds = max(0, now.timeIntervalSince(state.arrivedAt))
        state.secondsSpent[step, default: 0] += seconds
        state.arrivedAt = now
        events.append(FlowEvent(.left, step: step, action: action, seconds: seconds, at: now))
    }

    // MARK: - back and goto

    public func back(_ state: SessionState, revision: Int, now: Date) throws(FlowError) -> Transition {
        guard !state.status.isFinal, state.path.count > 1 else {
            throw .invalidState(
                state.status.isFinal ? "the session is \(state.status.rawValue)" : "already on the first step",
                session: view(state, now: now))
        }
        return try move(state, to: state.path[state.path.count - 2], action: "back", revision: revision, now: now)
    }

    public func goto(_ state: SessionState, stepId: String, revision: Int, now: Date) throws(FlowError) -> Transition {
        guard !state.status.isFinal, state.path.contains(stepId) else {
            throw .invalidState(
                state.status.isFinal
                    ? "the session is \(state.status.rawValue)"
                    : "step \(stepId) has not been visited on the current path",
                session: view(state, now: now))
        }
        return try move(state, to: stepId, action: "goto", revision: revision, now: now)
    }

    private func move(_ state: SessionState, to target: String, action: String, revision: Int, now: Date) throws(FlowError) -> Transition {
        guard revision == state.revision, let current = state.currentStep else {
            throw .conflict("the session is at revision \(state.revision)", session: view(state, now: now))
        }
        var next = state
        var events: [FlowEvent] = []
        leave(&next, step: current, action: action, now: now, events: &events)
        next.path.removeSubrange((next.path.firstIndex(of: target)! + 1)...)
        events.append(FlowEvent(.arrived, step: target, at: now))
        next.revision += 1
        next.status = .active
        next.lastSubmitDigest = nil
        next.updatedAt = now
        return Transition(state: next, events: events, profile: nil, changed: true)
    }

    // MARK: - rendering

    /// The context a step renders itself in. Its ids are a per-context sequence and its log
    /// lines go nowhere: commands make their own (`context(_:now:effects:)`).
    public func context(_ state: SessionState, now: Date) -> StepContext {
        context(state, now: now, effects: CommandEffects(label: logLabel, newID: nil))
    }

    func context(_ state: SessionState, now: Date, effects: CommandEffects) -> StepContext {
        var context = StepContext(
            tenant: state.tenant, userId: state.userId, user: state.user,
            displayName: state.user.personalName(default: plugin.defaultDisplayName),
            answers: state.answers, computedResults: state.computed, path: state.path,
            skipped: state.skipped, secondsSpent: state.secondsSpent, now: now, effects: effects
        )
        context.flow = flow
        context.validator = validator.on(CalendarDate(now))
        return context
    }

    /// The plugin's validator dated to the command's day: the one the engine's contexts carry.
    func dated(_ context: StepContext) -> FieldValidator {
        context.validator ?? validator.on(CalendarDate(context.now))
    }

    /// The contract's SessionView, its texts in the session's locale.
    public func view(_ state: SessionState, now: Date) -> SessionView {
        let view = SessionView(
            sessionId: state.id, tenant: state.tenant, userId: state.userId, flow: state.flow,
            status: state.status, revision: state.revision, progress: progress(state),
            step: state.currentStep.flatMap { flow.step($0) }.map { stepView($0, state: state, now: now) },
            completion: state.completion, rejection: state.rejection, flowVersion: state.flowVersion.isEmpty ? flow.version : state.flowVersion,
            experiment: state.experiment)
        return copy.localized(view, in: copy.served(state.locale))
    }

    /// Errors in the session's locale, for a reply that carries them beside its view.
    func localized(_ errors: [FieldError], _ state: SessionState) -> [FieldError] {
        copy.localized(errors, in: copy.served(state.locale))
    }

    package func progress(_ state: SessionState) -> SessionProgress {
        let scheme = flow.progress
        let index: Int
        switch state.status {
        case .completed: index = state.progressTotal ?? scheme.total
        case .rejected, .expired: index = 0
        case .active, .deferred: index = state.currentStep.flatMap { scheme.indices[$0] } ?? 0
        }
        // A completed session counts the steps of the version it completed on.
        let total = state.status == .completed ? (state.progressTotal ?? scheme.total) : scheme.total
        let fraction = total > 0 ? (Double(index) / Double(total) * 10_000).rounded() / 10_000 : 0
        return SessionProgress(
            index: index, total: total, label: index > 0 ? scheme.label(index, total) : "", fraction: fraction)
    }

    func stepView(_ step: any FlowStep, state: SessionState, now: Date) -> StepView {
        let context = self.context(state, now: now)
        let copy = step.copy(in: context)
        let saved = state.answers[step.id] ?? [:]
        var content = copy.content
        if step.kind == .review, let missing = missingContent(state, now: now) { content["missing"] = missing }
        return StepView(
            id: step.id, kind: step.kind, title: copy.title, subtitle: copy.subtitle, helper: copy.helper,
            fields: FieldSpec.views(of: step.fields(in: context), saved: saved, answers: context.value(of:), today: CalendarDate(now)),
            actions: copy.actions + (state.path.count > 1 ? [.back] : []),
            content: content, errors: state.stepErrors[step.id] ?? [])
    }
}

extension SessionState {
    /// Rejection: nothing the user told us is kept.
    package mutating func erase() {
        clearProgress()
        user = .empty
    }

    /// Completion: the saved progress goes; the records hold what is kept.
    mutating func clearProgress() {
        path = []
        answers = [:]
        computed = [:]
        skipped = []
        stepErrors = [:]
        secondsSpent = [:]
    }
}

extension JSONValue {
    /// Integral doubles as integers, so that equal JSON values serialise alike.
    var canonical: JSONValue {
        switch self {
        case .double(let number):
            if let integer = Int64(exactly: number) { return .int(integer) }
            return self
        case .array(let items): return .array(items.map(\.canonical))
        case .object(let object): return .object(object.mapValues(\.canonical))
        default: return self
        }
    }
}
