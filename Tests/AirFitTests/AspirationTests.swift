import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AirFit

@Suite struct CoreAspiration {
    @Test func presetsAreOfferedWithDescribeOwnAndTheTextShowsOnlyForIt() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .coreAspiration)
        let preset = try #require(view.field("aspirationPreset"))
        #expect(preset["type"] == "choice")
        #expect(preset["required"] == true)
        #expect(
            preset["options"]?.arrayValue?.map { $0["value"]?.stringValue } == [
                "build_strength", "improve_endurance", "elevate_performance", "lasting_health", "recover_rebuild",
                "body_composition", "describe_own",
            ])
        #expect(preset["options"]?.arrayValue?.allSatisfy { $0["detail"]?.stringValue?.isEmpty == false } == true)
        let text = try #require(view.field("aspirationText"))
        #expect(text["type"] == "text")
        #expect(text["minLength"] == 1)
        #expect(text["maxLength"] == 500)
        #expect(text["visibleWhen"] == ["field": "aspirationPreset", "equals": "describe_own"])
    }

    /// Every preset completes, and stands for its own structured goal in the persona.
    @Test(arguments: [
        ("build_strength", "strength", "one_rep_max"),
        ("improve_endurance", "endurance", "vo2_max"),
        ("elevate_performance", "performance", "power_output"),
        ("lasting_health", "health", "resting_heart_rate"),
        ("recover_rebuild", "recovery", "readiness_score"),
        ("body_composition", "aesthetic", "body_fat_percentage"),
    ])
    func everyPresetCompletesWithItsGoal(preset: String, goalType: String, metric: String) async throws {
        let d = try await driver()
        let done = try await complete(d, replacing: [.coreAspiration: ["aspirationPreset": .string(preset)]])
        #expect(done.status == .completed)
        let goal = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["goal"]
        #expect(goal?["preset"] == .string(preset))
        #expect(goal?["label"] == .string(AspirationPreset(rawValue: preset)!.label))
        #expect(goal?["text"] == .null)
        #expect(goal?["structured"] == ["goal_type": .string(goalType), "primary_metric": .string(metric)])
        #expect(goal?["analysis"] == ["source": "preset"])
        let summary = done.completion?["screen"]?["summary"]?.arrayValue?.first { $0["id"] == "aspiration" }
        #expect(summary?["text"] == .string(AspirationPreset(rawValue: preset)!.label))
    }

    @Test func aPresetDropsTextThatWasPostedWithIt() async throws {
        let d = try await driver()
        var view = try await walk(d, to: .coreAspiration)
        view = try await d.submit(view, ["aspirationPreset": "build_strength", "aspirationText": "ignored"])
        view = try await d.back(view)
        #expect(view.value("aspirationPreset") == "build_strength")
        #expect(view.value("aspirationText") == nil)
    }

    @Test func theCustomPathAnalysesTheTextIntoTheGoal() async throws {
        let d = try await driver()
        let done = try await complete(d)
        #expect(done.status == .completed)
        let goal = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["goal"]
        #expect(goal?["preset"] == "describe_own")
        #expect(goal?["label"] == "Describe Your Own")
        #expect(goal?["text"] == "Run a sub-25 minute 5k in 12 weeks")
        #expect(
            goal?["structured"] == [
                "goal_type": "endurance", "primary_metric": "race_time",
                "target": ["value": 25, "unit": "min"], "timeframe_weeks": 12,
            ])
        #expect(goal?["analysis"] == ["source": "analysis", "analyzer": "offline", "fellBack": false])
        let summary = done.completion?["screen"]?["summary"]?.arrayValue?.first { $0["id"] == "aspiration" }
        #expect(summary?["text"] == "“Run a sub-25 minute 5k in 12 weeks”")
    }

    @Test func describeOwnNeedsTextOfAtMost500Characters() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .coreAspiration)
        let missing = await d.refuse(view, ["aspirationPreset": "describe_own"])
        #expect(codes(missing) == ["aspirationText": .required])
        #expect(missing?.fieldErrors.first?.message == "Describe your aspiration in a sentence or two.")
        let blank = await d.refuse(view, ["aspirationPreset": "describe_own", "aspirationText": "   \n "])
        #expect(codes(blank) == ["aspirationText": .required])
        let long = await d.refuse(view, ["aspirationPreset": "describe_own", "aspirationText": .string(String(repeating: "a", count: 501))])
        #expect(codes(long) == ["aspirationText": .tooLong])
        #expect(long?.fieldErrors.first?.message == "Keep your aspiration to 500 characters or fewer.")
        let number = await d.refuse(view, ["aspirationPreset": "describe_own", "aspirationText": 5])
        #expect(codes(number) == ["aspirationText": .invalidType])
        let accepted = try await d.submit(view, ["aspirationPreset": "describe_own", "aspirationText": .string(String(repeating: "é", count: 500))])
        #expect(accepted.stepId == "coaching_style")
    }

    @Test func thePresetIsRequiredAndMustBeOffered() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .coreAspiration)
        let missing = await d.refuse(view, [:])
        #expect(codes(missing) == ["aspirationPreset": .required])
        let unknown = await d.refuse(view, ["aspirationPreset": "get_rich"])
        #expect(codes(unknown) == ["aspirationPreset": .notAnOption])
        #expect(unknown?.fieldErrors.first?.message == "Choose one of the aspirations shown, or describe your own.")
    }

    @Test func switchingFromCustomToAPresetDropsTheAnalysis() async throws {
        let d = try await driver()
        var view = try await walk(d, to: .coachingStyle)
        view = try await d.goto(view, "core_aspiration")
        view = try await d.submit(view, ["aspirationPreset": "lasting_health"])
        let done = try await d.submit(try await advance(d, view, to: .generatingCoach))
        #expect(done.status == .completed)
        let goal = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["goal"]
        #expect(goal?["preset"] == "lasting_health")
        #expect(goal?["text"] == .null)
        #expect(goal?["analysis"] == ["source": "preset"])
    }
}

