import Foundation

/// The default analyzer: reads the goal from the text with fixed word lists and rules, with no
/// network and no randomness, so the same text on the same day always gives the same goal.
/// It is also every other analyzer's fallback.
///
/// How it decides, first match wins:
/// 1. a quantity that names its metric: a body-fat percentage, a waist measurement, a lift's
///    weight, a weight to gain or lose, reps of an exercise, steps, sleep hours, a race time or
///    minutes of effort, a distance, sessions per week;
/// 2. otherwise the goal type whose words appear most (ties go to the earlier type in
///    `keywordOrder`), tracked by that type's default metric;
/// 3. otherwise `general_fitness` / `active_minutes`.
/// The target is the first quantity, after the rule's anchor words if any, whose unit measures
/// the chosen metric; the timeframe is the first one the text states (see `GoalTimeframe`).
public struct OfflineGoalAnalyzer: GoalAnalyzer {
    public let name = "offline"

    public init() {}

    public func analyze(_ request: GoalAnalysisRequest) async throws -> StructuredGoal {
        goal(for: request)
    }

    public func goal(for request: GoalAnalysisRequest) -> StructuredGoal {
        let text = GoalText(request.text)
        let quantities = GoalQuantities.find(in: text)
        let reading = Reading(text: text, quantities: quantities)
        let choice = reading.classified()
        var goal = StructuredGoal(goalType: choice.type, primaryMetric: choice.metric)
        goal.target = reading.target(for: choice.metric, after: choice.anchors)
        goal.timeframeWeeks = GoalTimeframe.weeks(in: text, from: request.referenceDate)
        return goal
    }
}

/// The word lists the rules look for.
enum GoalWords {
    static let loss: Set<String> = [
        "lose", "losing", "lost", "drop", "dropping", "shed", "shedding", "cut", "cutting", "burn", "burning",
        "slim", "trim", "reduce", "reducing",
    ]
    static let lossPhrases = ["down to", "get down", "slim down"]
    static let gain: Set<String> = ["gain", "gaining", "build", "building", "add", "adding", "bulk", "bulking"]
    static let gainPhrases = ["put on", "pack on"]
    static let muscle: Set<String> = ["muscle", "muscles", "muscular", "hypertrophy", "mass", "size", "bulk", "bulking", "bigger"]
    static let weight: Set<String> = ["weight", "pounds", "kilos", "fat", "belly", "overweight", "slimmer", "thinner", "lighter"]
    static let lifts: Set<String> = [
        "bench", "benching", "squat", "squatting", "deadlift", "deadlifting", "deadlifts", "press", "pressing",
        "clean", "snatch", "jerk", "lift", "lifting", "powerlifting", "rm", "pr",
    ]
    static let strength: Set<String> = ["strong", "stronger", "strongest", "strength", "lifts"]
    static let endurance: Set<String> = [
        "run", "running", "runner", "jog", "jogging", "marathon", "marathons", "race", "racing", "k",
        "triathlon", "ironman", "cycle", "cycling", "bike", "biking", "ride", "swim", "swimming", "row", "rowing",
        "endurance", "stamina", "cardio", "aerobic", "hike", "hiking", "walk", "walking", "ultra",
    ]
    static let performance: Set<String> = [
        "performance", "perform", "athletic", "athlete", "sport", "sports", "speed", "faster", "quicker",
        "agility", "agile", "explosive", "power", "powerful", "vertical", "jump", "dunk", "sprint", "sprinting",
        "compete", "competition", "competitive", "season", "game", "match",
    ]
    static let aesthetic: Set<String> = [
        "tone", "toned", "toning", "abs", "definition", "defined", "lean", "leaner", "shredded", "ripped",
        "physique", "aesthetic", "look", "beach", "waist", "belly",
    ]
    static let aestheticPhrases = ["body fat", "six pack"]
    static let mobility: Set<String> = [
        "flexible", "flexibility", "mobility", "mobile", "stretch", "stretching", "yoga", "pilates", "splits",
        "posture", "stiff", "stiffness", "toes",
    ]
    static let recovery: Set<String> = [
        "injury", "injured", "injuries", "rehab", "rehabilitation", "recover", "recovery", "recovering", "surgery",
        "pain", "postpartum", "physio", "physiotherapy", "comeback", "acl", "sprain",
    ]
    static let health: Set<String> = [
        "health", "healthy", "healthier", "longevity", "heart", "cholesterol", "diabetes", "energy", "energetic",
        "stress", "wellbeing", "wellness", "pressure", "sleep", "steps",
    ]
    static let waist: Set<String> = ["waist", "waistline", "belly", "stomach", "hips", "off"]
    static let sleep: Set<String> = ["sleep", "sleeping", "asleep", "insomnia"]
    static let consistency: Set<String> = [
        "consistent", "consistency", "consistently", "habit", "habits", "routine", "regularly", "regular",
        "discipline", "disciplined",
    ]
    static let consistencyPhrases = ["show up", "stick to", "every day", "stick with"]
    static let forEffort: Set<String> = ["for", "nonstop", "straight", "continuously"]
}

