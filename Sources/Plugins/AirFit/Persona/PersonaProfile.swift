import Foundation
import PlatformCore

/// Builds the records of a completed walk: the persona_profile.json object the coach's system
/// prompt is given, and the communication preferences notifications obey.
struct PersonaProfile: Sendable {
    static let schemaVersion = 1

    let answers: BlueprintAnswers
    /// When the walk completed, for analysing a goal whose analysis result is missing.
    let completedAt: Date

    /// `personaProfile`: see Docs/plugins/airfit.md for the schema.
    var json: JSONValue {
        [
            "schemaVersion": .int(Int64(Self.schemaVersion)),
            "lifeContext": .object(Dictionary(uniqueKeysWithValues: LifeSnapshotFlag.allCases.map {
                ($0.rawValue, JSONValue.bool(answers.lifeContext.contains($0)))
            })),
            "goal": goal,
            "coachingBlend": .object(Dictionary(uniqueKeysWithValues: answers.blend.shares.map {
                ($0.style.rawValue, JSONValue.int(Int64($0.percent)))
            })),
            "coachingStyleSliders": .object(Dictionary(uniqueKeysWithValues: CoachingStyle.allCases.map {
                ($0.rawValue, JSONValue.int(Int64(answers.sliders[$0] ?? $0.defaultValue)))
            })),
            "trackingStyle": .object(
                ["preset": .string(answers.engagementPreset.rawValue)].merging(answers.engagement.json) { first, _ in first }),
            "availability": .array(answers.availability.map(\.personaJSON)),
            "sleep": [
                "bedtime": .string(answers.sleep.bedtime.description),
                "wakeTime": .string(answers.sleep.wakeTime.description),
                "rhythm": .string(answers.sleepRhythm.rawValue),
                "durationMinutes": .int(Int64(answers.sleep.durationMinutes)),
                "crossesMidnight": .bool(answers.sleep.crossesMidnight),
            ],
            "celebrationStyle": .string(answers.achievement.rawValue),
            "absenceResponse": .string(answers.inactivity.rawValue),
            "units": .string(answers.units.rawValue),
        ]
    }

    /// The aspiration: the preset, the person's own words for `describe_own`, the structured goal,
    /// and how that goal was obtained.
    var goal: JSONValue {
        let structured: JSONValue
        let analysis: JSONValue
        if let preset = answers.aspiration.structuredGoal {
            structured = preset.json
            analysis = ["source": "preset"]
        } else if let result = answers.analysis, let goal = result["structured"] {
            structured = goal
            analysis = [
                "source": "analysis", "analyzer": result["analyzer"] ?? .null,
                "fellBack": result["fellBack"] ?? false,
            ]
        } else {
            // The step always stores a result; this keeps a persona whole even if one went missing.
            let request = GoalAnalysisRequest(text: answers.aspirationText ?? "", referenceDate: completedAt)
            structured = GoalAnalysisWork.offline.goal(for: request).json
            analysis = ["source": "analysis", "analyzer": .string(GoalAnalysisWork.offline.name), "fellBack": true]
        }
        return [
            "preset": .string(answers.aspiration.rawValue),
            "label": .string(answers.aspiration.label),
            "text": answers.aspirationText.map(JSONValue.string) ?? .null,
            "structured": structured,
            "analysis": analysis,
        ]
    }

    /// `communicationPreferences`: quiet hours are the sleep window, start to end.
    var communicationPreferences: JSONValue {
        [
            "quietHours": [
                "start": .string(answers.sleep.bedtime.description),
                "end": .string(answers.sleep.wakeTime.description),
                "durationMinutes": .int(Int64(answers.sleep.durationMinutes)),
            ],
            "achievementAcknowledgement": .string(answers.achievement.rawValue),
            "inactivityResponse": .string(answers.inactivity.rawValue),
            "insightCadence": .string(answers.engagement.insightCadence(for: answers.engagementPreset)),
        ]
    }
}
