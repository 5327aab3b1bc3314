import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import StatLocker

/// Seed 000's validation table, row by row (steps numbered as 000 numbers them), with the
/// contract's limits, and the sport, position and club items of its testing checklist.
@Suite struct SportRowTests {
    @Test func lacrosseOpenOthersLockedWithComingSoon() async throws {
        let view = try await makeDriver().start("u1", user: alex)
        #expect(view.optionValues("sport") == ["lacrosse", "basketball", "field_hockey", "football", "baseball"])
        let lacrosse = try #require(view.option("sport", "lacrosse"))
        #expect(lacrosse["locked"] == false)
        #expect(lacrosse["label"] == "Lacrosse")
        #expect(lacrosse["detail"] == "Track games, stats, and recruiting")
        #expect(lacrosse["badge"] == nil)
        for sport in ["basketball", "field_hockey", "football", "baseball"] {
            let option = try #require(view.option("sport", sport))
            #expect(option["locked"] == true, "\(sport) should be locked")
            #expect(option["badge"] == "Coming soon")
        }
        #expect(view.option("sport", "field_hockey")?["label"] == "Field Hockey")
    }

    @Test func onlyLacrosseIsSelectable() async throws {
        let d = try await makeDriver()
        let view = try await d.start("u1", user: alex)
        for sport in ["basketball", "field_hockey", "football", "baseball"] {
            let error = await d.refuse(view, ["sport": .string(sport)])
            expectFieldError(error, field: "sport", code: .locked)
            #expect(error?.fieldErrors.first?.message.contains("coming soon") == true)
            #expect(error?.session?.stepId == "sport")
            #expect(error?.session?.revision == view.revision)
        }
        expectFieldError(await d.refuse(view, ["sport": "Lacrosse"]), field: "sport", code: .notAnOption)
        expectFieldError(await d.refuse(view, ["sport": "soccer"]), field: "sport", code: .notAnOption)
        expectFieldError(await d.refuse(view, [:]), field: "sport", code: .required)
        expectFieldError(await d.refuse(view, ["sport": 1]), field: "sport", code: .invalidType)
        let next = try await d.submit(view, ["sport": "lacrosse"])
        #expect(next.stepId == "welcome_journey")
    }

    @Test func lockedMessageIsFriendly() async throws {
        let d = try await makeDriver()
        let view = try await d.start("u1", user: alex)
        let error = await d.refuse(view, ["sport": "basketball"])
        #expect(error?.fieldErrors.first?.message == "Basketball is coming soon! We're launching with lacrosse first.")
    }
}

@Suite struct TeamGenderRowTests {
    @Test func boysOrGirlsRequired() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "team_gender")
        #expect(view.optionValues("teamGender") == ["boys", "girls"])
        #expect(view.option("teamGender", "boys")?["label"] == "Boys")
        expectFieldError(await d.refuse(view, [:]), field: "teamGender", code: .required)
        expectFieldError(await d.refuse(view, ["teamGender": "Boys"]), field: "teamGender", code: .notAnOption)
        expectFieldError(await d.refuse(view, ["teamGender": "coed"]), field: "teamGender", code: .notAnOption)
        #expect(try await d.submit(view, ["teamGender": "girls"]).stepId == "profile_details")
    }
}

@Suite struct ProfileDetailsRowTests {
    @Test func gradYearFrom2024To2030AndLevelBothRequired() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "profile_details")
        #expect(view.field("gradYear")?["type"] == "integer")
        #expect(view.field("gradYear")?["min"] == 2024)
        #expect(view.field("gradYear")?["max"] == 2030)
        #expect(view.optionValues("level") == ["Freshman", "JV", "Varsity"])

        let both = await d.refuse(view, [:])
        expectFieldError(both, field: "gradYear", code: .required)
        expectFieldError(both, field: "level", code: .required)
        #expect(both?.fieldErrors.count == 2)

        let early = await d.refuse(view, ["gradYear": 2023, "level": "JV"])
        expectFieldError(early, field: "gradYear", code: .outOfRange)
        #expect(early?.fieldErrors.first?.message == "Grad year must be between 2024 and 2030.")
        expectFieldError(await d.refuse(view, ["gradYear": 2031, "level": "JV"]), field: "gradYear", code: .outOfRange)
        expectFieldError(await d.refuse(view, ["gradYear": "2027", "level": "JV"]), field: "gradYear", code: .invalidType)
        expectFieldError(await d.refuse(view, ["gradYear": 2027.5, "level": "JV"]), field: "gradYear", code: .invalidType)
        expectFieldError(await d.refuse(view, ["gradYear": 2027, "level": "Senior"]), field: "level", code: .notAnOption)
        expectFieldError(await d.refuse(view, ["gradYear": 2027]), field: "level", code: .required)

        // Both ends of the revamp's range are accepted.
        let low = try await d.submit(view, ["gradYear": 2024, "level": "Freshman"])
        #expect(low.stepId == "position")
        let back = try await d.back(low)
        #expect(try await d.submit(back, ["gradYear": 2030, "level": "Varsity"]).stepId == "position")
    }
}

