import Foundation
import PlatformCore
import PlatformStorage

extension Platform {
    /// Where a new session of an experiment's flow starts: a flow version, and the experiment and
    /// variant when the person is enrolled (nil: the control's or winner's flow, unenrolled).
    struct StartTarget: Sendable {
        let engine: FlowEngine
        let experiment: Experiment?
        let variant: Experiment.Variant?
        /// The enrolment's read found no session of the flow: the start need not read again.
        let readAsAbsent: Bool
        /// The person's stored assignments whose session expired or is gone: a new session
        /// replaces them (`SessionCommit.droppedAssignments`).
        var dropping: [ExperimentAssignment] = []

        var membership: ExperimentMembership? {
            guard let experiment, let variant else { return nil }
            return ExperimentMembership(id: experiment.id, variant: variant.id)
        }

        func assignment(of state: SessionState, at now: Date) -> ExperimentAssignment? {
            guard let experiment, let variant else { return nil }
            return ExperimentAssignment(
                tenant: state.tenant, experiment: experiment.id, seed: experiment.seed, userId: state.userId, variant: variant.id,
                flow: state.flow, sessionId: state.id, assignedAt: now)
        }
    }

    /// `flow.start` of a flow experiments split. A person keeps the one session they have on the
    /// flow or any variant's (whatever its status, but expired); someone new is enrolled by the
    /// first running experiment whose hash takes them, else gets the control's flow (the winner's
    /// once shipped). Someone whose session expired is someone new (the contract): an assignment
    /// stored for them then names a session that is over, and gives way to the new one.
    func startInExperiments(
        _ registered: Tenant, userId: String, flow: String, user: UserDetails?, locale: String?
    ) async throws(FlowError) -> SessionView {
        let candidates = registered.experiments.filter { $0.flow == flow }
        var flows: [String] = []
        for experiment in candidates {
            for candidate in experiment.flows where !flows.contains(candidate) { flows.append(candidate) }
        }
        let running = candidates.filter { $0.status == .running }
        // One read for the common case: the person's sessions and the first running phase.
        let standing = try await enrolment(of: userId, flows: flows, in: running.first, tenant: registered.id)
        if let existing = standing.sessions.first(where: { $0.status != .expired }) {
            return try await startOn(registered, userId: userId, flow: existing.flow, user: user, locale: locale)
        }
        // No live session of any of these flows: an assignment found now is one whose session is over.
        var stale: [ExperimentAssignment] = []
        for (index, experiment) in running.enumerated() {
            let phase = index == 0 ? standing : try await enrolment(of: userId, flows: [], in: experiment, tenant: registered.id)
            guard phase.stop == nil else { continue }
            if let old = phase.assignment { stale.append(old) }
            guard let variant = experiment.assignment(of: userId) else { continue }
            let target = StartTarget(
                engine: try registered.engine(variant.flow, version: variant.version), experiment: experiment, variant: variant,
                readAsAbsent: standing.hasNoSession(of: variant.flow), dropping: stale)
            return try await startOn(registered, userId: userId, flow: variant.flow, user: user, locale: locale, enrolment: target)
        }
        let directing = candidates.first { $0.status == .running } ?? candidates[0]
        let given = try await directed(directing, in: registered)
        let target = StartTarget(
            engine: try registered.engine(given.flow, version: given.version), experiment: nil, variant: nil,
            readAsAbsent: standing.hasNoSession(of: given.flow), dropping: stale)
        return try await startOn(registered, userId: userId, flow: given.flow, user: user, locale: locale, enrolment: target)
    }

    /// The flows a person's session of `flow` may be on: `flow` first, then every variant's flow of
    /// the experiments on it (an enrolled person's session is on their variant's).
    public func sessionFlows(tenant: String, flow: String) -> [String] {
        var flows = [flow]
        for experiment in tenants[tenant]?.experiments ?? [] where experiment.flow == flow {
            for candidate in experiment.flows where !flows.contains(candidate) { flows.append(candidate) }
        }
        return flows
    }

    /// The variant people who are not enrolled get: the control's, or the winner's once shipped.
    func directed(_ experiment: Experiment, in registered: Tenant) async throws(FlowError) -> Experiment.Variant {
        if experiment.status == .shipped, let winner = experiment.winner.flatMap(experiment.variant) { return winner }
        guard let control = experiment.controlVariant else { throw .defect("experiment \(experiment.id) has no control") }
        return control
    }

    /// The person's sessions on `flows`, and the phase's stop and their stored assignment in it,
    /// in one read (a store that keeps no experiments reads the sessions only).
    func enrolment(of userId: String, flows: [String], in experiment: Experiment?, tenant: String) async throws(FlowError) -> ExperimentEnrolment {
        guard let experiments = store as? any ExperimentStore else {
            var sessions: [SessionState] = []
            for flow in flows {
                if let found = try await storing({ try await store.session(tenant: tenant, key: .user(userId: userId, flow: flow)) }) {
                    sessions.append(found)
                }
            }
            return ExperimentEnrolment(sessions: sessions, stop: nil, assignment: nil)
        }
        let phase = experiment.map { ExperimentPhase(experiment: $0.id, seed: $0.seed) }
        return try await storing { try await experiments.enrolment(tenant: tenant, userId: userId, flows: flows, phase: phase) }
    }

    func storedStop(of experiment: Experiment, tenant: String) async throws(FlowError) -> ExperimentStop? {
        guard let experiments = store as? any ExperimentStore else { return nil }
        return try await storing { try await experiments.experimentStop(tenant: tenant, experiment: experiment.id, seed: experiment.seed) }
    }
}

extension ExperimentEnrolment {
    /// No session of `flow` at all, not even an expired one the start would replace.
    func hasNoSession(of flow: String) -> Bool { !sessions.contains { $0.flow == flow } }
}

extension Platform.Tenant {
    /// The engine of a flow's version: the newest when `version` is nil or names it, else a kept one.
    func engine(_ flow: String, version: String?) throws(FlowError) -> FlowEngine {
        let newest = try engine(flow)
        guard let version, version != newest.version else { return newest }
        guard let kept = olderEngines[flow]?.first(where: { $0.version == version }) else {
            throw .notFound("version \(version) of flow \(flow) of tenant \(id)")
        }
        return kept
    }
}
