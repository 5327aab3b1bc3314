import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import Testing

@testable import AirFit

/// The offline analyzer on texts a person might write. The reference day is 18 November 2026
/// (the test clock's start), so "by summer" is 1 June 2027, 28 weeks away.
@Suite struct OfflineGoalAnalysis {
    static let reference = Date(timeIntervalSince1970: 1_795_000_000)

    struct Case: CustomTestStringConvertible, Sendable {
        let text: String
        let type: GoalType
        let metric: PrimaryMetric
        var target: GoalTarget? = nil
        var weeks: Int? = nil

        var testDescription: String { text }
    }

    static let cases: [Case] = [
        // The three examples of the issue.
        Case(text: "lose 10 pounds by summer", type: .weightLoss, metric: .bodyWeight, target: .init(value: 10, unit: .lb), weeks: 28),
        Case(text: "Run a sub-25 minute 5k in 12 weeks", type: .endurance, metric: .raceTime, target: .init(value: 25, unit: .min), weeks: 12),
        Case(text: "bench 100 kg", type: .strength, metric: .oneRepMax, target: .init(value: 100, unit: .kg)),
        // Targets in other units, and timeframes in other forms.
        Case(
            text: "Get down to 12% body fat before Christmas", type: .aesthetic, metric: .bodyFatPercentage, target: .init(value: 12, unit: .percent), weeks: 5),
        Case(text: "Gain 5kg of lean muscle in 6 months", type: .muscleGain, metric: .leanMass, target: .init(value: 5, unit: .kg), weeks: 26),
        Case(text: "Do 10 strict pull-ups", type: .strength, metric: .maxReps, target: .init(value: 10, unit: .reps)),
        Case(text: "Work out 4 times a week, every week", type: .consistency, metric: .workoutsPerWeek, target: .init(value: 4, unit: .sessionsPerWeek)),
        Case(text: "Walk 10,000 steps every day", type: .health, metric: .stepCount, target: .init(value: 10_000, unit: .steps)),
        Case(text: "10k steps a day", type: .health, metric: .stepCount, target: .init(value: 10_000, unit: .steps)),
        Case(
            text: "Finish a half marathon in 1:45:00 by the end of the year", type: .endurance, metric: .raceTime, target: .init(value: 105, unit: .min),
            weeks: 6),
        Case(text: "Lose 2 inches off my waist in 8 weeks", type: .aesthetic, metric: .waistCircumference, target: .init(value: 2, unit: .inches), weeks: 8),
        Case(text: "Sleep 8 hours a night", type: .health, metric: .sleepDuration, target: .init(value: 8, unit: .h)),
        Case(text: "Run 10 miles without stopping within three months", type: .endurance, metric: .distance, target: .init(value: 10, unit: .mi), weeks: 13),
        Case(text: "Deadlift 405 lbs and lose 10 kg", type: .strength, metric: .oneRepMax, target: .init(value: 405, unit: .lb)),
        // A rate is not a timeframe.
        Case(text: "Lose 1 pound a week", type: .weightLoss, metric: .bodyWeight, target: .init(value: 1, unit: .lb)),
        Case(text: "Put on 10 pounds", type: .muscleGain, metric: .bodyWeight, target: .init(value: 10, unit: .lb)),
        Case(text: "Get to 70 kg", type: .weightManagement, metric: .bodyWeight, target: .init(value: 70, unit: .kg)),
        Case(text: "Swim a mile in under 30 minutes", type: .endurance, metric: .raceTime, target: .init(value: 30, unit: .min)),
        Case(text: "Run for 45 minutes without stopping", type: .endurance, metric: .activeMinutes, target: .init(value: 45, unit: .min)),
        Case(
            text: "Exercise thirty minutes a day starting next month", type: .generalFitness, metric: .activeMinutes, target: .init(value: 30, unit: .min),
            weeks: 4),
        Case(text: "Train for a 10k in two months", type: .endurance, metric: .distance, target: .init(value: 10, unit: .km), weeks: 9),
        Case(text: "Run my first marathon", type: .endurance, metric: .distance, target: .init(value: 42.195, unit: .km)),
        Case(text: "Get toned for my wedding in June", type: .aesthetic, metric: .bodyFatPercentage, weeks: 28),
        Case(text: "Squat 2x bodyweight by March", type: .strength, metric: .oneRepMax, weeks: 15),
        // No target, no timeframe: the type comes from the words alone.
        Case(text: "I want to touch my toes again", type: .mobility, metric: .rangeOfMotion),
        Case(text: "Come back from knee surgery stronger than before", type: .recovery, metric: .readinessScore),
        Case(text: "Lower my blood pressure and feel healthier", type: .health, metric: .bloodPressure),
        Case(text: "Build muscle and get stronger", type: .muscleGain, metric: .leanMass),
        Case(text: "Dunk a basketball this season", type: .performance, metric: .powerOutput),
        Case(text: "Be consistent with my training", type: .consistency, metric: .workoutsPerWeek),
        Case(text: "Lose weight", type: .weightLoss, metric: .bodyWeight),
        Case(text: "I just want to feel good in my own skin 💪", type: .generalFitness, metric: .activeMinutes),
        // A bare number has no unit the analyzer could honestly assume.
        Case(text: "Bench 225 this year", type: .strength, metric: .oneRepMax),
    ]

