import Foundation
import PlatformCore

/// What a store aggregates from its events for `analytics.funnel`: the sessions started in a
/// time window (the cohort) and everything that happened to them.
public struct FunnelFigures: Sendable {
    public struct Step: Sendable, Hashable {
        public var reached = 0
        public var left = 0
        public var dropped = 0
        /// Seconds each session spent on the step, summed over its visits.
        public var secondsPerSession: [Double] = []
        /// Their median when a store computed it where they are (instead of listing them).
        public var medianSeconds: Double?

        public init(reached: Int = 0, left: Int = 0, dropped: Int = 0, secondsPerSession: [Double] = []) {
            self.reached = reached
            self.left = left
            self.dropped = dropped
            self.secondsPerSession = secondsPerSession
        }
    }

    /// A branch taken: the wire type's shape already.
    public typealias Branch = PlatformProtocol.Funnel.Branch

    public var started = 0
    public var completed = 0
    public var deferred = 0
    public var rejected = 0
    public var steps: [String: Step] = [:]
    public var branches: [Branch] = []
    /// Sessions that skipped each step.
    public var skips: [String: Int] = [:]
    /// Sessions started and completed, by the version they started on (every version in the
    /// window, whichever one the figures above are for).
    public var versions: [String: (started: Int, completed: Int)] = [:]

    public init() {}

    /// The contract's `analytics.funnel` result, with steps in the flow's order.
    public func funnel(stepOrder: [String]) -> Funnel {
        let known = Set(stepOrder)
        let order = stepOrder + steps.keys.filter { !known.contains($0) }.sorted()
        return Funnel(
            started: started, completed: completed, deferred: deferred, rejected: rejected,
            completionRate: started == 0 ? 0 : (Double(completed) / Double(started) * 10_000).rounded() / 10_000,
            steps: order.map { id in
                let step = steps[id] ?? Step()
                return Funnel.Step(
                    id: id, reached: step.reached, left: step.left, dropped: step.dropped,
                    medianSeconds: step.medianSeconds ?? Self.median(step.secondsPerSession))
            },
            branches: branches,
            skips: order.compactMap { id in skips[id].map { Funnel.Skip(step: id, count: $0) } },
            versions: versions.sorted { $0.key < $1.key }.map { Funnel.Version(version: $0.key, started: $0.value.started, completed: $0.value.completed) })
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

extension FunnelFigures {
    /// The wire type, by a name that hosts with a `Funnel` command of their own can still use.
    public typealias Result = PlatformProtocol.Funnel
}
