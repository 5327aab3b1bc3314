import PlatformCore

/// What kind of change the person is after. Raw values are the wire vocabulary of `goal_type`.
public enum GoalType: String, CaseIterable, Sendable {
    case weightLoss = "weight_loss"
    /// A body-weight target with no stated direction ("get to 70 kg").
    case weightManagement = "weight_management"
    case muscleGain = "muscle_gain"
    /// Looks and composition: body fat, definition, measurements.
    case aesthetic
    case strength
    case endurance
    case performance
    case mobility
    case health
    case recovery
    case consistency
    case generalFitness = "general_fitness"

    /// The metric a goal of this type is tracked by when the text names none.
    var defaultMetric: PrimaryMetric {
        switch self {
        case .weightLoss, .weightManagement: .bodyWeight
        case .muscleGain: .leanMass
        case .aesthetic: .bodyFatPercentage
        case .strength: .oneRepMax
        case .endurance: .vo2Max
        case .performance: .powerOutput
        case .mobility: .rangeOfMotion
        case .health: .restingHeartRate
        case .recovery: .readinessScore
        case .consistency: .workoutsPerWeek
        case .generalFitness: .activeMinutes
        }
    }
}

/// The measurement progress is judged by. Raw values are the wire vocabulary of `primary_metric`.
public enum PrimaryMetric: String, CaseIterable, Sendable {
    case bodyWeight = "body_weight"
    case bodyFatPercentage = "body_fat_percentage"
    case leanMass = "lean_mass"
    case waistCircumference = "waist_circumference"
    case oneRepMax = "one_rep_max"
    case maxReps = "max_reps"
    case raceTime = "race_time"
    case distance
    case vo2Max = "vo2_max"
    case powerOutput = "power_output"
    case workoutsPerWeek = "workouts_per_week"
    case stepCount = "step_count"
    case restingHeartRate = "resting_heart_rate"
    case bloodPressure = "blood_pressure"
    case rangeOfMotion = "range_of_motion"
    case readinessScore = "readiness_score"
    case sleepDuration = "sleep_duration"
    case activeMinutes = "active_minutes"

    /// The units a target of this metric may be given in; empty when the metric takes no target.
    public var units: [GoalUnit] {
        switch self {
        case .bodyWeight, .leanMass, .oneRepMax: [.lb, .kg]
        case .bodyFatPercentage: [.percent]
        case .waistCircumference: [.inches, .cm]
        case .maxReps: [.reps]
        case .raceTime, .sleepDuration, .activeMinutes: [.h, .min, .s]
        case .distance: [.km, .mi, .m]
        case .workoutsPerWeek: [.sessionsPerWeek]
        case .stepCount: [.steps]
        case .vo2Max, .powerOutput, .restingHeartRate, .bloodPressure, .rangeOfMotion, .readinessScore: []
        }
    }
}

/// The unit of a goal's target. Raw values are the wire vocabulary of `target.unit`.
public enum GoalUnit: String, CaseIterable, Sendable {
    case lb, kg
    case percent
    case h, min, s
    case km, mi, m
    case inches = "in"
    case cm
    case reps
    case sessionsPerWeek = "sessions_per_week"
    case steps
}

/// A number to reach, in a unit of the vocabulary.
public struct GoalTarget: Sendable, Hashable {
    public var value: Double
    public var unit: GoalUnit

    public init(value: Double, unit: GoalUnit) {
        self.value = value
        self.unit = unit
    }
}

/// The structured form of an aspiration (the seed's `StructuredGoal`, LLM Call 1's output):
/// `{ goal_type, primary_metric, target?: { value, unit }, timeframe_weeks? }`.
public struct StructuredGoal: Sendable, Hashable {
    /// Timeframes beyond ten years are not plans; analyzers that return them are not trusted.
    public static let timeframeWeeks = 1...520

    public var goalType: GoalType
    public var primaryMetric: PrimaryMetric
    public var target: GoalTarget?
    public var timeframeWeeks: Int?

    public init(goalType: GoalType, primaryMetric: PrimaryMetric, target: GoalTarget? = nil, timeframeWeeks: Int? = nil) {
        self.goalType = goalType
        self.primaryMetric = primaryMetric
        self.target = target
        self.timeframeWeeks = timeframeWeeks
    }

    /// Reads and checks a goal against the vocabularies; anything outside them is refused,
    /// so an analyzer's invention never reaches a persona.
    public init(json: JSONValue) throws(GoalAnalysisError) {
        guard json.objectValue != nil else { throw .unusableResult("not a JSON object") }
        guard let type = json["goal_type"]?.stringValue.flatMap(GoalType.init(rawValue:)) else {
            throw .unusableResult("goal_type is missing or not in the vocabulary")
        }
        guard let metric = json["primary_metric"]?.stringValue.flatMap(PrimaryMetric.init(rawValue:)) else {
            throw .unusableResult("primary_metric is missing or not in the vocabulary")
        }
        var goal = StructuredGoal(goalType: type, primaryMetric: metric)
        if let target = json["target"], !target.isNull {
            guard let value = target["value"]?.doubleValue, value.isFinite, value > 0,
                let unit = target["unit"]?.stringValue.flatMap(GoalUnit.init(rawValue:))
            else {
                throw .unusableResult("target needs a positive value and a unit of the vocabulary")
            }
            guard metric.units.contains(unit) else {
                throw .unusableResult("unit \(unit.rawValue) does not measure \(metric.rawValue)")
            }
            goal.target = GoalTarget(value: value, unit: unit)
        }
        if let weeks = json["timeframe_weeks"], !weeks.isNull {
            guard let count = weeks.intValue, Self.timeframeWeeks.contains(count) else {
                throw .unusableResult("timeframe_weeks must be a whole number from 1 to 520")
            }
            goal.timeframeWeeks = count
        }
        self = goal
    }

    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "goal_type": .string(goalType.rawValue), "primary_metric": .string(primaryMetric.rawValue),
        ]
        if let target {
            object["target"] = ["value": .wholeOrDecimal(target.value), "unit": .string(target.unit.rawValue)]
        }
        if let timeframeWeeks { object["timeframe_weeks"] = .int(Int64(timeframeWeeks)) }
        return .object(object)
    }
}

/// Written and read as `json` and `init(json:)`: the same keys, and the vocabularies checked
/// on reading, so a record never holds a goal outside them.
extension StructuredGoal: Codable {
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}