    @Test(arguments: cases)
    func analyses(_ example: Case) {
        let goal = OfflineGoalAnalyzer().goal(for: GoalAnalysisRequest(text: example.text, referenceDate: Self.reference))
        #expect(goal == StructuredGoal(goalType: example.type, primaryMetric: example.metric, target: example.target, timeframeWeeks: example.weeks))
    }

    @Test func theTableCoversEnoughVariety() {
        #expect(Self.cases.count >= 15)
        #expect(Set(Self.cases.compactMap(\.target?.unit)).count >= 10)
        #expect(Self.cases.contains { $0.target == nil && $0.weeks == nil })
        #expect(Set(Self.cases.map(\.type)).count == GoalType.allCases.count)
    }

    @Test func theSameTextOnTheSameDayGivesTheSameGoal() async throws {
        let request = GoalAnalysisRequest(text: "lose 10 pounds by summer", referenceDate: Self.reference)
        let first = try await OfflineGoalAnalyzer().analyze(request)
        let second = try await OfflineGoalAnalyzer().analyze(request)
        #expect(first == second)
        // Later in the year, summer is closer; after 1 June it is next year's.
        let spring = GoalAnalysisRequest(text: request.text, referenceDate: Self.reference.addingTimeInterval(150 * 86_400))
        #expect(OfflineGoalAnalyzer().goal(for: spring).timeframeWeeks == 6)
        let july = GoalAnalysisRequest(text: request.text, referenceDate: Self.reference.addingTimeInterval(230 * 86_400))
        #expect(OfflineGoalAnalyzer().goal(for: july).timeframeWeeks == 47)
    }

    @Test func goalsWrittenAsJSONUseTheWireKeys() {
        let goal = StructuredGoal(goalType: .endurance, primaryMetric: .distance, target: GoalTarget(value: 42.195, unit: .km), timeframeWeeks: 16)
        #expect(goal.json == ["goal_type": "endurance", "primary_metric": "distance", "target": ["value": 42.195, "unit": "km"], "timeframe_weeks": 16])
        #expect(StructuredGoal(goalType: .mobility, primaryMetric: .rangeOfMotion).json == ["goal_type": "mobility", "primary_metric": "range_of_motion"])
    }

    @Test func readingAGoalChecksTheVocabularies() throws {
        let good: JSONValue = ["goal_type": "weight_loss", "primary_metric": "body_weight", "target": ["value": 4.5, "unit": "kg"], "timeframe_weeks": 10]
        #expect(
            try StructuredGoal(json: good)
                == StructuredGoal(goalType: .weightLoss, primaryMetric: .bodyWeight, target: GoalTarget(value: 4.5, unit: .kg), timeframeWeeks: 10))
        #expect(try StructuredGoal(json: ["goal_type": "health", "primary_metric": "step_count", "target": nil]).target == nil)
        let refused: [JSONValue] = [
            "not an object",
            ["goal_type": "get_rich", "primary_metric": "body_weight"],
            ["goal_type": "weight_loss"],
            ["goal_type": "weight_loss", "primary_metric": "body_weight", "target": ["value": -3, "unit": "kg"]],
            ["goal_type": "weight_loss", "primary_metric": "body_weight", "target": ["value": 3, "unit": "stone"]],
            ["goal_type": "weight_loss", "primary_metric": "body_weight", "target": ["value": 3, "unit": "km"]],
            ["goal_type": "weight_loss", "primary_metric": "body_weight", "timeframe_weeks": 0],
            ["goal_type": "weight_loss", "primary_metric": "body_weight", "timeframe_weeks": 2.5],
        ]
        for json in refused {
            #expect(throws: GoalAnalysisError.self, "\(json.serialized())") { try StructuredGoal(json: json) }
        }
    }

    @Test func everyMetricUnitIsInTheUnitVocabularyAndEveryTypeHasADefaultMetric() {
        for type in GoalType.allCases { #expect(PrimaryMetric.allCases.contains(type.defaultMetric)) }
        #expect(Set(PrimaryMetric.allCases.flatMap(\.units)) == Set(GoalUnit.allCases))
    }
}

@Suite struct OfflineGoalAnalysisRobustness {
    /// Whatever a person types, the analyzer answers with a goal in the vocabularies.
    @Test func garbleNeverBreaksTheAnalyzer() throws {
        let alphabet = Array("0123456789 .,:%-kKgGmMsS lbweekmonthsbyinrunlose10,000:99.5\u{2019}'é💪\n")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            // A fixed xorshift sequence, so a failure is reproducible.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(alphabet.count))
        }
        let fixed = [
            "", "1:2", "::", "5,", "10,0000", "in a", "in 99999999999999999999 weeks", "lose 1e400 pounds", "99:99:99 5k",
            "by the end of", "end of", "a", "half", "marathon marathon", "0 weeks", "sub-0 minute 5k",
        ]
        for text in fixed + (0..<500).map({ _ in String((0..<40).map { _ in alphabet[next()] }) }) {
            let goal = OfflineGoalAnalyzer().goal(for: GoalAnalysisRequest(text: text, referenceDate: OfflineGoalAnalysis.reference))
            #expect(try StructuredGoal(json: goal.json) == goal, "\(text.debugDescription)")
        }
    }
}
