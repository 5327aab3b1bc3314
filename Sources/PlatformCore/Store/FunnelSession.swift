/// One session's events as the funnel folds them, in id order.
struct FunnelSession {
    struct BranchKey: Hashable {
        var from: String
        var to: String
    }

    var id: String?
    var startedAt: Double?
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

    mutating func add(id eventID: Int64, kind: String, step: String?, action: String?, toStep: String?, seconds spent: Double?, at: Double) {
        lastKind = kind
        switch kind {
        case "started": startedAt = startedAt ?? at
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
