import Foundation
import PlatformCore

/// The `profile` record: seed 000's AthleteProfile (D-001), as completion writes it and
/// `profile.update` rewrites it. On the wire through `JSONValue(encoding:)`: `createdAt` is a
/// contract timestamp (ISO 8601 UTC, whole seconds).
struct AthleteProfile: Codable, Sendable, Hashable, Identifiable {
    static let recordName = "profile"

    var id: String
    var userId: String
    /// The `user` details of `flow.start`, trimmed; "" when not given.
    var firstName: String
    var lastName: String
    var email: String
    var sport: String
    var teamGender: String
    var gradYear: Int
    var level: String
    var position: String
    var aiTone: String
    /// Three goals, in the order picked.
    var seasonGoals: [SeasonGoal]
    var onboardingCompleted: Bool
    var createdAt: Date
}

/// One of the athlete's season goals (seed 000's SeasonGoal): a library goal, whose `id` is its
/// template id, or a custom one, whose `id` is a UUID.
struct SeasonGoal: Codable, Sendable, Hashable, Identifiable {
    var id: String
    var title: String
    /// A fraction for percent goals (0.6 is 60 %); nil for a custom goal given no target, written
    /// as `null` (the seed has no qualitative goals; the contract keeps the key).
    var targetValue: Double?
    var currentValue: Double
    /// "" for a custom goal given no unit.
    var unit: String
    /// `count`, `rate`, `percent` or `max`.
    var metricType: String
    /// The stat the goal follows; `custom` for custom goals, logged by hand.
    var trackingKey: String
    var isCustom: Bool

    init(
        id: String, title: String, targetValue: Double?, currentValue: Double = 0, unit: String,
        metricType: String, trackingKey: String, isCustom: Bool
    ) {
        self.id = id
        self.title = title
        self.targetValue = targetValue
        self.currentValue = currentValue
        self.unit = unit
        self.metricType = metricType
        self.trackingKey = trackingKey
        self.isCustom = isCustom
    }

    /// A library goal, with the progress it had.
    init(_ template: GoalTemplate, currentValue: Double = 0) {
        self.init(
            id: template.id, title: template.title, targetValue: template.target, currentValue: currentValue,
            unit: template.unit, metricType: template.metricType, trackingKey: template.trackingKey, isCustom: false)
    }

    /// Every key is written; a missing target is `null`, not absent.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(targetValue, forKey: .targetValue)
        try container.encode(currentValue, forKey: .currentValue)
        try container.encode(unit, forKey: .unit)
        try container.encode(metricType, forKey: .metricType)
        try container.encode(trackingKey, forKey: .trackingKey)
        try container.encode(isCustom, forKey: .isCustom)
    }
}
