import Foundation
import PlatformCore

/// One session's events as the funnel folds them, in id order.
struct FunnelSession: Sendable {
    struct BranchKey: Hashable, Sendable {
        var from: String
        var to: String
    }

    var id: String?
    var startedAt: Double?
    /// The version of the flow it started on ("" for sessions stored before versions).
    var version: String?
    var completed = false
    var rejected = false
    var lastKind: String?
    var lastArrival: String?
    var reached: Set<String> = []
    var left: Set<String> = []
    var skipped: Set<String> = []
    /// Seconds spent per step, summed over its visits (steps left with a time only).
    var seconds: [String: Double] = [:]
    /// Each branch taken, with the id of its first event.
    var branches: [BranchKey: Int64] = [:]

    init(id: String? = nil) {
        self.id = id
    }

    mutating func add(
        id eventID: Int64, kind: String, step: String?, action: String?, toStep: String?, seconds spent: Double?, at: Double,
        version: String? = nil
    ) {
        // A move onto a newer version, or an exposure, is no step of the person's: a deferred session stays deferred.
        if kind != "migrated" && kind != "exposed" { lastKind = kind }
        switch kind {
        case "started":
            startedAt = startedAt ?? at
            self.version = self.version ?? version ?? ""
        case "completed": completed = true
        case "rejected": rejected = true
        case "arrived":
            if let step {
                reached.insert(step)
                lastArrival = step
            }
        case "left":
            guard let step else { break }
            left.insert(step)
            if action == "skip" { skipped.insert(step) }
            if let spent { seconds[step, default: 0] += spent }
        case "branch":
            if let step, let toStep {
                let key = BranchKey(from: step, to: toStep)
                if branches[key] == nil { branches[key] = eventID }
            }
        default: break
        }
    }
}

/// The funnel folded from a flow's events read in (session, id) order, one session at a time:
/// every store feeds its rows through this, so SQLite and PostgreSQL give the same figures.
public struct FunnelFolder: Sendable {
    let since: Double?
    let until: Double?
    /// Only sessions started on this version count, when given.
    let version: String?
    /// By the version an event was recorded on: its steps' names in the served flow.
    let renamedSteps: [String: [String: String]]
    var figures = FunnelFigures()
    var session = FunnelSession()
    var branchOrder: [FunnelSession.BranchKey: Int64] = [:]
    var branchCounts: [FunnelSession.BranchKey: (count: Int, completed: Int)] = [:]

    /// Counts the sessions started in [since, until) (on `version`, when given).
    public init(since: Date?, until: Date?, version: String? = nil, renamedSteps: [String: [String: String]] = [:]) {
        self.since = since?.timeIntervalSince1970
        self.until = until?.timeIntervalSince1970
        self.version = version
        self.renamedSteps = renamedSteps
    }

    /// One event; rows must come ordered by session id, then event id.
    public mutating func add(
        sessionId: String, id: Int64, kind: String, step: String?, action: String?, toStep: String?, seconds: Double?, at: Double,
        version: String? = nil
    ) {
        if sessionId != session.id {
            fold()
            session = FunnelSession(id: sessionId)
        }
        // A step a later version renamed is counted under its new name: one row for both.
        var step = step
        var toStep = toStep
        if let version, let renames = renamedSteps[version] {
            step = step.map { renames[$0] ?? $0 }
            toStep = toStep.map { renames[$0] ?? $0 }
        }
        session.add(id: id, kind: kind, step: step, action: action, toStep: toStep, seconds: seconds, at: at, version: version)
    }

    /// The figures once every row has been added.
    public mutating func finish() -> FunnelFigures {
        fold()
        session = FunnelSession()
        figures.branches = branchOrder.sorted { $0.value < $1.value }.map { branch, _ in
            let counts = branchCounts[branch] ?? (0, 0)
            return FunnelFigures.Branch(from: branch.from, to: branch.to, count: counts.count, completed: counts.completed)
        }
        return figures
    }

    mutating func fold() {
        guard session.id != nil, let started = session.startedAt,
            since.map({ started >= $0 }) ?? true,
            until.map({ started < $0 }) ?? true
        else { return }
        let startedOn = session.version ?? ""
        figures.versions[startedOn, default: (0, 0)].started += 1
        if session.completed { figures.versions[startedOn, default: (0, 0)].completed += 1 }
        guard version.map({ $0 == startedOn }) ?? true else { return }
        figures.started += 1
        if session.completed { figures.completed += 1 }
        if session.rejected { figures.rejected += 1 }
        if session.lastKind == "deferred" { figures.deferred += 1 }
        for step in session.reached { figures.steps[step, default: .init()].reached += 1 }
        for step in session.left { figures.steps[step, default: .init()].left += 1 }
        if !session.completed, let last = session.lastArrival { figures.steps[last, default: .init()].dropped += 1 }
        for (step, seconds) in session.seconds { figures.steps[step, default: .init()].secondsPerSession.append(seconds) }
        for (branch, firstID) in session.branches {
            branchOrder[branch] = min(branchOrder[branch] ?? .max, firstID)
            branchCounts[branch, default: (0, 0)].count += 1
            if session.completed { branchCounts[branch, default: (0, 0)].completed += 1 }
        }
        for step in session.skipped { figures.skips[step, default: 0] += 1 }
    }
}