@Suite struct PositionRowTests {
    static let boysTooltips = [
        "Goalie": "We track: Save %, Saves, Goals Against, Clears, Save Zones",
        "Attack": "We track: Goals, Assists, Shots, Shooting %, Ground Balls, Turnovers",
        "Midfield": "We track: Goals, Assists, Ground Balls, Clears, Faceoffs, Caused Turnovers",
        "Defense": "We track: Ground Balls, Caused Turnovers, Clears, Penalties",
        "FOGO": "We track: Faceoff Win %, FO Wins, Ground Balls, Violations, Transition Points",
        "LSM": "We track: Ground Balls, Caused Turnovers, Clears, Penalties, Transition Points",
    ]
    static let girlsTooltips = [
        "Goalie": "We track: Save %, Saves, Goals Against, Clears",
        "Attack": "We track: Goals, Assists, Shots, Shooting %, Ground Balls, Draw Controls",
        "Midfield": "We track: Goals, Assists, Ground Balls, Draw Controls, Caused Turnovers",
        "Defense": "We track: Ground Balls, Caused Turnovers, Clears, Draw Controls",
    ]

    func tooltips(_ view: SessionView) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: view.field("position")?["options"]?.arrayValue?.compactMap { option in
                option["value"]?.stringValue.map { ($0, option["detail"]?.stringValue ?? "") }
            } ?? [])
    }

    @Test func genderChangesThePositionsAndTheirTooltips() async throws {
        let d = try await makeDriver()
        let boys = try await d.started(at: "position")
        #expect(boys.optionValues("position") == ["Goalie", "Attack", "Midfield", "Defense", "FOGO", "LSM"])
        #expect(tooltips(boys) == Self.boysTooltips)

        let girls = try await d.started("u2", at: "position", overrides: ["team_gender": ["teamGender": "girls"]])
        #expect(girls.optionValues("position") == ["Goalie", "Attack", "Midfield", "Defense"])
        #expect(tooltips(girls) == Self.girlsTooltips)
    }

    @Test func positionRequiredAndFromTheTeamsList() async throws {
        let d = try await makeDriver()
        let girls = try await d.started(at: "position", overrides: ["team_gender": ["teamGender": "girls"]])
        expectFieldError(await d.refuse(girls, [:]), field: "position", code: .required)
        expectFieldError(await d.refuse(girls, ["position": "FOGO"]), field: "position", code: .notAnOption)
        expectFieldError(await d.refuse(girls, ["position": "goalie"]), field: "position", code: .notAnOption)
        #expect(try await d.submit(girls, ["position": "Midfield"]).stepId == "team_info")
    }
}

@Suite struct TeamInfoRowTests {
    let highSchool: [String: JSONValue] = ["hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA"]

