import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AirFit

@Suite struct Completion {
    @Test func generatingCoachCompletesWithTheRecordsAndMessage() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .generatingCoach)
        #expect(view.step?["kind"] == "processing")
        #expect(view.title == "Crafting Your Coach…")
        #expect(view.step?["content"]?["messages"]?.arrayValue?.first == "Analyzing preferences…")
        let done = try await d.submit(view)
        #expect(done.status == .completed)
        #expect(done.revision == view.revision + 1)
        #expect(done.completion?["message"] == "Your AirFit Coach is ready, Alex.")
        #expect(done.completion?["records"] == ["onboarding_profile", "user"])
        // A retry of the completing submit returns the completed view and writes nothing twice.
        let retry = try await d.submit(view)
        #expect(retry.status == .completed)
        #expect(retry.revision == done.revision)
    }

    @Test func withoutANameTheMessageStaysGraceful() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .generatingCoach, details: nil)
        let done = try await d.submit(view)
        #expect(done.completion?["message"] == "Your AirFit Coach is ready.")
        #expect(done.completion?["screen"]?["body"]?.stringValue?.hasPrefix("Meet your personalized AirFit Coach. ") == true)
    }

    @Test func thePersonaOfACompleteWalkFieldByField() async throws {
        let d = try await driver()
        _ = try await complete(d)
        let profile = try await d.profile("u1")
        #expect(profile["tenant"] == "airfit")
        #expect(profile["userId"] == "u1")
        #expect(profile["completedAt"]?.stringValue?.isEmpty == false)
        let records = try #require(profile["records"]?.objectValue)
        #expect(Set(records.keys) == ["user", "onboarding_profile"])
        #expect(records["user"] == ["preferredUnits": "metric"])

        let onboarding = try #require(records["onboarding_profile"])
        #expect(Set(onboarding.objectValue?.keys ?? [:].keys) == ["personaProfile", "communicationPreferences", "establishBaseline"])
        #expect(onboarding["establishBaseline"] == true)

        let persona = try #require(onboarding["personaProfile"])
        #expect(
            Set(persona.objectValue?.keys ?? [:].keys) == [
                "schemaVersion", "lifeContext", "goal", "coachingBlend", "coachingStyleSliders", "trackingStyle",
                "availability", "sleep", "celebrationStyle", "absenceResponse", "units",
            ])
        #expect(persona["schemaVersion"] == 1)
        #expect(
            persona["lifeContext"] == [
                "deskBound": true, "onFeet": false, "frequentTravel": false, "hasChildren": true,
                "unpredictableSchedule": false, "prefersMorning": true, "prefersEvening": false,
            ])
        #expect(
            persona["goal"] == [
                "preset": "describe_own", "label": "Describe Your Own", "text": "Run a sub-25 minute 5k in 12 weeks",
                "structured": [
                    "goal_type": "endurance", "primary_metric": "race_time",
                    "target": ["value": 25, "unit": "min"], "timeframe_weeks": 12,
                ],
                "analysis": ["source": "analysis", "analyzer": "offline", "fellBack": false],
            ])
        #expect(
            persona["coachingBlend"] == [
                "authoritativeDirect": 22, "empatheticEncouraging": 34, "analyticalInsightful": 33, "playfullyProvocative": 11,
            ])
        #expect(
            persona["coachingStyleSliders"] == [
                "authoritativeDirect": 40, "empatheticEncouraging": 60, "analyticalInsightful": 60, "playfullyProvocative": 20,
            ])
        #expect(
            persona["trackingStyle"] == [
                "preset": "custom", "detailedTracking": true, "dailyInsights": false, "autoRecoveryAdjust": true,
            ])
        #expect(
            persona["availability"] == [
                ["dayOfWeek": 1, "startTime": "06:00", "endTime": "07:00", "durationMinutes": 60],
                ["dayOfWeek": 3, "startTime": "18:00", "endTime": "19:00", "durationMinutes": 60],
            ])
        #expect(
            persona["sleep"] == [
                "bedtime": "23:15", "wakeTime": "06:45", "rhythm": "weekendsDifferent", "durationMinutes": 450, "crossesMidnight": true,
            ])
        #expect(persona["celebrationStyle"] == "enthusiasticCelebratory")
        #expect(persona["absenceResponse"] == "respectSpace")
        #expect(persona["units"] == "metric")

        #expect(
            onboarding["communicationPreferences"] == [
                "quietHours": ["start": "23:15", "end": "06:45", "durationMinutes": 450],
                "achievementAcknowledgement": "enthusiasticCelebratory",
                "inactivityResponse": "respectSpace",
                "insightCadence": "weekly",
            ])
    }

    @Test func aWalkOfDefaultsGivesTheDefaultPersona() async throws {
        let d = try await driver()
        let done = try await complete(
            d,
            replacing: [
                .lifeSnapshot: [:], .coachingStyle: [:], .engagementPreferences: [:], .typicalAvailability: [:],
                .sleepAndBoundaries: [:], .motivationAndCheckins: [:], .coreAspiration: ["aspirationPreset": "build_strength"],
            ])
        #expect(done.status == .completed)
        let onboarding = try await d.profile("u1")["records"]?["onboarding_profile"]
        let persona = onboarding?["personaProfile"]
        #expect(persona?["lifeContext"]?.objectValue?.values.allSatisfy { $0 == false } == true)
        #expect(
            persona?["coachingBlend"] == [
                "authoritativeDirect": 22, "empatheticEncouraging": 34, "analyticalInsightful": 33, "playfullyProvocative": 11,
            ])
        #expect(
            persona?["trackingStyle"] == [
                "preset": "dataDrivenPartnership", "detailedTracking": true, "dailyInsights": true, "autoRecoveryAdjust": true,
            ])
        #expect(persona?["availability"] == [])
        #expect(
            persona?["sleep"] == [
                "bedtime": "22:30", "wakeTime": "06:30", "rhythm": "consistent", "durationMinutes": 480, "crossesMidnight": true,
            ])
        #expect(persona?["units"] == "imperial")
        #expect(
            onboarding?["communicationPreferences"] == [
                "quietHours": ["start": "22:30", "end": "06:30", "durationMinutes": 480],
                "achievementAcknowledgement": "subtleAffirming", "inactivityResponse": "gentleNudge", "insightCadence": "daily",
            ])
    }

    @Test func allSlidersAtZeroBlendEvenly() async throws {
        let d = try await driver()
        _ = try await complete(
            d,
            replacing: [
                .coachingStyle: [
                    "authoritativeDirect": 0, "empatheticEncouraging": 0, "analyticalInsightful": 0, "playfullyProvocative": 0,
                ]
            ])
        let blend = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["coachingBlend"]
        #expect(blend == ["authoritativeDirect": 25, "empatheticEncouraging": 25, "analyticalInsightful": 25, "playfullyProvocative": 25])
    }

    @Test func theCoachProfileReadyScreen() async throws {
        let d = try await driver()
        let done = try await complete(d)
        let screen = try #require(done.completion?["screen"])
        #expect(screen["title"] == "Your AirFit Coach Is Ready")
        #expect(screen["body"] == "Meet your personalized AirFit Coach, Alex. Here is what your choices defined. You can refine any of it later.")
        #expect(
            screen["actions"] == [
                ["id": "begin", "label": "Begin with My Coach"], ["id": "refine", "label": "Review & Refine Settings"],
            ])
        let summary = try #require(screen["summary"]?.arrayValue)
        #expect(
            summary.map { $0["id"]?.stringValue } == [
                "coachingStyle", "aspiration", "engagementStyle", "communicationBoundaries", "establishBaseline",
            ])
        #expect(
            summary.map { $0["label"]?.stringValue } == [
                "Coaching Style", "Primary Aspiration", "Engagement Style", "Communication Boundaries", "Initial Focus",
            ])
        #expect(
            summary[0]["text"]
                == .string(
                    "Primarily Empathetic & Encouraging, balanced with Analytical & Insightful and "
                        + "Authoritative & Direct, with a touch of Playful & Provocative. Expect steady encouragement and genuine understanding."))
        #expect(summary[2]["text"] == "Customized: detailed tracking, weekly summaries and proactive recovery adjustments.")
        #expect(
            summary[3]["text"]
                == .string(
                    "Quiet from 23:15 to 06:45 while you sleep. "
                        + "If you go quiet for a few days, your coach gives you space until you return."))
        #expect(summary[4]["field"] == "establishBaseline")
        #expect(summary[4]["value"] == true)
        // The view shows the same screen on every later read.
        #expect(try await d.start("u1").completion?["screen"] == screen)
    }
}

