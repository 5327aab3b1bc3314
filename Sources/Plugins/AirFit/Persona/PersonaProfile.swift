import Foundation
import PlatformCore

/// persona_profile.json (`onboarding_profile.personaProfile`): what the coach's system prompt is
/// given. Every key is always present; Docs/plugins/airfit.md has the schema.
struct PersonaProfile: Codable, Sendable, Hashable {
    static let currentSchemaVersion = 1

    /// Bumped on any incompatible change.
    var schemaVersion: Int
    /// Every `life_snapshot` flag, selected or not (the seed's `LifeSnapshotSelections`).
    var lifeContext: [LifeSnapshotFlag: Bool]
    var goal: Goal
    /// Each style's whole percentage of the blend; they sum to exactly 100.
    var coachingBlend: [CoachingStyle: Int]
    /// Each style's slider value 0-100, as set (for "Review & Refine").
    var coachingStyleSliders: [CoachingStyle: Int]
    var trackingStyle: TrackingStyle
    /// In week order; empty for none.
    var availability: [Availability]
    var sleep: Sleep
    var celebrationStyle: AchievementStyle
    var absenceResponse: InactivityResponse
    var units: PreferredUnits

    /// The aspiration: the preset, the person's own words for `describe_own`, the structured goal,
    /// and how that goal was obtained.
    struct Goal: Codable, Sendable, Hashable {
        var preset: AspirationPreset
        var label: String
        /// The `describe_own` text; nil (written as `null`) for a preset.
        var text: String?
        var structured: StructuredGoal
        var analysis: Analysis

        /// Every key is written; a missing text is `null`, not absent.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(preset, forKey: .preset)
            try container.encode(label, forKey: .label)
            try container.encode(text, forKey: .text)
            try container.encode(structured, forKey: .structured)
            try container.encode(analysis, forKey: .analysis)
        }
    }

    /// Where the structured goal came from: `{ "source": "preset" }`, or
    /// `{ "source": "analysis", "analyzer", "fellBack" }`.
    enum Analysis: Codable, Sendable, Hashable {
        /// The goal the preset stands for.
        case preset
        /// An analyzer's goal; `fellBack` when the configured one failed and the offline one answered.
        case analysis(analyzer: String, fellBack: Bool)

        private enum CodingKeys: String, CodingKey {
            case source, analyzer, fellBack
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            switch try container.decode(String.self, forKey: .source) {
            case "preset":
                self = .preset
            case "analysis":
                self = .analysis(
                    analyzer: try container.decode(String.self, forKey: .analyzer),
                    fellBack: try container.decode(Bool.self, forKey: .fellBack))
            case let source:
                throw DecodingError.dataCorruptedError(
                    forKey: .source, in: container, debugDescription: "unknown goal source \(source)")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .preset:
                try container.encode("preset", forKey: .source)
            case .analysis(let analyzer, let fellBack):
                try container.encode("analysis", forKey: .source)
                try container.encode(analyzer, forKey: .analyzer)
                try container.encode(fellBack, forKey: .fellBack)
            }
        }
    }

    /// The engagement preset and the three switches it resolves to.
    struct TrackingStyle: Codable, Sendable, Hashable {
        var preset: EngagementPreset
        var detailedTracking: Bool
        var dailyInsights: Bool
        var autoRecoveryAdjust: Bool
    }

    /// A training window (the seed's `WorkoutAvailabilityBlock`), with the length a planner needs.
    struct Availability: Codable, Sendable, Hashable {
        /// ISO weekday: 1 = Monday … 7 = Sunday.
        var dayOfWeek: Int
        /// `HH:mm`.
        var startTime: String
        var endTime: String
        var durationMinutes: Int
    }

    /// The night's sleep window (`HH:mm`), its rhythm and its length across midnight.
    struct Sleep: Codable, Sendable, Hashable {
        var bedtime: String
        var wakeTime: String
        var rhythm: SleepRhythm
        var durationMinutes: Int
        /// The wake time is earlier than the bedtime.
        var crossesMidnight: Bool
    }
}

extension PersonaProfile {
    /// The persona of a completed walk. `completedAt` is the reference date for analysing a
    /// `describe_own` goal whose analysis result is missing.
    init(answers: BlueprintAnswers, completedAt: Date) {
        self.init(
            schemaVersion: Self.currentSchemaVersion,
            lifeContext: Dictionary(uniqueKeysWithValues: LifeSnapshotFlag.allCases.map { ($0, answers.lifeContext.contains($0)) }),
            goal: Goal(answers: answers, completedAt: completedAt),
            coachingBlend: Dictionary(uniqueKeysWithValues: answers.blend.shares.map { ($0.style, $0.percent) }),
            coachingStyleSliders: Dictionary(
                uniqueKeysWithValues: CoachingStyle.allCases.map {
                    ($0, answers.sliders[$0] ?? $0.defaultValue)
                }),
            trackingStyle: TrackingStyle(
                preset: answers.engagementPreset, detailedTracking: answers.engagement.detailedTracking,
                dailyInsights: answers.engagement.dailyInsights, autoRecoveryAdjust: answers.engagement.autoRecoveryAdjust),
            availability: answers.availability.map {
                Availability(
                    dayOfWeek: $0.dayOfWeek, startTime: $0.start.description, endTime: $0.end.description,
                    durationMinutes: $0.durationMinutes)
            },
            sleep: Sleep(
                bedtime: answers.sleep.bedtime.description, wakeTime: answers.sleep.wakeTime.description,
                rhythm: answers.sleepRhythm, durationMinutes: answers.sleep.durationMinutes,
                crossesMidnight: answers.sleep.crossesMidnight),
            celebrationStyle: answers.achievement,
            absenceResponse: answers.inactivity,
            units: answers.units)
    }
}

extension PersonaProfile.Goal {
    init(answers: BlueprintAnswers, completedAt: Date) {
        if let preset = answers.aspiration.structuredGoal {
            structured = preset
            analysis = .preset
        } else if let result = answers.analysis.flatMap({ try? $0.decode(GoalAnalysisWork.AnalysisResult.self) }) {
            structured = result.structured
            analysis = .analysis(analyzer: result.analyzer, fellBack: result.fellBack)
        } else {
            // The step always stores a result; this keeps a persona whole even if one went missing.
            let request = GoalAnalysisRequest(text: answers.aspirationText ?? "", referenceDate: completedAt)
            structured = GoalAnalysisWork.offline.goal(for: request)
            analysis = .analysis(analyzer: GoalAnalysisWork.offline.name, fellBack: true)
        }
        preset = answers.aspiration
        label = answers.aspiration.label
        text = answers.aspirationText
    }
}
