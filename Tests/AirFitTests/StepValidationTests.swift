import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AirFit

@Suite struct LifeSnapshot {
    @Test func offersEveryFlagAndAcceptsAnyCombinationIncludingNone() async throws {
        let d = try await driver()
        var view = try await walk(d, to: .lifeSnapshot)
        let field = try #require(view.field("lifeSnapshot"))
        #expect(field["type"] == "multi_choice")
        #expect(field["required"] == false)
        #expect(field["default"] == [])
        #expect(
            field["options"]?.arrayValue?.map { $0["value"]?.stringValue } == [
                "deskBound", "onFeet", "frequentTravel", "hasChildren", "unpredictableSchedule", "prefersMorning", "prefersEvening",
            ])
        view = try await d.submit(view)
        view = try await d.back(view)
        #expect(view.value("lifeSnapshot") == [])
        view = try await d.submit(view, ["lifeSnapshot": .array(LifeSnapshotFlag.allCases.map { .string($0.rawValue) })])
        #expect(view.stepId == "core_aspiration")
    }

    @Test func refusesUnknownFlagsDuplicatesAndWrongTypes() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .lifeSnapshot)
        #expect(codes(await d.refuse(view, ["lifeSnapshot": ["nightShift"]])) == ["lifeSnapshot": .notAnOption])
        let duplicate = await d.refuse(view, ["lifeSnapshot": ["deskBound", "deskBound"]])
        #expect(codes(duplicate) == ["lifeSnapshot": .duplicate])
        #expect(duplicate?.fieldErrors.first?.message == "Each option can be chosen only once.")
        #expect(codes(await d.refuse(view, ["lifeSnapshot": "deskBound"])) == ["lifeSnapshot": .invalidType])
        #expect(codes(await d.refuse(view, ["lifeSnapshot": [["title": "custom"]]])) == ["lifeSnapshot": .invalidType])
    }
}

@Suite struct EngagementPreferences {
    /// Each preset stands for one setting of the three switches.
    @Test(arguments: [
        ("dataDrivenPartnership", true, true, true, "daily"),
        ("consistentBalanced", false, false, true, "weekly"),
        ("guidanceOnDemand", false, false, false, "onRequest"),
    ])
    func everyPresetStandsForItsSettings(preset: String, tracking: Bool, insights: Bool, recovery: Bool, cadence: String) async throws {
        let d = try await driver()
        // Switches posted with a preset are hidden, so they are dropped.
        let done = try await complete(
            d,
            replacing: [
                .engagementPreferences: [
                    "engagementPreset": .string(preset), "detailedTracking": .bool(!tracking),
                ]
            ])
        let records = try await d.profile("u1")["records"]
        #expect(
            records?["onboarding_profile"]?["personaProfile"]?["trackingStyle"] == [
                "preset": .string(preset), "detailedTracking": .bool(tracking), "dailyInsights": .bool(insights),
                "autoRecoveryAdjust": .bool(recovery),
            ])
        #expect(records?["onboarding_profile"]?["communicationPreferences"]?["insightCadence"] == .string(cadence))
        let summary = done.completion?["screen"]?["summary"]?.arrayValue?.first { $0["id"] == "engagementStyle" }
        let chosen = try #require(EngagementPreset(rawValue: preset))
        #expect(summary?["text"] == .string("\(chosen.label). \(chosen.detail)"))
    }

    @Test func theCustomPathKeepsItsSwitches() async throws {
        let d = try await driver()
        let done = try await complete(
            d,
            replacing: [
                .engagementPreferences: [
                    "engagementPreset": "custom", "detailedTracking": false, "dailyInsights": true, "autoRecoveryAdjust": false,
                ]
            ])
        let tracking = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["trackingStyle"]
        #expect(tracking == ["preset": "custom", "detailedTracking": false, "dailyInsights": true, "autoRecoveryAdjust": false])
        let summary = done.completion?["screen"]?["summary"]?.arrayValue?.first { $0["id"] == "engagementStyle" }
        #expect(summary?["text"] == "Customized: key metrics only, daily insights and no automatic plan changes.")
    }

    @Test func fieldsShowTheDefaultAndTheSwitchesOnlyForCustom() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .engagementPreferences)
        let preset = try #require(view.field("engagementPreset"))
        #expect(preset["default"] == "dataDrivenPartnership")
        #expect(preset["required"] == false)
        #expect(
            preset["options"]?.arrayValue?.map { $0["value"]?.stringValue } == [
                "dataDrivenPartnership", "consistentBalanced", "guidanceOnDemand", "custom",
            ])
        for id in ["detailedTracking", "dailyInsights", "autoRecoveryAdjust"] {
            let field = try #require(view.field(id))
            #expect(field["type"] == "boolean")
            #expect(field["visibleWhen"] == ["field": "engagementPreset", "equals": "custom"])
            #expect(field["default"] == true)
        }
    }

    @Test func nothingPostedTakesTheDefaultPresetAndCustomSwitchesDefaultOn() async throws {
        let d = try await driver()
        var view = try await walk(d, to: .engagementPreferences)
        view = try await d.submit(view)
        view = try await d.back(view)
        #expect(view.value("engagementPreset") == "dataDrivenPartnership")
        #expect(view.value("detailedTracking") == nil)
        view = try await d.submit(view, ["engagementPreset": "custom", "dailyInsights": false])
        view = try await d.back(view)
        #expect(view.value("detailedTracking") == true)
        #expect(view.value("dailyInsights") == false)
        #expect(view.value("autoRecoveryAdjust") == true)
        // Back to a preset: the custom switches are not kept.
        view = try await d.submit(view, ["engagementPreset": "guidanceOnDemand"])
        view = try await d.back(view)
        #expect(view.value("dailyInsights") == nil)
    }

    @Test func refusesUnknownPresetsAndNonBooleanSwitches() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .engagementPreferences)
        #expect(codes(await d.refuse(view, ["engagementPreset": "coachOnCall"])) == ["engagementPreset": .notAnOption])
        let error = await d.refuse(view, ["engagementPreset": "custom", "detailedTracking": "yes", "dailyInsights": 1])
        #expect(codes(error) == ["detailedTracking": .invalidType, "dailyInsights": .invalidType])
        #expect(error?.fieldErrors.first?.message == "Detailed tracking is either on or off.")
    }
}

