import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

@testable import StatLocker

/// StatLocker in Spanish: every path the walk answers take, every position's and level's goals,
/// the refusals, the review and the completion, with the same ids and values as in English and
/// no text left in English.
@Suite struct SpanishTests {
    /// Walks for each team, level and position the flow offers, with the walk answers'
    /// other steps; the goals are the first two the library offers there.
    @Test func everyPathInSpanishKeepsTheEnglishShapeAndLeavesNoEnglish() async throws {
        let driver = try await FlowDriver(plugin: StatLockerPlugin())
        var untranslated: [String] = []
        var walks = 0
        let known: Set<String> = ["Duxbury High School", "Laxachusetts", "Alex", "Athlete"]
        for gender in ["boys", "girls"] {
            for level in ["Freshman", "JV", "Varsity"] {
                var answers = Dictionary(uniqueKeysWithValues: WalkAnswers.lacrosseMidfielder.map { ($0.step, $0.values) })
                answers["team_gender"] = ["teamGender": .string(gender)]
                answers["profile_details"] = ["gradYear": 2027, "level": .string(level)]
                answers["season_goals"] = nil
                let probe = try await driver.walk("probe-\(gender)-\(level)", to: "position", answers: answers)
                let positions = probe.step?.fields.first?.options?.filter { !$0.locked }.map(\.value) ?? []
                #expect(!positions.isEmpty)
                for position in positions {
                    answers["position"] = ["position": .string(position)]
                    answers["team_info"] =
                        walks % 2 == 0
                        ? answers["team_info"] : ["hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": false]
                    let report = try await LocaleWalk(driver: driver, locale: "es").walk(
                        "w\(walks)", user: UserDetails(firstName: "Alex"), answers: answers, known: known)
                    walks += 1
                    #expect(report.differences.isEmpty, "\(gender) \(level) \(position): \(report.differences)")
                    #expect(report.status == .completed, "\(gender) \(level) \(position) ended \(report.status) after \(report.steps)")
                    #expect(report.locales == ["es"])
                    for text in report.untranslated where !untranslated.contains(text) { untranslated.append(text) }
                }
            }
        }
        #expect(walks >= 10)
        #expect(untranslated.isEmpty, "left in English:\n\(untranslated.joined(separator: "\n"))")
    }
}
