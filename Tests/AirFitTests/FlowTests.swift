import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

@testable import AirFit

@Suite struct OpeningAndProgress {
    @Test func openingScreenCarriesTheSeedCopyAndActions() async throws {
        let d = try await driver()
        let view = try await d.start("u1")
        #expect(view.stepId == "opening_screen")
        #expect(view.step?["kind"] == "content")
        #expect(view.title == "Let's design your AirFit Coach.")
        #expect(view.step?["subtitle"] == "Est. 3-4 minutes to create your personalized experience.")
        #expect(view.step?["actions"] == [["id": "continue", "label": "Begin"], ["id": "later", "label": "Maybe Later"]])
        #expect(view.step?["fields"] == [])
        #expect(view.step?["content"]?["footer"] == "Privacy & Data")
    }

    @Test func stepsComeInTheContractOrderWithProgressNOf8() async throws {
        let d = try await driver()
        var view = try await d.start("u1")
        var seen: [(String?, String?, Int?)] = []
        for values in Answers.walk {
            seen.append((view.stepId, view.progressLabel, view.progressIndex))
            view = try await d.submit(view, values)
        }
        seen.append((view.stepId, view.progressLabel, view.progressIndex))
        #expect(seen.map(\.0) == AirFitStep.allCases.map(\.rawValue))
        #expect(seen.map(\.1) == ["1 of 8", "2 of 8", "3 of 8", "4 of 8", "5 of 8", "6 of 8", "7 of 8", "8 of 8", "8 of 8"])
        #expect(view.json["progress"]?["total"] == 8)
        #expect(view.json["progress"]?["fraction"] == 1.0)
        #expect(view.step?["kind"] == "processing")
        let done = try await d.submit(view)
        #expect(done.status == .completed)
        #expect(done.progressLabel == "8 of 8")
        #expect(done.progressIndex == 8)
    }

    @Test func everyStepButTheFirstOffersBackAndEveryStepTheFooter() async throws {
        let d = try await driver()
        var view = try await d.start("u1")
        #expect(!view.actions.contains("back"))
        for values in Answers.walk {
            view = try await d.submit(view, values)
            #expect(view.actions.contains("back"), "no back on \(view.stepId ?? "?")")
            #expect(view.step?["content"]?["footer"] == "Privacy & Data", "no footer on \(view.stepId ?? "?")")
        }
        #expect(view.actions == ["continue", "back"])
        #expect(view.step?["actions"]?.arrayValue?.first?["label"] == "Create My Coach")
    }

    @Test func describeListsTheNineStepsAndTheirFields() async throws {
        let d = try await driver()
        let described = try await d.call("flow.describe")
        let steps = try #require(described["steps"]?.arrayValue)
        #expect(steps.map { $0["id"]?.stringValue } == AirFitStep.allCases.map(\.rawValue))
        #expect(
            steps.map { $0["kind"]?.stringValue } == [
                "content", "question", "question", "question", "question", "question", "question", "question", "processing",
            ])
        #expect(steps[2]["fields"] == ["aspirationPreset", "aspirationText"])
        #expect(steps[3]["fields"] == ["authoritativeDirect", "empatheticEncouraging", "analyticalInsightful", "playfullyProvocative"])
        #expect(steps[4]["fields"] == ["engagementPreset", "detailedTracking", "dailyInsights", "autoRecoveryAdjust"])
        #expect(steps[5]["fields"] == ["availability"])
        #expect(steps[6]["fields"] == ["sleepBedtime", "sleepWakeTime", "sleepRhythm"])
        #expect(steps[7]["fields"] == ["achievementAcknowledgement", "inactivityResponse", "preferredUnits"])
        #expect(described["mermaid"]?.stringValue?.contains("generating_coach --> done") == true)
    }
}

@Suite struct DeferAndResume {
    @Test func maybeLaterDefersAndStartReturnsTheDeferredSession() async throws {
        let d = try await driver()
        let view = try await d.start("u1", user: UserDetails(firstName: "Alex"))
        let deferred = try await d.submit(view, action: "later")
        #expect(deferred.status == .deferred)
        #expect(deferred.stepId == "opening_screen")
        #expect(deferred.revision == view.revision + 1)

        let resumed = try await d.start("u1")
        #expect(resumed.sessionId == view.sessionId)
        #expect(resumed.status == .deferred)
        #expect(resumed.stepId == "opening_screen")
        #expect(resumed.revision == deferred.revision)

        let begun = try await d.submit(resumed)
        #expect(begun.status == .active)
        #expect(begun.stepId == "life_snapshot")
    }

    @Test func laterIsRetrySafeAndOnlyOfferedOnTheOpeningScreen() async throws {
        let d = try await driver()
        let view = try await d.start("u1")
        let deferred = try await d.submit(view, action: "later")
        let again = try await d.submit(view, action: "later")
        #expect(again.status == .deferred)
        #expect(again.revision == deferred.revision)
        let snapshot = try await d.submit(deferred)
        let refused = await d.refuse(snapshot, action: "later")
        #expect(refused?.code == -32005)
        #expect(await d.refuse(snapshot, action: "skip")?.code == -32005)
    }

    @Test func aReturningUserResumesOnTheSavedStepWithAnswersKept() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .engagementPreferences)
        let resumed = try await d.start("u1")
        #expect(resumed.stepId == "engagement_preferences")
        #expect(resumed.revision == view.revision)
        let back = try await d.back(resumed)
        #expect(back.stepId == "coaching_style")
        #expect(back.value("analyticalInsightful") == 60)
        let aspiration = try await d.goto(back, "core_aspiration")
        #expect(aspiration.value("aspirationPreset") == "describe_own")
        #expect(aspiration.value("aspirationText") == "Run a sub-25 minute 5k in 12 weeks")
    }

    @Test func aCompletedSessionTakesNoMoreSubmits() async throws {
        let d = try await driver()
        let done = try await complete(d)
        #expect(done.status == .completed)
        #expect(done.step == nil)
        let again = try await d.start("u1")
        #expect(again.status == .completed)
        #expect(await d.refuse(again)?.code == -32005)
    }

    @Test func gateBlocksEverythingUntilTheCoachIsDesigned() async throws {
        let d = try await driver()
        _ = try await walk(d, to: .sleepAndBoundaries)
        let blocked = try await d.gate("u1", "chat")
        #expect(blocked["allowed"] == false)
        #expect(blocked["gate"] == "onboarding")
        #expect(blocked["title"] == "Finish designing your coach")
        _ = try await complete(d, user: "u2")
        #expect(try await d.gate("u2", "chat")["allowed"] == true)
    }
}