@Suite struct TypicalAvailability {
    func block(_ day: JSONValue, _ start: JSONValue, _ end: JSONValue) -> JSONValue {
        ["dayOfWeek": day, "startTime": start, "endTime": end]
    }

    @Test func theFieldIsAListOfDayStartAndEnd() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .typicalAvailability)
        let field = try #require(view.field("availability"))
        #expect(field["type"] == "list")
        #expect(field["required"] == false)
        #expect(field["minItems"] == 0)
        #expect(field["maxItems"] == 21)
        #expect(field["itemFields"]?.arrayValue?.map { $0["id"]?.stringValue } == ["dayOfWeek", "startTime", "endTime"])
        #expect(field["itemFields"]?.arrayValue?.first?["min"] == 1)
        #expect(field["itemFields"]?.arrayValue?.first?["max"] == 7)
        #expect(field["itemFields"]?.arrayValue?.map { $0["type"]?.stringValue } == ["integer", "time", "time"])
    }

    /// Every error of every block is reported at once, each on the list field.
    @Test func everyBadKeyOfEveryBlockIsReportedTogether() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .typicalAvailability)
        let refused = await d.refuse(view, ["availability": [block(9, "25:00", "09:00"), block(2, "08:00", "nine")]])
        let errors = refused?.fieldErrors ?? []
        #expect(errors.count == 3, "\(errors)")
        #expect(errors.allSatisfy { $0.field == "availability" })
        #expect(errors.map(\.message).filter { $0.hasPrefix("Entry 1:") }.count == 2)
        #expect(errors.map(\.message).filter { $0.hasPrefix("Entry 2:") }.count == 1)
    }

    /// Four bad blocks among good ones: each block's own errors and the step's rules (end before
    /// start, too short, overlaps, run on the blocks that passed) come back in one reply.
    @Test func theStepsRulesComeInTheSameReplyAsTheBlocksOwnErrors() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .typicalAvailability)
        let refused = await d.refuse(
            view,
            [
                "availability": [
                    block(8, "06:00", "07:00"), block(1, "6am", "07:00"),
                    block(2, "09:00", "08:00"), block(3, "10:00", "10:10"),
                    block(4, "07:00", "08:00"), block(4, "07:30", "09:00"),
                ]
            ])
        let errors = refused?.fieldErrors ?? []
        #expect(errors.map(\.code) == [.outOfRange, .invalidFormat, .outOfRange, .outOfRange, .overlap], "\(errors)")
        #expect(errors.allSatisfy { $0.field == "availability" })
        #expect(errors[0].message.hasPrefix("Entry 1:") && errors[1].message.hasPrefix("Entry 2:"))
        #expect(errors[2].message.contains("the end time must be after the start time"))
        #expect(errors[3].message.contains("at least 15 minutes"))
        #expect(errors[4].message.contains("overlaps"))
    }

    @Test func noBlocksAndUpTo21AreAccepted() async throws {
        let d = try await driver()
        var view = try await walk(d, to: .typicalAvailability)
        view = try await d.submit(view)
        view = try await d.back(view)
        #expect(view.value("availability") == [])
        let full: [JSONValue] = (1...7).flatMap { day in
            [("06:00", "07:00"), ("12:00", "12:15"), ("18:00", "23:59")].map { block(.int(Int64(day)), .string($0.0), .string($0.1)) }
        }
        view = try await d.submit(view, ["availability": .array(full)])
        #expect(view.stepId == "sleep_and_boundaries")
        view = try await d.back(view)
        let tooMany = await d.refuse(view, ["availability": .array(full + [block(1, "08:00", "09:00")])])
        #expect(codes(tooMany) == ["availability": .count])
        #expect(tooMany?.fieldErrors.first?.message == "Add at most 21 availability blocks.")
    }

    @Test func blocksAreKeptInWeekOrder() async throws {
        let d = try await driver()
        var view = try await walk(d, to: .typicalAvailability)
        view = try await d.submit(view, ["availability": [block(5, "07:00", "08:00"), block(1, "18:00", "19:00"), block(1, "06:00", "06:30")]])
        view = try await d.back(view)
        #expect(view.value("availability") == [block(1, "06:00", "06:30"), block(1, "18:00", "19:00"), block(5, "07:00", "08:00")])
    }

    @Test func eachItemIsChecked() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .typicalAvailability)
        let day = await d.refuse(view, ["availability": [block(8, "06:00", "07:00")]])
        #expect(codes(day) == ["availability": .outOfRange])
        #expect(day?.fieldErrors.first?.message == "Entry 1: Day of week runs from 1 (Monday) to 7 (Sunday).")
        let time = await d.refuse(view, ["availability": [block(1, "06:00", "07:00"), block(2, "6am", "07:00")]])
        #expect(codes(time) == ["availability": .invalidFormat])
        #expect(time?.fieldErrors.first?.message.hasPrefix("Entry 2: Start time must be a time written HH:mm") == true)
        let missing = await d.refuse(view, ["availability": [["dayOfWeek": 1, "startTime": "06:00"]]])
        #expect(codes(missing) == ["availability": .required])
        #expect(
            codes(await d.refuse(view, ["availability": [["dayOfWeek": "Mon", "startTime": "06:00", "endTime": "07:00"]]])) == ["availability": .invalidType])
        #expect(codes(await d.refuse(view, ["availability": "mornings"])) == ["availability": .invalidType])
    }

    @Test func endMustBeAfterStartByAtLeast15Minutes() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .typicalAvailability)
        let backwards = await d.refuse(view, ["availability": [block(2, "21:00", "20:00")]])
        #expect(codes(backwards) == ["availability": .outOfRange])
        #expect(
            backwards?.fieldErrors.first?.message
                == "Tuesday 21:00–20:00: the end time must be after the start time. Split a block that runs past midnight into two days.")
        let empty = await d.refuse(view, ["availability": [block(2, "21:00", "21:00")]])
        #expect(codes(empty) == ["availability": .outOfRange])
        let short = await d.refuse(view, ["availability": [block(7, "09:00", "09:14")]])
        #expect(short?.fieldErrors.first?.message == "Sunday 09:00–09:14 is 14 minutes; blocks need at least 15 minutes.")
        let exact = try await d.submit(view, ["availability": [block(7, "09:00", "09:15")]])
        #expect(exact.stepId == "sleep_and_boundaries")
    }

    @Test func overlapsWithinADayAreNamed() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .typicalAvailability)
        let error = await d.refuse(
            view,
            [
                "availability": [
                    block(1, "08:00", "09:00"), block(3, "08:00", "09:00"), block(1, "07:00", "08:30"), block(1, "08:45", "10:00"),
                ]
            ])
        #expect(error?.code == -32004)
        #expect(error?.fieldErrors.map(\.code) == [.overlap, .overlap])
        #expect(
            error?.fieldErrors.map(\.message) == [
                "Monday 07:00–08:30 overlaps Monday 08:00–09:00. Adjust or remove one of them.",
                "Monday 08:00–09:00 overlaps Monday 08:45–10:00. Adjust or remove one of them.",
            ])
        // Identical blocks overlap too; touching blocks and the same hours on other days do not.
        #expect(codes(await d.refuse(view, ["availability": [block(4, "12:00", "13:00"), block(4, "12:00", "13:00")]])) == ["availability": .overlap])
        let touching = try await d.submit(view, ["availability": [block(1, "08:00", "09:00"), block(1, "09:00", "10:00"), block(2, "08:00", "09:00")]])
        #expect(touching.stepId == "sleep_and_boundaries")
    }

    @Test func everyProblemIsListedAtOnce() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .typicalAvailability)
        let error = await d.refuse(
            view,
            [
                "availability": [
                    block(1, "10:00", "09:00"), block(2, "10:00", "10:05"), block(3, "10:00", "12:00"), block(3, "11:00", "13:00"),
                ]
            ])
        #expect(error?.fieldErrors.map(\.code) == [.outOfRange, .outOfRange, .overlap])
    }
}