    @Test func highSchoolNameCityAndStateRequired() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "team_info")
        let error = await d.refuse(view, [:])
        expectFieldError(error, field: "hsTeamName", code: .required)
        expectFieldError(error, field: "hsCity", code: .required)
        expectFieldError(error, field: "hsState", code: .required)
        #expect(error?.fieldErrors.count == 3)
        expectFieldError(
            await d.refuse(view, ["hsTeamName": "   ", "hsCity": "Duxbury", "hsState": "MA"]),
            field: "hsTeamName", code: .required)
        expectFieldError(
            await d.refuse(view, ["hsTeamName": .string(String(repeating: "x", count: 81)), "hsCity": "Duxbury", "hsState": "MA"]),
            field: "hsTeamName", code: .tooLong)
        expectFieldError(
            await d.refuse(view, ["hsTeamName": "Duxbury", "hsCity": .string(String(repeating: "y", count: 81)), "hsState": "MA"]),
            field: "hsCity", code: .tooLong)
    }

    @Test func namesAreTrimmedAndEightyCharactersFit() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "team_info")
        let name = String(repeating: "n", count: 80)
        let next = try await d.submit(view, ["hsTeamName": .string("  \(name)  "), "hsCity": " Duxbury ", "hsState": "MA"])
        let back = try await d.back(next)
        #expect(back.value("hsTeamName") == .string(name))
        #expect(back.value("hsCity") == "Duxbury")
        #expect(back.value("hasClubTeam") == false)
    }

    @Test func stateIsATwoLetterCodeOfTheFiftyStatesAndDC() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "team_info")
        let states = view.optionValues("hsState")
        #expect(states.count == 51)
        #expect(Set(states).count == 51)
        #expect(states.contains("DC"))
        #expect(states.allSatisfy { $0.count == 2 && $0 == $0.uppercased() })
        #expect(view.option("hsState", "MA")?["label"] == "Massachusetts")
        #expect(!states.contains("PR"))
        expectFieldError(
            await d.refuse(view, ["hsTeamName": "A", "hsCity": "B", "hsState": "Massachusetts"]),
            field: "hsState", code: .notAnOption)
        expectFieldError(
            await d.refuse(view, ["hsTeamName": "A", "hsCity": "B", "hsState": "ma"]),
            field: "hsState", code: .notAnOption)
        #expect(try await d.submit(view, ["hsTeamName": "A", "hsCity": "B", "hsState": "DC"]).stepId == "season_goals")
    }

    @Test func clubFieldsShowAndAreRequiredOnlyWithTheToggle() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "team_info")
        #expect(view.field("hasClubTeam")?["type"] == "boolean")
        #expect(view.field("hasClubTeam")?["default"] == false)
        #expect(view.field("hasClubTeam")?["label"] == "I also play for a club team")
        #expect(view.field("hasClubTeam")?["helper"] == "Club stats will be tracked separately from HS.")
        for field in ["clubTeamName", "clubCity", "clubState"] {
            #expect(view.field(field)?["visibleWhen"] == ["field": "hasClubTeam", "equals": true])
        }

        var on = highSchool
        on["hasClubTeam"] = true
        let missing = await d.refuse(view, on)
        expectFieldError(missing, field: "clubTeamName", code: .required)
        expectFieldError(missing, field: "clubCity", code: .required)
        expectFieldError(missing, field: "clubState", code: .required)
        #expect(missing?.fieldErrors.count == 3)
        on["clubTeamName"] = "Laxachusetts"
        on["clubCity"] = "Boston"
        on["clubState"] = "XX"
        expectFieldError(await d.refuse(view, on), field: "clubState", code: .notAnOption)
        on["clubState"] = "MA"
        let saved = try await d.submit(view, on)
        let back = try await d.back(saved)
        #expect(back.value("clubTeamName") == "Laxachusetts")
        #expect(back.value("clubState") == "MA")
    }

    @Test func clubValuesWithTheToggleOffAreDroppedNotValidated() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "team_info")
        var off = highSchool
        off["hasClubTeam"] = false
        off["clubTeamName"] = .string(String(repeating: "z", count: 200))
        off["clubState"] = "nowhere"
        let saved = try await d.submit(view, off)
        #expect(saved.stepId == "season_goals")
        let back = try await d.back(saved)
        #expect(back.value("clubTeamName") == nil)
        #expect(back.value("clubState") == nil)
        // Leaving the switch alone means no club.
        let untouched = try await d.submit(back, highSchool)
        #expect(try await d.back(untouched).value("hasClubTeam") == false)
    }
}

