import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import Testing

@testable import StatLocker

/// Resources/goals.json: coverage, ids, fields, tracking keys and the documented level rule.
@Suite struct GoalsLibraryTests {
    let library = GoalsLibrary.shared

    static let positionsByGender = [
        "boys": ["Goalie", "Attack", "Midfield", "Defense", "FOGO", "LSM"],
        "girls": ["Goalie", "Attack", "Midfield", "Defense"],
    ]

    @Test func everyGenderPositionAndLevelHasAtLeastSixGoals() {
        for (gender, positions) in Self.positionsByGender {
            for position in positions {
                for level in ["Freshman", "JV", "Varsity"] {
                    let goals = library.goals(sport: "lacrosse", gender: gender, position: position, level: level)
                    #expect(goals.count >= 6, "\(gender) \(position) \(level) has \(goals.count) goals")
                    #expect(Set(goals.map { $0.title.lowercased() }).count == goals.count, "titles repeat in \(gender) \(position) \(level)")
                }
            }
        }
        let combinations = Set(library.goals.map { "\($0.sport)/\($0.gender)/\($0.position)/\($0.level)" })
        #expect(combinations.count == 30, "only the contract's positions and levels: \(combinations.sorted())")
    }

    @Test func idsAreUniqueAndFieldsWellFormed() {
        #expect(Set(library.goals.map(\.id)).count == library.goals.count)
        for goal in library.goals {
            #expect(GoalTemplate.metricTypes.contains(goal.metricType))
            #expect(!goal.title.isEmpty && goal.title.count <= 80)
            #expect(!goal.unit.isEmpty)
            #expect(goal.target > 0)
            if goal.metricType == "percent" {
                #expect(goal.target < 1, "\(goal.id): percent targets are fractions")
                #expect(goal.unit == "%")
            }
            #expect(goal.id.range(of: "^(g-)?[a-z]+-(fr|jv|var)-[a-z]+-[0-9p]+$", options: .regularExpression) != nil, "\(goal.id)")
        }
    }

