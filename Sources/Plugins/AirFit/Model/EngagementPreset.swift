import PlatformCore

/// How closely the coach works with the person: three presets, or `custom` with the three
/// switches chosen one by one.
enum EngagementPreset: String, ChoiceOption {
    case dataDrivenPartnership
    case consistentBalanced
    case guidanceOnDemand
    case custom

    static let `default` = EngagementPreset.dataDrivenPartnership

    var label: String {
        switch self {
        case .dataDrivenPartnership: "Data-Driven Partnership"
        case .consistentBalanced: "Consistent & Balanced"
        case .guidanceOnDemand: "Guidance on Demand"
        case .custom: "Customize"
        }
    }

    var detail: String {
        switch self {
        case .dataDrivenPartnership: "Detailed tracking, daily insights and proactive recovery adjustments."
        case .consistentBalanced: "Key metrics, weekly summaries and proactive recovery adjustments."
        case .guidanceOnDemand: "Tracks what you log; your coach weighs in when you ask."
        case .custom: "Choose each detail yourself."
        }
    }

    /// The switches a preset stands for; nil for `custom`, whose switches are answered.
    var settings: EngagementSettings? {
        switch self {
        case .dataDrivenPartnership: EngagementSettings(detailedTracking: true, dailyInsights: true, autoRecoveryAdjust: true)
        case .consistentBalanced: EngagementSettings(detailedTracking: false, dailyInsights: false, autoRecoveryAdjust: true)
        case .guidanceOnDemand: EngagementSettings(detailedTracking: false, dailyInsights: false, autoRecoveryAdjust: false)
        case .custom: nil
        }
    }
}

/// The three switches behind every engagement preset.
struct EngagementSettings: Sendable, Hashable {
    var detailedTracking: Bool
    var dailyInsights: Bool
    var autoRecoveryAdjust: Bool

    /// Where the custom switches start: the default preset's setting.
    static let customDefaults = EngagementPreset.default.settings!

    enum Switch: String, CaseIterable, Sendable {
        case detailedTracking, dailyInsights, autoRecoveryAdjust

        var label: String {
            switch self {
            case .detailedTracking: "Detailed tracking"
            case .dailyInsights: "Daily insights"
            case .autoRecoveryAdjust: "Adjust for recovery automatically"
            }
        }

        var detail: String {
            switch self {
            case .detailedTracking: "Log meals, macros and every set, not just the headline numbers."
            case .dailyInsights: "A short read on your progress each day instead of a weekly summary."
            case .autoRecoveryAdjust: "Lighten or reshape the plan when sleep and recovery run low."
            }
        }

        func value(in settings: EngagementSettings) -> Bool {
            switch self {
            case .detailedTracking: settings.detailedTracking
            case .dailyInsights: settings.dailyInsights
            case .autoRecoveryAdjust: settings.autoRecoveryAdjust
            }
        }
    }

    /// How often the coach offers insights unprompted.
    func insightCadence(for preset: EngagementPreset) -> InsightCadence {
        if dailyInsights { return .daily }
        return preset == .guidanceOnDemand ? .onRequest : .weekly
    }

    var json: [String: JSONValue] {
        [
            Switch.detailedTracking.rawValue: .bool(detailedTracking),
            Switch.dailyInsights.rawValue: .bool(dailyInsights),
            Switch.autoRecoveryAdjust.rawValue: .bool(autoRecoveryAdjust),
        ]
    }
}

/// How often the coach offers insights unprompted (`communicationPreferences.insightCadence`).
enum InsightCadence: String, Codable, Sendable {
    case daily
    case weekly
    /// Only when the person asks (`guidanceOnDemand`).
    case onRequest
}
