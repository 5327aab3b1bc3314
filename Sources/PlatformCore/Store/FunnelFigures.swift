import Foundation

/// What a store aggregates from its events for `analytics.funnel`: the sessions started in a
/// time window (the cohort) and everything that happened to them.
public struct FunnelFigures: Sendable, Hashable {
    public struct Step: Sendable, Hashable {
        public var reached = 0
        public var left = 0
        public var dropped = 0
        /// Seconds each session spent on the step, summed over its visits.
        public var secondsPerSession: [Double] = []

        public init(reached: Int = 0, left: Int = 0, dropped: Int = 0, secondsPerSession: [Double] = []) {
            self.reached = reached
            self.left = left
            self.dropped = dropped
            self.secondsPerSession = secondsPerSession
        }
    }

    public struct Branch: Sendable, Hashable {
        public var from: String
        public var to: String
        public var count: Int
        public var completed: Int

        public init(from: String, to: String, count: Int, completed: Int) {
            self.from = from
            self.to = to
            self.count = count
            self.completed = completed
        }
    }

    public var started = 0
    public var completed = 0
    public var deferred = 0
    public var rejected = 0
    public var steps: [String: Step] = [:]
    public var branches: [Branch] = []
    /// Sessions that skipped each step.
    public var skips: [String: Int] = [:]

    public init() {}

    /// The contract's `analytics.funnel` result, with steps in the flow's order.
    public func json(stepOrder: [String]) -> JSONValue {
        let known = Set(stepOrder)
        let order = stepOrder + steps.keys.filter { !known.contains($0) }.sorted()
        return [
            "started": .int(Int64(started)), "completed": .int(Int64(completed)),
            "deferred": .int(Int64(deferred)), "rejected": .int(Int64(rejected)),
            "completionRate": .double(started == 0 ? 0 : (Double(completed) / Double(started) * 10_000).rounded() / 10_000),
            "steps": .array(order.map { id in
                let step = steps[id] ?? Step()
                return [
                    "id": .string(id), "reached": .int(Int64(step.reached)), "left": .int(Int64(step.left)),
                    "dropped": .int(Int64(step.dropped)),
                    "medianSeconds": Self.median(step.secondsPerSession).map(JSONValue.double) ?? .null,
                ]
            }),
            "branches": .array(branches.map { branch in
                ["from": .string(branch.from), "to": .string(branch.to),
                 "count": .int(Int64(branch.count)), "completed": .int(Int64(branch.completed))]
            }),
            "skips": .array(order.compactMap { id in
                skips[id].map { ["step": .string(id), "count": .int(Int64($0))] }
            }),
        ]
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
