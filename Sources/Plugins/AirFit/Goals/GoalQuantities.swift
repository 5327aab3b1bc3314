/// A number with a unit that the text states ("10 pounds", "sub-25 minute", "5k", "4 times a week").
struct GoalQuantity: Sendable, Hashable {
    var value: Double
    var unit: GoalUnit
    /// Where in the text it appears, so rules can prefer the quantity after a verb.
    var index: Int
}

/// Finds the quantities of an aspiration. Bare numbers ("bench 225") are left alone: the
/// analyzer does not guess a unit the person did not give.
enum GoalQuantities {
    static let pounds: Set<String> = ["lb", "lbs", "pound", "pounds"]
    static let kilograms: Set<String> = ["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"]
    static let percent: Set<String> = ["%", "percent", "pct"]
    static let hours: Set<String> = ["h", "hr", "hrs", "hour", "hours"]
    static let minutes: Set<String> = ["min", "mins", "minute", "minutes"]
    static let seconds: Set<String> = ["s", "sec", "secs", "second", "seconds"]
    static let kilometres: Set<String> = ["km", "kms", "kilometer", "kilometers", "kilometre", "kilometres"]
    static let miles: Set<String> = ["mi", "mile", "miles"]
    static let metres: Set<String> = ["m", "meter", "meters", "metre", "metres"]
    static let inches: Set<String> = ["inch", "inches"]
    static let centimetres: Set<String> = ["cm", "cms", "centimeter", "centimeters", "centimetre", "centimetres"]
    static let reps: Set<String> = ["rep", "reps", "repetitions"]
    static let repExercises: Set<String> = [
        "push", "pushup", "pushups", "pull", "pullup", "pullups", "chin", "chinup", "chinups",
        "burpee", "burpees", "dip", "dips", "situp", "situps", "sit", "squats", "lunges", "muscle",
    ]
    static let sessions: Set<String> = ["x", "times", "days", "day", "sessions", "session", "workouts", "workout", "runs", "classes"]
    static let weekWords: Set<String> = ["week", "weeks", "wk", "weekly"]
    static let stepWords: Set<String> = ["steps", "step"]

    static func find(in text: GoalText) -> [GoalQuantity] {
        var found: [GoalQuantity] = []
        for index in text.indices {
            switch text.tokens[index] {
            case .clock(let minutes):
                found.append(GoalQuantity(value: minutes, unit: .min, index: index))
            case .number(let value):
                if let unit = unit(after: index, in: text) {
                    let scaled = unit == .steps && text.word(at: index + 1) == "k" ? value * 1000 : value
                    found.append(GoalQuantity(value: scaled, unit: unit, index: index))
                }
            case .word(let word):
                // A named race is its distance: "a marathon", "my first half marathon".
                if word == "marathon" {
                    let half = text.word(at: index - 1) == "half"
                    found.append(GoalQuantity(value: half ? 21.0975 : 42.195, unit: .km, index: index))
                }
            }
        }
        // "a sub-0 minute 5k" states no target anyone can reach.
        return found.filter { $0.value > 0 && $0.value.isFinite }
    }

    /// Whether the number at `index` counts sessions in a week ("3 days a week", "4x per week").
    static func isFrequency(at index: Int, in text: GoalText) -> Bool {
        guard let word = text.word(at: index + 1), sessions.contains(word) else { return false }
        if let next = text.word(at: index + 2), weekWords.contains(next) { return true }
        if let link = text.word(at: index + 2), ["a", "per", "each", "every", "an"].contains(link),
            let next = text.word(at: index + 3), weekWords.contains(next)
        {
            return true
        }
        return false
    }

    private static func unit(after index: Int, in text: GoalText) -> GoalUnit? {
        if isFrequency(at: index, in: text) { return .sessionsPerWeek }
        guard let word = text.word(at: index + 1) else { return nil }
        let following = text.word(at: index + 2)
        switch word {
        case _ where pounds.contains(word): return .lb
        case _ where kilograms.contains(word): return .kg
        case _ where percent.contains(word): return .percent
        case _ where hours.contains(word): return .h
        case _ where minutes.contains(word): return .min
        case _ where seconds.contains(word): return .s
        case "k": return following.map(stepWords.contains) == true ? .steps : .km
        case _ where kilometres.contains(word): return .km
        case _ where miles.contains(word): return .mi
        case _ where metres.contains(word): return .m
        case _ where inches.contains(word): return .inches
        case _ where centimetres.contains(word): return .cm
        case _ where stepWords.contains(word): return .steps
        case "rep" where following == "max": return nil
        case _ where reps.contains(word): return .reps
        case _ where repExercises.contains(word): return .reps
        default:
            // "10 strict pull-ups", "20 full push ups": one word may sit between number and exercise.
            if let following, repExercises.contains(following), following != "muscle" { return .reps }
            return nil
        }
    }
}