@Suite struct SleepAndBoundaries {
    @Test func defaultsAreShownAndTakenWhenNothingIsPosted() async throws {
        let d = try await driver()
        var view = try await walk(d, to: .sleepAndBoundaries)
        #expect(view.field("sleepBedtime")?["default"] == "22:30")
        #expect(view.field("sleepWakeTime")?["default"] == "06:30")
        #expect(view.field("sleepRhythm")?["default"] == "consistent")
        #expect(view.field("sleepBedtime")?["type"] == "time")
        #expect(
            view.field("sleepRhythm")?["options"]?.arrayValue?.map { $0["value"]?.stringValue } == [
                "consistent", "weekendsDifferent", "highlyVariable",
            ])
        view = try await d.submit(view)
        view = try await d.back(view)
        #expect(view.value("sleepBedtime") == "22:30")
        #expect(view.value("sleepWakeTime") == "06:30")
        #expect(view.value("sleepRhythm") == "consistent")
    }

    /// Durations across midnight and within a day, at and beyond the 3 and 14 hour limits.
    @Test(arguments: [
        ("22:30", "06:30", true), ("23:00", "02:00", true), ("23:00", "01:59", false),
        ("20:00", "10:00", true), ("19:59", "10:00", false), ("00:30", "08:00", true),
        ("01:00", "03:59", false), ("13:00", "16:00", true), ("06:00", "22:00", false), ("07:00", "07:00", false),
    ])
    func durationsFromThreeToFourteenHoursAreAccepted(bedtime: String, wake: String, accepted: Bool) async throws {
        let d = try await driver()
        let view = try await walk(d, to: .sleepAndBoundaries)
        let values: [String: JSONValue] = ["sleepBedtime": .string(bedtime), "sleepWakeTime": .string(wake)]
        if accepted {
            #expect(try await d.submit(view, values).stepId == "motivation_and_checkins")
        } else {
            let error = await d.refuse(view, values)
            #expect(error?.fieldErrors.count == 1)
            #expect(error?.fieldErrors.first?.code == .outOfRange)
            #expect(error?.fieldErrors.first?.field == nil)
        }
    }

    @Test func anOutOfRangeWindowIsExplained() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .sleepAndBoundaries)
        let long = await d.refuse(view, ["sleepBedtime": "23:00", "sleepWakeTime": "14:30"])
        #expect(
            long?.fieldErrors.first?.message
                == "From 23:00 to 14:30 is 15 hours 30 minutes of sleep. Choose a bedtime and wake time between 3 and 14 hours apart.")
        let short = await d.refuse(view, ["sleepWakeTime": "00:30"])
        #expect(
            short?.fieldErrors.first?.message
                == "From 22:30 to 00:30 is 2 hours of sleep. Choose a bedtime and wake time between 3 and 14 hours apart.")
        let same = await d.refuse(view, ["sleepBedtime": "07:00", "sleepWakeTime": "07:00"])
        #expect(same?.fieldErrors.first?.message == "Your bedtime and wake time are both 07:00. Choose times between 3 and 14 hours apart.")
    }

    @Test func timesAndRhythmMustBeValid() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .sleepAndBoundaries)
        let error = await d.refuse(view, ["sleepBedtime": "10:30 PM", "sleepWakeTime": "24:00", "sleepRhythm": "chaotic"])
        #expect(codes(error) == ["sleepBedtime": .invalidFormat, "sleepWakeTime": .invalidFormat, "sleepRhythm": .notAnOption])
        #expect(error?.fieldErrors.first { $0.field == "sleepBedtime" }?.message == "Typical bedtime must be a time written HH:mm, such as 22:30.")
        #expect(codes(await d.refuse(view, ["sleepBedtime": 2230])) == ["sleepBedtime": .invalidType])
    }

    @Test func spokenDurations() {
        #expect(SleepWindow.spoken(minutes: 480) == "8 hours")
        #expect(SleepWindow.spoken(minutes: 61) == "1 hour 1 minute")
        #expect(SleepWindow.spoken(minutes: 45) == "45 minutes")
        #expect(SleepWindow(bedtime: ClockTime("23:15")!, wakeTime: ClockTime("06:45")!).durationMinutes == 450)
        #expect(SleepWindow(bedtime: ClockTime("01:00")!, wakeTime: ClockTime("09:00")!).crossesMidnight == false)
    }
}

