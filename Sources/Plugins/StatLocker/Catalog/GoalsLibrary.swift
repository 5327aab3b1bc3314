import Foundation
import PlatformCore

/// A season goal a player can pick, as listed in Resources/goals.json.
struct GoalTemplate: Sendable, Hashable {
    let id: String
    let sport: String
    let gender: String
    let position: String
    let level: String
    let title: String
    /// `count` (season total, at least), `rate` (per game, at least), `percent` (a ratio, at
    /// least; `target` is a fraction), `max` (per game, at most).
    let metricType: String
    let target: Double
    let unit: String
    let trackingKey: String

    static let metricTypes: Set<String> = ["count", "rate", "percent", "max"]

    /// The goal card's second line: "Target: 200 saves", "Target: 60%", "Target: ≤8.0 goals against per game".
    var targetLine: String { Self.targetLine(metricType: metricType, target: target, unit: unit) }

    static func targetLine(metricType: String, target: Double, unit: String) -> String {
        switch metricType {
        case "percent": "Target: \(Int((target * 100).rounded()))%"
        case "max": "Target: ≤\(String(format: "%.1f", target)) \(unit)"
        case "rate": "Target: \(String(format: "%.1f", target)) \(unit)"
        default: "Target: \(NumberText.plain(target)) \(unit)"
        }
    }

    /// The goal as a choice of the `seasonGoals` field, made once at load: the season-goals step
    /// offers a player's goals on several calls a request, and `targetLine` formats a number.
    let option: FieldOption

    init(
        id: String, sport: String, gender: String, position: String, level: String, title: String,
        metricType: String, target: Double, unit: String, trackingKey: String
    ) {
        self.id = id
        self.sport = sport
        self.gender = gender
        self.position = position
        self.level = level
        self.title = title
        self.metricType = metricType
        self.target = target
        self.unit = unit
        self.trackingKey = trackingKey
        option = FieldOption(value: id, label: title, detail: Self.targetLine(metricType: metricType, target: target, unit: unit))
    }

    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let sport = json["sport"]?.stringValue,
            let gender = json["gender"]?.stringValue, let position = json["position"]?.stringValue,
            let level = json["level"]?.stringValue, let title = json["title"]?.stringValue,
            let metricType = json["metricType"]?.stringValue, Self.metricTypes.contains(metricType),
            let target = json["target"]?.doubleValue, let unit = json["unit"]?.stringValue,
            let trackingKey = json["trackingKey"]?.stringValue
        else { return nil }
        self.init(
            id: id, sport: sport, gender: gender, position: position, level: level, title: title,
            metricType: metricType, target: target, unit: unit, trackingKey: trackingKey)
    }
}

/// The goals library: every template, filtered by sport, team gender, position and level.
struct GoalsLibrary: Sendable {
    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    let goals: [GoalTemplate]
    private let byId: [String: GoalTemplate]
    /// The goals of each sport, gender, position and level, in the library's order.
    private let byPlayer: [PlayerKey: [GoalTemplate]]

    private struct PlayerKey: Hashable {
        let sport: String
        let gender: String
        let position: String
        let level: String
    }

    init(goals: [GoalTemplate]) throws(LoadError) {
        var byId: [String: GoalTemplate] = [:]
        for goal in goals {
            guard byId.updateValue(goal, forKey: goal.id) == nil else {
                throw LoadError(description: "goal id \(goal.id) appears twice")
            }
        }
        self.goals = goals
        self.byId = byId
        byPlayer = Dictionary(grouping: goals) { PlayerKey(sport: $0.sport, gender: $0.gender, position: $0.position, level: $0.level) }
    }

    init(json: JSONValue) throws(LoadError) {
        guard let items = json["goals"]?.arrayValue else { throw LoadError(description: "no \"goals\" array") }
        var goals: [GoalTemplate] = []
        for (index, item) in items.enumerated() {
            guard let goal = GoalTemplate(json: item) else {
                throw LoadError(description: "goal \(index) lacks a field or has one of the wrong type")
            }
            goals.append(goal)
        }
        try self.init(goals: goals)
    }

    /// The library shipped with the plugin. A missing or malformed resource is a packaging bug,
    /// so it stops the process at first use rather than serving a flow without goals.
    static let shared: GoalsLibrary = {
        do {
            guard let url = Bundle.module.url(forResource: "goals", withExtension: "json") else {
                throw LoadError(description: "goals.json is not in the bundle")
            }
            let bytes = try Data(contentsOf: url)
            return try GoalsLibrary(json: try JSONValue.parse(bytes))
        } catch {
            fatalError("StatLocker's goals library could not be loaded: \(error)")
        }
    }()

    func goal(_ id: String) -> GoalTemplate? {
        byId[id]
    }

    /// The goals offered for one player, in library order; empty while any part is unknown.
    func goals(sport: String?, gender: String?, position: String?, level: String?) -> [GoalTemplate] {
        guard let sport, let gender, let position, let level else { return [] }
        return byPlayer[PlayerKey(sport: sport, gender: gender, position: position, level: level)] ?? []
    }
}

/// Numbers written the way people read them: `200`, `12.5`.
enum NumberText {
    static func plain(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
