import Foundation

/// A session moved onto this engine's flow from a version that is no longer served, and what
/// the move did: what the session shows from now on, and what `flows check` reports before a
/// deploy.
public struct FlowMove: Sendable {
    /// An answer the move dropped: its step and field under the old version's ids.
    public struct DroppedAnswer: Sendable, Hashable {
        public var step: String
        public var field: String
        /// The plugin's migration declared it (a removed step or field), so nothing is lost unawares.
        public var declared: Bool

        public init(step: String, field: String, declared: Bool) {
            self.step = step
            self.field = field
            self.declared = declared
        }
    }

    /// Where a session that stood on a step that is gone resumes.
    public struct Resumption: Sendable, Hashable {
        /// The step it stood on, under the old version's id.
        public var from: String
        /// The step it resumes at.
        public var to: String
        /// A declaration (``FlowMigration/removedSteps``) chose `to`; otherwise it is the last
        /// step of its path that still exists, an earlier step.
        public var declared: Bool

        public init(from: String, to: String, declared: Bool) {
            self.from = from
            self.to = to
            self.declared = declared
        }
    }

    /// The session on the new version.
    public var state: SessionState
    /// The `migrated` event, and an arrival when the session now stands on another step.
    public var events: [FlowEvent]
    /// Whether one of the flow's migrations covered the session's version.
    public var declared: Bool
    public var resumption: Resumption?
    public var dropped: [DroppedAnswer]
    /// Saved answers the new rules refuse, by step (new ids): shown with their errors when the
    /// person reaches the step.
    public var refused: [String: [FieldError]]

    /// True when the person loses an answer, or is sent back, without the plugin having declared it.
    public var losesUndeclared: Bool {
        dropped.contains { !$0.declared } || resumption.map { !$0.declared } == true
    }
}

extension FlowEngine {
    /// Moves a session in flight from a version that is no longer served onto this flow, by the
    /// contract's rules, in order: the declared renames and removed steps of its version; answers
    /// of steps and fields that no longer exist dropped (and only those); a session whose step
    /// is gone resumes where its declaration says, else at the last step of its path that still
    /// exists (or the first step); saved answers the new rules refuse are kept and shown with
    /// their errors on their step. Pure: the caller writes the result.
    public func move(_ state: SessionState, now: Date) -> FlowMove {
        let declaration = flow.migrations.first { $0.from == state.flowVersion }
        let renamedSteps = declaration?.renamedSteps ?? [:]
        let renamedFields = declaration?.renamedFields ?? [:]
        let removedSteps = declaration?.removedSteps ?? [:]
        let removedFields = Set(declaration?.removedFields ?? [])
        func step(_ old: String) -> String { renamedSteps[old] ?? old }
        func exists(_ old: String) -> Bool { flow.step(step(old)) != nil }

        var next = state
        next.flowVersion = flow.version
        next.flowFingerprint = fingerprint
        var dropped: [FlowMove.DroppedAnswer] = []

        // 1 and 2: renamed steps and fields carry their answers; answers of steps that are gone go.
        next.answers = [:]
        for (old, values) in state.answers.sorted(by: { $0.key < $1.key }) {
            guard exists(old) else {
                let declared = removedSteps[old] != nil
                dropped += values.keys.sorted().map { .init(step: old, field: $0, declared: declared) }
                continue
            }
            next.answers[step(old)] = Dictionary(values.map { (renamedFields[$0.key] ?? $0.key, $0.value) }) { first, _ in first }
        }
        next.computed = Self.renamed(state.computed, by: step, keeping: exists)
        next.secondsSpent = Self.renamed(state.secondsSpent, by: step, keeping: exists)
        next.stepErrors = Self.renamed(state.stepErrors, by: step, keeping: exists)
        next.skipped = Set(state.skipped.filter(exists).map(step))
        // Fields a step no longer has.
        let context = self.context(next, now: now)
        for (stepID, values) in next.answers {
            guard let current = flow.step(stepID) else { continue }
            let fields = Set(current.fields(in: context).map(\.id))
            let old = renamedSteps.first { $0.value == stepID }?.key ?? stepID
            for field in values.keys.sorted() where !fields.contains(field) {
                let oldField = renamedFields.first { $0.value == field }?.key ?? field
                dropped.append(.init(step: old, field: oldField, declared: removedFields.contains(oldField) || removedSteps[old] != nil))
                next.answers[stepID]?[field] = nil
            }
            if next.answers[stepID]?.isEmpty == true && !values.isEmpty { next.answers[stepID] = nil }
        }

        // 3: a session in flight always stands on a step of the served flow.
        var resumption: FlowMove.Resumption?
        if !state.status.isFinal {
            var path: [String] = []
            for old in state.path where exists(old) && !path.contains(step(old)) { path.append(step(old)) }
            let standing = state.path.last
            if let standing, !exists(standing) {
                let target: String
                let declared: Bool
                if let chosen = removedSteps[standing], flow.step(chosen) != nil {
                    (target, declared) = (chosen, true)
                } else {
                    (target, declared) = (path.last ?? flow.steps[0].id, false)
                }
                if let index = path.firstIndex(of: target) { path.removeSubrange((index + 1)...) } else { path.append(target) }
                resumption = .init(from: standing, to: target, declared: declared)
            }
            next.path = path.isEmpty ? [flow.steps[0].id] : path
        }

        // 4: saved answers the new rules refuse are shown on their step with their errors.
        var refused: [String: [FieldError]] = [:]
        let checking = self.context(next, now: now)
        for (stepID, values) in next.answers {
            guard let current = flow.step(stepID) else { continue }
            var errors: [FieldError] = []
            var reader = ConditionReader { values[$0] ?? checking.value(of: $0) }
            for spec in current.fields(in: checking) {
                guard let spec = reader.apply(spec) else { continue }
                if case .invalid = validator.check(values[spec.id], against: spec) {
                    errors += validator.allErrors(values[spec.id], against: spec)
                }
            }
            if !errors.isEmpty { refused[stepID] = errors }
        }
        for (stepID, errors) in refused { next.stepErrors[stepID] = (next.stepErrors[stepID] ?? []) + errors }

        var events = [FlowEvent(.migrated, step: next.currentStep, at: now)]
        if let resumption {
            // A client holding the old step must not submit it: the revision moves on.
            next.revision += 1
            next.arrivedAt = now
            next.lastSubmitDigest = nil
            events.append(FlowEvent(.arrived, step: resumption.to, at: now))
        }
        next.updatedAt = now
        return FlowMove(
            state: next, events: events, declared: declaration != nil, resumption: resumption, dropped: dropped, refused: refused)
    }

    static func renamed<Value>(_ byStep: [String: Value], by step: (String) -> String, keeping exists: (String) -> Bool) -> [String: Value] {
        Dictionary(byStep.filter { exists($0.key) }.map { (step($0.key), $0.value) }) { first, _ in first }
    }
}
