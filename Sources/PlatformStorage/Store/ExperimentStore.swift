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

    public init(variant: String, flow: String) {
        self.variant = variant
        self.flow = flow
    }
}

/// What the store counts for one variant of one phase.
public struct ExperimentArmFigures: Sendable {
    public var exposed = 0
    /// Those who completed within the window, and their seconds from exposure to completion.
    public var completed = 0
    public var durations: ExperimentStatistics.DurationSummary?
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
    /// variant id, over the phase's assignments (from the rollup its sessions' events move, whose
    /// cost does not grow with the events: PostgreSQL moves it in each commit, SQLite a moment
    /// after, many commits at once, and before this read).
    func experimentFigures(
        tenant: String, experiment: String, seed: String, arms: [ExperimentArm], window: TimeInterval
    ) async throws -> [String: ExperimentArmFigures]

    /// The stop stored for this phase, if any.
    func experimentStop(tenant: String, experiment: String, seed: String) async throws -> ExperimentStop?

    /// Everything a `flow.start` of an experiment's flow reads before it enrols, in one read: the
    /// person's sessions on `flows` (in that order, those found), and for `phase` the server's
    /// stop and their stored assignment (none read for a nil phase).
    func enrolment(tenant: String, userId: String, flows: [String], phase: ExperimentPhase?) async throws -> ExperimentEnrolment

    /// Stores the stop unless the phase already has one, and `report` with it in the same
    /// transaction; answers the stop that holds and whether this call stored it.
    func recordExperimentStop(_ stop: ExperimentStop, report: OutboxEvent) async throws -> (stop: ExperimentStop, stored: Bool)
}

/// One phase (seed) of an experiment.
public struct ExperimentPhase: Sendable, Hashable {
    public var experiment: String
    public var seed: String

    public init(experiment: String, seed: String) {
        self.experiment = experiment
        self.seed = seed
    }
}

/// One person's standing before a `flow.start` of an experiment's flow: their sessions on the
/// experiment's flows, whether the server stopped the phase, and their assignment in it.
public struct ExperimentEnrolment: Sendable, Hashable {
    public var sessions: [SessionState]
    public var stop: ExperimentStop?
    public var assignment: ExperimentAssignment?

    public init(sessions: [SessionState] = [], stop: ExperimentStop?, assignment: ExperimentAssignment?) {
        self.sessions = sessions
        self.stop = stop
        self.assignment = assignment
    }
}

/// What each store's rows of one phase add up to, built from the rollup an enrolled session's
/// events move (the assignment's completion and last step, one row per step a session reached): the store reads grouped counts and the seconds, this turns them into each arm's
/// figures, so SQLite and PostgreSQL count alike and the read does not grow with the events.
public struct ExperimentTally: Sendable {
    var figures: [String: ExperimentArmFigures] = [:]

    public init(arms: [ExperimentArm]) {
        for arm in arms { figures[arm.variant] = ExperimentArmFigures() }
    }

    /// `count` sessions of `variant` whose last arrival was `lastStep`, `completed` of them
    /// completed (the others dropped there).
    public mutating func sessions(variant: String, lastStep: String?, count: Int, completed: Int) {
        guard figures[variant] != nil else { return }
        figures[variant]?.exposed += count
        figures[variant]?.funnel.started += count
        figures[variant]?.funnel.completed += completed
        if let lastStep, count > completed { figures[variant]?.funnel.steps[lastStep, default: .init()].dropped += count - completed }
    }

    /// `count` completions within the window, their seconds' median and 90th percentile.
    public mutating func completions(variant: String, count: Int, durations: ExperimentStatistics.DurationSummary?) {
        figures[variant]?.completed = count
        figures[variant]?.durations = durations
    }

    /// `reached` sessions of `variant` arrived at `step`, `left` of them went on from it.
    public mutating func step(variant: String, step: String, reached: Int, left: Int) {
        guard figures[variant] != nil else { return }
        figures[variant]?.funnel.steps[step, default: .init()].reached += reached
        figures[variant]?.funnel.steps[step, default: .init()].left += left
    }

    /// The median of the sessions' seconds on `step` (each summed over its visits).
    public mutating func medianSeconds(variant: String, step: String, median: Double) {
        figures[variant]?.funnel.steps[step, default: .init()].medianSeconds = median
    }

    /// Where the median of `count` sorted values is: the offset of the first value to read and
    /// how many (two, averaged, for an even count), as `analytics.funnel` takes it.
    public static func medianWindow(count: Int) -> (offset: Int, limit: Int)? {
        guard count > 0 else { return nil }
        return count % 2 == 1 ? (count / 2, 1) : (count / 2 - 1, 2)
    }

    public func finish() -> [String: ExperimentArmFigures] { figures }
}
