import Foundation
import PlatformCore

/// Runs the configured analyzer as the core_aspiration step's server work. Whatever happens
/// (an error, an answer outside the vocabularies, a timeout) the step gets a goal: the
/// offline analyzer's. Neither the result nor the reason the host logs for a fallback ever
/// carries the person's text.
struct GoalAnalysisWork: Sendable {
    static let offline = OfflineGoalAnalyzer()

    let analyzer: any GoalAnalyzer
    let timeout: Duration

    func work(for text: String, on referenceDate: Date) -> StepWork {
        let request = GoalAnalysisRequest(text: text, referenceDate: referenceDate)
        let analyzer = self.analyzer
        return StepWork(
            name: "AirFit goal analysis (\(analyzer.name))", timeout: timeout,
            perform: {
                let goal: StructuredGoal
                do {
                    // A goal built in code is checked like one read from JSON.
                    goal = try StructuredGoal(json: try await analyzer.analyze(request).json)
                } catch {
                    throw GoalAnalysisError.sanitized(error)
                }
                return Self.result(goal, analyzer: analyzer.name, fellBack: false)
            },
            fallback: { _ in
                // The host logs the work's name and the reason; a second line here said it twice.
                Self.result(Self.offline.goal(for: request), analyzer: Self.offline.name, fellBack: true)
            })
    }

    /// What the step keeps as its computed result (an `AnalysisResult`).
    static func result(_ goal: StructuredGoal, analyzer: String, fellBack: Bool) -> JSONValue {
        ["structured": goal.json, "analyzer": .string(analyzer), "fellBack": .bool(fellBack)]
    }

    /// The computed result, read back when the persona is built.
    struct AnalysisResult: Codable, Sendable, Hashable {
        var structured: StructuredGoal
        /// The analyzer that answered (`offline` after a fallback).
        var analyzer: String
        var fellBack: Bool
    }
}