@Suite struct AnalyzerFallback {
    static let text = "Bench 100 kg by the end of the year, secret-word-xyzzy"
    static let offline: JSONValue = ["goal_type": "strength", "primary_metric": "one_rep_max", "target": ["value": 100, "unit": "kg"], "timeframe_weeks": 6]

    func goal(after analyzer: any GoalAnalyzer, timeout: Duration = .seconds(5), logs: LogRecorder) async throws -> JSONValue? {
        let d = try await driver(AirFitPlugin(analyzer: analyzer, analysisTimeout: timeout), logs: logs)
        let done = try await complete(d, replacing: [.coreAspiration: ["aspirationPreset": "describe_own", "aspirationText": .string(Self.text)]])
        #expect(done.status == .completed)
        return try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["goal"]
    }

    @Test func aWorkingAnalyzerIsUsedAsIs() async throws {
        let logs = LogRecorder()
        let fixed = StructuredGoal(goalType: .strength, primaryMetric: .oneRepMax, target: GoalTarget(value: 225, unit: .lb), timeframeWeeks: 20)
        let goal = try await goal(after: FixedAnalyzer(goal: fixed), logs: logs)
        #expect(goal?["structured"] == fixed.json)
        #expect(goal?["analysis"] == ["source": "analysis", "analyzer": "fixed", "fellBack": false])
        #expect(logs.all.isEmpty)
    }

    @Test func aFailingAnalyzerFallsBackAndTheLogNamesTheReasonNotTheText() async throws {
        let logs = LogRecorder()
        let goal = try await goal(after: ThrowingAnalyzer(), logs: logs)
        #expect(goal?["structured"] == Self.offline)
        #expect(goal?["analysis"] == ["source": "analysis", "analyzer": "offline", "fellBack": true])
        let lines = logs.all
        #expect(lines.count == 1)
        #expect(lines.first?.contains("fell back") == true)
        #expect(lines.first?.contains("Leak") == true)
        #expect(lines.allSatisfy { !$0.contains("xyzzy") && !$0.contains("Bench") })
    }

    @Test func aHangingAnalyzerFallsBackAfterItsTimeout() async throws {
        let logs = LogRecorder()
        let goal = try await goal(after: HangingAnalyzer(), timeout: .milliseconds(50), logs: logs)
        #expect(goal?["structured"] == Self.offline)
        #expect(goal?["analysis"]?["fellBack"] == true)
        #expect(logs.all.first?.contains("timed out") == true)
        #expect(logs.all.allSatisfy { !$0.contains("xyzzy") })
    }

    @Test func anAnswerOutsideTheVocabularyFallsBack() async throws {
        let logs = LogRecorder()
        // Race time measured in kilograms: no analyzer's invention reaches the persona.
        let nonsense = StructuredGoal(goalType: .endurance, primaryMetric: .raceTime, target: GoalTarget(value: 3, unit: .kg))
        let goal = try await goal(after: FixedAnalyzer(goal: nonsense), logs: logs)
        #expect(goal?["structured"] == Self.offline)
        #expect(goal?["analysis"]?["fellBack"] == true)
        #expect(logs.all.first?.contains("unusable result") == true)
    }

    @Test func theWorkErrorItselfCarriesNoText() async throws {
        let work = GoalAnalysisWork(analyzer: ThrowingAnalyzer(), timeout: .seconds(1))
            .work(for: "my private words", on: Date(timeIntervalSince1970: 0))
        await #expect(throws: GoalAnalysisError.failed(errorType: String(reflecting: ThrowingAnalyzer.Leak.self))) {
            try await work.perform()
        }
        #expect(!GoalAnalysisError.sanitized(ThrowingAnalyzer.Leak(text: "my private words")).description.contains("private"))
        #expect(work.name == "AirFit goal analysis (throwing)")
    }
}