@Suite struct SeasonGoalsRowTests {
    @Test func goalsAreFilteredByGenderPositionAndLevel() async throws {
        let d = try await makeDriver()
        let boysGoalieVarsity = try await d.started("a", at: "season_goals")
        #expect(
            boysGoalieVarsity.optionValues("seasonGoals") == [
                "gk-var-savepct-60", "gk-var-saves-200", "gk-var-savespg-12", "gk-var-ga-8", "gk-var-clearpct-90", "gk-var-assists-2",
            ])
        let labels = boysGoalieVarsity.field("seasonGoals")?["options"]?.arrayValue?.compactMap { $0["label"]?.stringValue }
        #expect(
            labels == [
                "60%+ save percentage", "200+ saves (season)", "12.0+ saves per game", "≤8.0 goals against per game",
                "90%+ clear success", "2+ goalie assists (season)",
            ])
        #expect(boysGoalieVarsity.option("seasonGoals", "gk-var-saves-200")?["detail"] == "Target: 200 saves")
        #expect(boysGoalieVarsity.option("seasonGoals", "gk-var-savepct-60")?["detail"] == "Target: 60%")
        #expect(boysGoalieVarsity.option("seasonGoals", "gk-var-ga-8")?["detail"] == "Target: ≤8.0 goals against per game")
        #expect(boysGoalieVarsity.option("seasonGoals", "gk-var-savespg-12")?["detail"] == "Target: 12.0 saves per game")

        let library = GoalsLibrary.shared
        let cases: [(id: String, gender: String, position: String, level: String)] = [
            ("b", "boys", "Goalie", "JV"), ("c", "boys", "FOGO", "Freshman"),
            ("d", "girls", "Goalie", "Varsity"), ("e", "girls", "Midfield", "JV"),
        ]
        for (user, gender, position, level) in cases {
            let view = try await d.started(
                user, at: "season_goals",
                overrides: [
                    "team_gender": ["teamGender": .string(gender)],
                    "profile_details": ["gradYear": 2026, "level": .string(level)],
                    "position": ["position": .string(position)],
                ])
            let expected = library.goals.filter {
                $0.gender == gender && $0.position == position && $0.level == level
            }.map(\.id)
            #expect(view.optionValues("seasonGoals") == expected, "\(gender) \(position) \(level)")
            #expect(expected.count >= 6)
            #expect(Set(expected).isDisjoint(with: boysGoalieVarsity.optionValues("seasonGoals")))
        }
    }

    @Test func exactlyThreeGoals() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "season_goals")
        let field = try #require(view.field("seasonGoals"))
        #expect(field["type"] == "multi_choice")
        #expect(field["minItems"] == 3)
        #expect(field["maxItems"] == 3)
        #expect(field["allowCustom"] == true)
        expectFieldError(await d.refuse(view, [:]), field: "seasonGoals", code: .required)
        expectFieldError(await d.refuse(view, ["seasonGoals": []]), field: "seasonGoals", code: .count)
        expectFieldError(
            await d.refuse(view, ["seasonGoals": ["gk-var-savepct-60", "gk-var-saves-200"]]),
            field: "seasonGoals", code: .count)
        expectFieldError(
            await d.refuse(view, ["seasonGoals": ["gk-var-savepct-60", "gk-var-saves-200", "gk-var-ga-8", "gk-var-assists-2"]]),
            field: "seasonGoals", code: .count)
        expectFieldError(await d.refuse(view, ["seasonGoals": "gk-var-savepct-60"]), field: "seasonGoals", code: .invalidType)
        let next = try await d.submit(view, ["seasonGoals": ["gk-var-savepct-60", "gk-var-saves-200", "gk-var-ga-8"]])
        #expect(next.stepId == "goals_locked_in")
    }

    @Test func goalsOfAnotherPositionOrLevelAreRefused() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "season_goals")
        expectFieldError(
            await d.refuse(view, ["seasonGoals": ["gk-var-savepct-60", "gk-var-saves-200", "gk-jv-ga-10"]]),
            field: "seasonGoals", code: .notAnOption)
        expectFieldError(
            await d.refuse(view, ["seasonGoals": ["gk-var-savepct-60", "gk-var-saves-200", "att-var-goals-40"]]),
            field: "seasonGoals", code: .notAnOption)
        expectFieldError(
            await d.refuse(view, ["seasonGoals": ["gk-var-savepct-60", "gk-var-saves-200", "g-gk-var-ga-9"]]),
            field: "seasonGoals", code: .notAnOption)
    }

    @Test func noDuplicates() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "season_goals")
        expectFieldError(
            await d.refuse(view, ["seasonGoals": ["gk-var-savepct-60", "gk-var-savepct-60", "gk-var-ga-8"]]),
            field: "seasonGoals", code: .duplicate)
        expectFieldError(
            await d.refuse(view, ["seasonGoals": ["gk-var-savepct-60", custom("Win the draw"), custom("  win THE  draw ")]]),
            field: "seasonGoals", code: .duplicate)
        // A custom goal that repeats a library goal picked with it is the same goal twice.
        expectFieldError(
            await d.refuse(view, ["seasonGoals": ["gk-var-savepct-60", "gk-var-ga-8", custom("60%+ Save Percentage")]]),
            field: "seasonGoals", code: .duplicate)
    }

    @Test func customGoalsCanBeAddedAndSelected() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "season_goals")
        let field = try #require(view.field("seasonGoals"))
        #expect(field["customLabel"] == "Custom Goal")
        #expect(field["itemFields"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["title", "targetValue", "unit"])
        #expect(field["itemFields"]?.arrayValue?.first?["placeholder"] == "Improve weak-side coverage")

        // Zero to three custom goals make up the three.
        let three: [String: JSONValue] = [
            "seasonGoals": [
                custom("Improve weak-side coverage"), custom("Lead the team in clears", target: 40, unit: "clears"),
                custom("Call out every slide", target: 12.5, unit: "games"),
            ]
        ]
        let saved = try await d.submit(view, three)
        #expect(saved.stepId == "goals_locked_in")
        let back = try await d.back(saved)
        #expect(
            back.value("seasonGoals") == [
                ["title": "Improve weak-side coverage"], ["title": "Lead the team in clears", "targetValue": 40, "unit": "clears"],
                ["title": "Call out every slide", "targetValue": 12.5, "unit": "games"],
            ])
    }

    @Test func customGoalTitlesAreThreeToEightyCharacters() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "season_goals")
        func goals(_ item: JSONValue) -> [String: JSONValue] { ["seasonGoals": ["gk-var-savepct-60", "gk-var-ga-8", item]] }
        expectFieldError(await d.refuse(view, goals(custom("GB"))), field: "seasonGoals", code: .tooShort)
        expectFieldError(await d.refuse(view, goals(custom("   "))), field: "seasonGoals", code: .required)
        expectFieldError(await d.refuse(view, goals(["targetValue": 3])), field: "seasonGoals", code: .required)
        expectFieldError(await d.refuse(view, goals(custom(String(repeating: "g", count: 81)))), field: "seasonGoals", code: .tooLong)
        expectFieldError(await d.refuse(view, goals(custom("Clear it", target: "ten"))), field: "seasonGoals", code: .invalidType)
        expectFieldError(await d.refuse(view, goals(custom("Clear it", target: -1))), field: "seasonGoals", code: .outOfRange)
        expectFieldError(
            await d.refuse(view, goals(custom("Clear it", unit: String(repeating: "u", count: 21)))),
            field: "seasonGoals", code: .tooLong)
        expectFieldError(await d.refuse(view, goals(["title": 42])), field: "seasonGoals", code: .invalidType)

        // Three and eighty fit; unknown keys and blank units are not kept; spaces collapse.
        let saved = try await d.submit(view, goals(["title": "  GBs   first ", "unit": "  ", "color": "red"]))
        let back = try await d.back(saved)
        #expect(back.value("seasonGoals")?.arrayValue?.last == ["title": "GBs first"])
        let eighty = try await d.submit(back, goals(custom(String(repeating: "g", count: 80))))
        #expect(eighty.stepId == "goals_locked_in")
        let short = try await d.submit(try await d.back(eighty), goals(custom("GBs")))
        #expect(short.stepId == "goals_locked_in")
    }
}

@Suite struct ToneQuizRowTests {
    @Test func fourTonesWithTheSeedsExamples() async throws {
        let d = try await makeDriver()
        let view = try await d.started(at: "tone_quiz")
        #expect(view.optionValues("aiTone") == ["Hype", "Mentor", "Analyst", "Captain"])
        #expect(view.option("aiTone", "Hype")?["detail"] == "🔥 You brought it today. Keep that edge.")
        #expect(view.option("aiTone", "Mentor")?["detail"] == "Strong step forward. Let's compound it.")
        #expect(view.option("aiTone", "Analyst")?["detail"] == "Save% +7 vs season avg. Lateral speed trending up.")
        #expect(view.option("aiTone", "Captain")?["detail"] == "Leaders show up—keep stacking wins.")
        expectFieldError(await d.refuse(view, [:]), field: "aiTone", code: .required)
        expectFieldError(await d.refuse(view, ["aiTone": "hype"]), field: "aiTone", code: .notAnOption)
        #expect(try await d.submit(view, ["aiTone": "Captain"]).stepId == "almost_there")
    }
}
