import Foundation
import PlatformCore

/// One person's variant in one phase (seed) of an experiment: stored with the session it started,
/// in the same transaction, and never moved after.
public struct ExperimentAssignment: Sendable, Hashable {
    public var tenant: String
    public var experiment: String
    public var seed: String
    public var userId: String
    public var variant: String
    /// The variant's flow, and the session the enrolment started on it.
    public var flow: String
    public var sessionId: String
    /// The exposure: when the enrolling `flow.start` answered.
    public var assignedAt: Date

    public init(
        tenant: String, experiment: String, seed: String, userId: String, variant: String, flow: String, sessionId: String, assignedAt: Date
    ) {
        self.tenant = tenant
        self.experiment = experiment
        self.seed = seed
        self.userId = userId
        self.variant = variant
        self.flow = flow
        self.sessionId = sessionId
        self.assignedAt = assignedAt
    }
}

/// An experiment stopped by the server (`autoStop`): it holds on every host and across restarts
/// for that experiment and seed, whatever the tenants file says, until the seed changes.
public struct ExperimentStop: Sendable, Hashable {
    public var tenant: String
    public var experiment: String
    public var seed: String
    public var at: Date
    /// The variant found worse.
    public var variant: String
    public var reason: String
    /// Its interval against the control when it stopped.
    public var interval: [Double]

    public init(tenant: String, experiment: String, seed: String, at: Date, variant: String, reason: String, interval: [Double]) {
        self.tenant = tenant
        self.experiment = experiment
        self.seed = seed
        self.at = at
        self.variant = variant
        self.reason = reason
        self.interval = interval
    }
}

/// A variant as the results read it: its id and the flow its sessions are on.
public struct ExperimentArm: Sendable, Hashable {
    public var variant: String
    public var flow: String
    /// By the version an event was recorded on, its step ids' newer names (as `funnel` takes them).
    public var renamedSteps: [String: [String: String]]

    public init(variant: String, flow: String, renamedSteps: [String: [String: String]] = [:]) {
        self.variant = variant
        self.flow = flow
        self.renamedSteps = renamedSteps
    }
}

/// What the store counts for one variant of one phase.
public struct ExperimentArmFigures: Sendable {
    public var exposed = 0
    /// Seconds from exposure to completion, for those who completed within the window.
    public var secondsToComplete: [Double] = []
    /// The funnel of the variant's sessions only.
    public var funnel = FunnelFigures()

    public init() {}
}

/// What the experiments need of a store, besides writing an assignment with its session
/// (`SessionCommit.assignment`).
public protocol ExperimentStore: Sendable {
    /// The person's assignment in this phase, if they have one.
    func assignment(tenant: String, experiment: String, seed: String, userId: String) async throws -> ExperimentAssignment?

    /// Every assignment of one person in a tenant (`user.export`), oldest first.
    func assignments(tenant: String, userId: String) async throws -> [ExperimentAssignment]

    /// Each arm's exposed count, completions within `window` seconds of exposure and funnel, by
    /// variant id, over the phase's assignments.
    func experimentFigures(
        tenant: String, experiment: String, seed: String, arms: [ExperimentArm], window: TimeInterval
    ) async throws -> [String: ExperimentArmFigures]

    /// The stop stored for this phase, if any.
    func experimentStop(tenant: String, experiment: String, seed: String) async throws -> ExperimentStop?

    /// Stores the stop unless the phase already has one, and `report` with it in the same
    /// transaction; answers the stop that holds and whether this call stored it.
    func recordExperimentStop(_ stop: ExperimentStop, report: OutboxEvent) async throws -> (stop: ExperimentStop, stored: Bool)
}

/// Folds one arm's events (read in session, id order along the funnel's index) with its
/// assignments: the exposed count, completions within the window and the arm's own funnel.
/// Shared by the stores so both count alike.
public struct ExperimentFolder: Sendable {
    /// Session id to (variant, exposure time in seconds since 1970).
    var exposures: [String: (variant: String, at: Double)] = [:]
    var figures: [String: ExperimentArmFigures] = [:]
    var folders: [String: FunnelFolder] = [:]
    let window: TimeInterval

    public init(arms: [ExperimentArm], window: TimeInterval) {
        self.window = window
        for arm in arms {
            figures[arm.variant] = ExperimentArmFigures()
            folders[arm.variant] = FunnelFolder(since: nil, until: nil, version: nil, renamedSteps: arm.renamedSteps)
        }
    }

    public mutating func assignment(sessionId: String, variant: String, at: Double) {
        guard figures[variant] != nil else { return }
        exposures[sessionId] = (variant, at)
        figures[variant]?.exposed += 1
    }

    /// One event row of an arm's flow; rows of sessions not assigned to `variant` are skipped.
    public mutating func event(
        variant: String, sessionId: String, id: Int64, kind: String, step: String?, action: String?, toStep: String?, seconds: Double?, at: Double,
        version: String?
    ) {
        guard let exposure = exposures[sessionId], exposure.variant == variant else { return }
        if kind == "completed", at - exposure.at <= window {
            figures[variant]?.secondsToComplete.append(max(0, at - exposure.at))
        }
        folders[variant]?.add(
            sessionId: sessionId, id: id, kind: kind, step: step, action: action, toStep: toStep, seconds: seconds, at: at, version: version)
    }

    public mutating func finish() -> [String: ExperimentArmFigures] {
        for (variant, folder) in folders {
            var folder = folder
            figures[variant]?.funnel = folder.finish()
        }
        return figures
    }
}