@Suite struct MotivationAndCheckins {
    @Test func defaultsAndOptions() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .motivationAndCheckins)
        #expect(view.field("achievementAcknowledgement")?["default"] == "subtleAffirming")
        #expect(view.field("inactivityResponse")?["default"] == "gentleNudge")
        #expect(view.field("preferredUnits")?["default"] == "imperial")
        #expect(
            view.field("achievementAcknowledgement")?["options"]?.arrayValue?.map { $0["value"]?.stringValue } == [
                "subtleAffirming", "enthusiasticCelebratory",
            ])
        #expect(view.field("inactivityResponse")?["options"]?.arrayValue?.map { $0["value"]?.stringValue } == ["gentleNudge", "respectSpace"])
        #expect(view.field("preferredUnits")?["options"]?.arrayValue?.map { $0["value"]?.stringValue } == ["imperial", "metric"])
        for id in ["achievementAcknowledgement", "inactivityResponse", "preferredUnits"] {
            #expect(view.field(id)?["required"] == false)
        }
    }

    @Test func nothingPostedCompletesWithTheDefaults() async throws {
        let d = try await driver()
        let done = try await complete(d, replacing: [.motivationAndCheckins: [:]])
        #expect(done.status == .completed)
        let records = try await d.profile("u1")["records"]
        #expect(records?["user"] == ["preferredUnits": "imperial"])
        #expect(records?["onboarding_profile"]?["personaProfile"]?["celebrationStyle"] == "subtleAffirming")
        #expect(records?["onboarding_profile"]?["personaProfile"]?["absenceResponse"] == "gentleNudge")
    }

    @Test func refusesValuesThatAreNotOptions() async throws {
        let d = try await driver()
        let view = try await walk(d, to: .motivationAndCheckins)
        let error = await d.refuse(view, ["achievementAcknowledgement": "loud", "inactivityResponse": "call", "preferredUnits": "nautical"])
        #expect(codes(error) == ["achievementAcknowledgement": .notAnOption, "inactivityResponse": .notAnOption, "preferredUnits": .notAnOption])
        #expect(error?.fieldErrors.first { $0.field == "preferredUnits" }?.message == "Choose imperial or metric units.")
    }
}