@Suite struct ProfileUpdates {
    @Test func establishBaselineDefaultsToTrueAndChangesThroughProfileUpdate() async throws {
        let d = try await driver()
        _ = try await complete(d)
        #expect(try await d.profile("u1")["records"]?["onboarding_profile"]?["establishBaseline"] == true)
        let updated = try await d.call("profile.update", ["userId": "u1", "values": ["establishBaseline": false]])
        #expect(updated["records"]?["onboarding_profile"]?["establishBaseline"] == false)
        let reread = try await d.profile("u1")["records"]?["onboarding_profile"]
        #expect(reread?["establishBaseline"] == false)
        #expect(reread?["personaProfile"]?["schemaVersion"] == 1)
        #expect(
            try await d.call("profile.update", ["userId": "u1", "values": ["establishBaseline": true]])["records"]?["onboarding_profile"]?["establishBaseline"]
                == true)
    }

    @Test func onlyEstablishBaselineIsEditableAndOnlyAsABoolean() async throws {
        let d = try await driver()
        _ = try await complete(d)
        let other = await d.error("profile.update", ["userId": "u1", "values": ["preferredUnits": "imperial", "establishBaseline": false]])
        #expect(other?.code == -32004)
        #expect(codes(other) == ["preferredUnits": .notEditable])
        #expect(try await d.profile("u1")["records"]?["onboarding_profile"]?["establishBaseline"] == true)
        let wrong = await d.error("profile.update", ["userId": "u1", "values": ["establishBaseline": "no"]])
        #expect(codes(wrong) == ["establishBaseline": .invalidType])
        let null = await d.error("profile.update", ["userId": "u1", "values": ["establishBaseline": nil]])
        #expect(codes(null) == ["establishBaseline": .required])
    }

    @Test func beforeCompletionThereIsNoProfile() async throws {
        let d = try await driver()
        _ = try await walk(d, to: .generatingCoach)
        #expect(await d.error("profile.get", ["userId": "u1"])?.code == -32002)
        #expect(await d.error("profile.update", ["userId": "u1", "values": ["establishBaseline": false]])?.code == -32002)
    }
}
