import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

@testable import AirFit

/// Answers for each screen of a complete walk, in flow order (generating_coach takes none).
enum Answers {
    static let lifeSnapshot: [String: JSONValue] = ["lifeSnapshot": ["deskBound", "hasChildren", "prefersMorning"]]
    static let customAspiration: [String: JSONValue] = [
        "aspirationPreset": "describe_own", "aspirationText": "  Run a sub-25 minute 5k in 12 weeks ",
    ]
    static let coachingStyle: [String: JSONValue] = [
        "authoritativeDirect": 40, "empatheticEncouraging": 60, "analyticalInsightful": 60, "playfullyProvocative": 20,
    ]
    static let engagement: [String: JSONValue] = [
        "engagementPreset": "custom", "detailedTracking": true, "dailyInsights": false, "autoRecoveryAdjust": true,
    ]
    static let availability: [String: JSONValue] = [
        "availability": [
            ["dayOfWeek": 3, "startTime": "18:00", "endTime": "19:00"],
            ["dayOfWeek": 1, "startTime": "06:00", "endTime": "07:00"],
        ]
    ]
    static let sleep: [String: JSONValue] = ["sleepBedtime": "23:15", "sleepWakeTime": "06:45", "sleepRhythm": "weekendsDifferent"]
    static let motivation: [String: JSONValue] = [
        "achievementAcknowledgement": "enthusiasticCelebratory", "inactivityResponse": "respectSpace", "preferredUnits": "metric",
    ]

    /// The values posted on each step, opening_screen first.
    static let walk: [[String: JSONValue]] = [
        [:], lifeSnapshot, customAspiration, coachingStyle, engagement, availability, sleep, motivation,
    ]
}

/// - Parameter logs: records the host's lines (a step work's fallback is logged there) and the
///   plugin's, so a test sees every line one event gave.
func driver(
    _ plugin: AirFitPlugin = AirFitPlugin(analyzer: OfflineGoalAnalyzer()), clock: TestClock = TestClock(), logs: LogRecorder? = nil
) async throws -> FlowDriver {
    guard let logs else { return try await FlowDriver(plugin: plugin, clock: clock) }
    return try await FlowDriver(plugin: plugin, clock: clock, logger: logs.logger("platformd"), pluginLogger: { logs.logger($0) })
}

/// Starts (or resumes) a session and submits the walk's answers until it stands on `step`.
func walk(
    _ driver: FlowDriver, to step: AirFitStep, user: String = "u1", details: UserDetails? = UserDetails(firstName: "Alex"),
    answers: [[String: JSONValue]] = Answers.walk
) async throws -> SessionView {
    try await advance(driver, try await driver.start(user, user: details), to: step, answers: answers)
}

/// Submits, on each step from `view` on, that step's answers from `answers`, until `step`.
func advance(
    _ driver: FlowDriver, _ view: SessionView, to step: AirFitStep, answers: [[String: JSONValue]] = Answers.walk
) async throws -> SessionView {
    var view = view
    while view.stepId != step.id {
        let index = try #require(AirFitStep.allCases.firstIndex { $0.id == view.stepId }, "walked past \(step)")
        view = try await driver.submit(view, answers[index])
    }
    return view
}

/// Walks to `step` with `values` replacing the walk's answers on their own steps.
func walk(_ driver: FlowDriver, to step: AirFitStep, replacing values: [AirFitStep: [String: JSONValue]], user: String = "u1") async throws -> SessionView {
    var answers = Answers.walk
    for (replaced, value) in values { answers[AirFitStep.allCases.firstIndex(of: replaced)!] = value }
    return try await walk(driver, to: step, user: user, answers: answers)
}

/// Completes a walk and returns the final view.
func complete(_ driver: FlowDriver, user: String = "u1", replacing values: [AirFitStep: [String: JSONValue]] = [:]) async throws -> SessionView {
    let view = try await walk(driver, to: .generatingCoach, replacing: values, user: user)
    return try await driver.submit(view)
}

/// The field errors of a refused submit, by field (nil field as "").
func codes(_ error: RPCError?) -> [String: FieldErrorCode] {
    Dictionary((error?.fieldErrors ?? []).map { ($0.field ?? "", $0.code) }, uniquingKeysWith: { first, _ in first })
}

/// Every line a Logger writes, as `LEVEL MESSAGE ["key=value", …]`, so tests can check what is
/// (and is not) logged.
extension LogRecorder {
    var all: [String] {
        lines.map { "\($0.level) \($0.message) \($0.allMetadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })" }
    }
    /// A Logger labelled as the plugin's own lines are.
    var logger: Logger { logger("AirFit") }
}

/// Analyzers that misbehave in the ways a remote one can.
struct ThrowingAnalyzer: GoalAnalyzer {
    struct Leak: Error, CustomStringConvertible {
        let text: String
        var description: String { "could not analyse \(text)" }
    }

    let name = "throwing"
    func analyze(_ request: GoalAnalysisRequest) async throws -> StructuredGoal {
        throw Leak(text: request.text)
    }
}

struct HangingAnalyzer: GoalAnalyzer {
    let name = "hanging"
    func analyze(_ request: GoalAnalysisRequest) async throws -> StructuredGoal {
        // Never resumes and ignores cancellation, like a server that stopped answering.
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        return StructuredGoal(goalType: .strength, primaryMetric: .oneRepMax)
    }
}

/// Answers with a fixed goal, to tell its result apart from the offline one.
struct FixedAnalyzer: GoalAnalyzer {
    let name = "fixed"
    let goal: StructuredGoal
    func analyze(_ request: GoalAnalysisRequest) async throws -> StructuredGoal { goal }
}