/// One text's features, and the rules that turn them into a goal.
struct Reading {
    let text: GoalText
    let quantities: [GoalQuantity]

    typealias Choice = (type: GoalType, metric: PrimaryMetric, anchors: Set<String>)

    func has(_ unit: GoalUnit) -> Bool { quantities.contains { $0.unit == unit } }
    func has(anyOf units: [GoalUnit]) -> Bool { quantities.contains { units.contains($0.unit) } }

    var losing: Bool { text.contains(GoalWords.loss) || GoalWords.lossPhrases.contains(where: text.contains(phrase:)) }
    var gaining: Bool { text.contains(GoalWords.gain) || GoalWords.gainPhrases.contains(where: text.contains(phrase:)) }

    func classified() -> Choice {
        quantityRule() ?? keywordRule() ?? (.generalFitness, .activeMinutes, [])
    }

    /// Rules led by a quantity whose unit, with the words around it, names the metric.
    private func quantityRule() -> Choice? {
        let mass: [GoalUnit] = [.lb, .kg]
        let time: [GoalUnit] = [.h, .min, .s]
        if has(.percent), text.contains(phrase: "body fat") || text.contains(["fat", "bf"]) {
            return (.aesthetic, .bodyFatPercentage, [])
        }
        if has(anyOf: [.inches, .cm]), text.contains(GoalWords.waist) { return (.aesthetic, .waistCircumference, []) }
        if has(anyOf: mass) {
            if text.contains(GoalWords.lifts) { return (.strength, .oneRepMax, GoalWords.lifts) }
            if gaining { return (.muscleGain, text.contains(GoalWords.muscle) ? .leanMass : .bodyWeight, GoalWords.gain) }
            if losing { return (.weightLoss, .bodyWeight, GoalWords.loss) }
            return (.weightManagement, .bodyWeight, [])
        }
        if has(.reps) { return (.strength, .maxReps, []) }
        if has(.steps) || text.contains(["steps"]) { return (.health, .stepCount, []) }
        if text.contains(GoalWords.sleep) { return (.health, .sleepDuration, []) }
        let enduring = text.contains(GoalWords.endurance)
        if let duration = quantities.first(where: { time.contains($0.unit) }) {
            let effort = text.word(at: duration.index - 1).map(GoalWords.forEffort.contains) == true
            if enduring { return (.endurance, effort ? .activeMinutes : .raceTime, []) }
            return (.generalFitness, .activeMinutes, [])
        }
        if has(anyOf: [.km, .mi, .m]) { return (.endurance, .distance, []) }
        if has(.sessionsPerWeek) { return (.consistency, .workoutsPerWeek, []) }
        return nil
    }

    /// The goal type whose words appear most; ties go to the earlier type.
    private func keywordRule() -> Choice? {
        let scores: [(GoalType, Int)] = [
            (.recovery, text.count(GoalWords.recovery)),
            (.weightLoss, losing ? text.count(GoalWords.weight) : 0),
            (.muscleGain, text.count(GoalWords.muscle)),
            (.aesthetic, text.count(GoalWords.aesthetic) + GoalWords.aestheticPhrases.filter(text.contains(phrase:)).count),
            (.strength, text.count(GoalWords.strength) + text.count(GoalWords.lifts)),
            (.endurance, text.count(GoalWords.endurance)),
            (.performance, text.count(GoalWords.performance)),
            (.mobility, text.count(GoalWords.mobility) + (text.contains(phrase: "touch my toes") ? 1 : 0)),
            (.health, text.count(GoalWords.health)),
            (.consistency, text.count(GoalWords.consistency) + GoalWords.consistencyPhrases.filter(text.contains(phrase:)).count),
        ]
        var best: (GoalType, Int)?
        for score in scores where score.1 > (best?.1 ?? 0) { best = score }
        guard let type = best?.0 else { return nil }
        switch type {
        case .endurance where has(anyOf: [.km, .mi, .m]): return (.endurance, .distance, [])
        case .health where text.contains(phrase: "blood pressure"): return (.health, .bloodPressure, [])
        default: return (type, type.defaultMetric, [])
        }
    }

    /// The first quantity in a unit of the metric, preferring one after an anchor word
    /// ("lose 10 kg and bench 100 kg" benches 100 kg).
    func target(for metric: PrimaryMetric, after anchors: Set<String>) -> GoalTarget? {
        let candidates = quantities.filter { metric.units.contains($0.unit) }
        let anchored = candidates.first { quantity in
            (0..<quantity.index).contains { text.word(at: $0).map(anchors.contains) == true }
        }
        return (anchored ?? candidates.first).map { GoalTarget(value: ($0.value * 10_000).rounded() / 10_000, unit: $0.unit) }
    }
}