    @Test func boysGoalieVarsityIsTheSeedsSix() {
        let goals = library.goals(sport: "lacrosse", gender: "boys", position: "Goalie", level: "Varsity")
        #expect(
            goals.map(\.title) == [
                "60%+ save percentage", "200+ saves (season)", "12.0+ saves per game", "≤8.0 goals against per game",
                "90%+ clear success", "2+ goalie assists (season)",
            ])
        let savePercentage = library.goal("gk-var-savepct-60")
        #expect(
            savePercentage
                == GoalTemplate(
                    id: "gk-var-savepct-60", sport: "lacrosse", gender: "boys", position: "Goalie", level: "Varsity",
                    title: "60%+ save percentage", metricType: "percent", target: 0.6, unit: "%", trackingKey: "save_pct"))
        #expect(goals.map(\.metricType) == ["percent", "count", "rate", "max", "percent", "count"])
        #expect(goals.map(\.target) == [0.6, 200, 12, 8, 0.9, 2])
    }

    /// Tracking keys come from the stats each position's tooltip lists (snake case, `%` as
    /// `pct`); the one exception is the seed's own "goalie assists" goal.
    @Test func trackingKeysComeFromThePositionsTooltip() {
        for gender in TeamGender.allCases {
            for position in Positions.positions(sport: "lacrosse", gender: gender) {
                let keys = Set(position.trackingKeys)
                for goal in library.goals(sport: "lacrosse", gender: gender.rawValue, position: position.name, level: "Varsity") {
                    if goal.id == "gk-var-assists-2" { continue }
                    #expect(keys.contains(goal.trackingKey), "\(goal.id) tracks \(goal.trackingKey), not in \(position.tooltip)")
                }
            }
        }
        #expect(Position.trackingKey(for: "Faceoff Win %") == "faceoff_win_pct")
        #expect(Position.trackingKey(for: "FO Wins") == "fo_wins")
        #expect(library.goal("gk-var-assists-2")?.trackingKey == "assists")
    }

    /// The rule in Docs/plugins/statlocker.md, recomputed here from each Varsity goal.
    @Test func lowerLevelsFollowTheDocumentedScalingRule() throws {
        func nearest(_ value: Double, _ step: Double) -> Double { ((value / step) + 0.5 + 1e-9).rounded(.down) * step }
        func expected(_ varsity: GoalTemplate, _ level: String) -> Double {
            let low = level == "Freshman"
            switch varsity.metricType {
            case "percent": return ((varsity.target * 100).rounded() - (low ? 10 : 5)) / 100
            case "count": return max(1, nearest(varsity.target * (low ? 0.6 : 0.8), varsity.target >= 50 ? 5 : 1))
            case "rate": return max(0.5, nearest(varsity.target * (low ? 0.6 : 0.8), 0.5))
            default: return nearest(varsity.target * (low ? 1.5 : 1.25), 0.5)
            }
        }
        for (gender, positions) in Self.positionsByGender {
            for position in positions {
                let varsity = library.goals(sport: "lacrosse", gender: gender, position: position, level: "Varsity")
                for level in ["JV", "Freshman"] {
                    let lower = library.goals(sport: "lacrosse", gender: gender, position: position, level: level)
                    try #require(lower.count == varsity.count)
                    for (anchor, goal) in zip(varsity, lower) {
                        #expect(goal.trackingKey == anchor.trackingKey)
                        #expect(goal.metricType == anchor.metricType)
                        #expect(goal.unit == anchor.unit)
                        #expect(abs(goal.target - expected(anchor, level)) < 1e-9, "\(goal.id): \(goal.target)")
                    }
                }
            }
        }
        #expect(library.goal("gk-jv-savepct-55")?.title == "55%+ save percentage")
        #expect(library.goal("gk-fr-ga-12")?.title == "≤12.0 goals against per game")
        #expect(library.goal("gk-jv-saves-160")?.title == "160+ saves (season)")
    }

    @Test func targetLinesReadNaturally() throws {
        #expect(library.goal("gk-var-savepct-60")?.targetLine == "Target: 60%")
        #expect(library.goal("gk-var-saves-200")?.targetLine == "Target: 200 saves")
        #expect(library.goal("gk-jv-savespg-9p5")?.targetLine == "Target: 9.5 saves per game")
        #expect(library.goal("gk-var-ga-8")?.targetLine == "Target: ≤8.0 goals against per game")
    }

    @Test func malformedLibrariesAreRefused() throws {
        #expect(throws: GoalsLibrary.LoadError.self) { try GoalsLibrary(json: ["goals": [["id": "x"]]]) }
        #expect(throws: GoalsLibrary.LoadError.self) { try GoalsLibrary(json: [:]) }
        let goal = try #require(library.goal("gk-var-savepct-60"))
        #expect(throws: GoalsLibrary.LoadError.self) { try GoalsLibrary(goals: [goal, goal]) }
    }
}

/// The sports list is data: every open sport can be completed, every locked one says so.
@Suite struct SportsDataTests {
    @Test func everyOpenSportHasPositionsAndGoals() {
        for sport in Sports.all where sport.isOpen {
            for gender in TeamGender.allCases {
                let positions = Positions.positions(sport: sport.id, gender: gender)
                #expect(!positions.isEmpty, "\(sport.id) is open but has no \(gender) positions")
                for position in positions {
                    for level in Level.allCases {
                        #expect(
                            GoalsLibrary.shared.goals(
                                sport: sport.id, gender: gender.rawValue, position: position.name, level: level.rawValue
                            ).count >= 3, "\(sport.id) \(gender) \(position.name) \(level) cannot fill 3 goals")
                    }
                }
            }
        }
    }

    @Test func onlyLacrosseIsOpenAtLaunch() {
        #expect(Sports.all.filter(\.isOpen).map(\.id) == ["lacrosse"])
        #expect(Sports.options.filter(\.locked).allSatisfy { $0.badge == "Coming soon" && $0.lockedMessage != nil })
    }
}
