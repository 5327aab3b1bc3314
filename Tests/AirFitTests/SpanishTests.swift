import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AirFit

/// AirFit in Spanish: every walk to the coach's profile with the same ids and values as in
/// English and no text left in English (the core's words and the plugin's catalog together).
@Suite struct SpanishTests {
    /// What the person typed, and their name: data, shown as it is.
    let known: Set<String> = ["Run a sub-25 minute 5k in 12 weeks", "“Run a sub-25 minute 5k in 12 weeks”", "Alex"]

    /// The walk's answers by step id, with `values` in place of a step's.
    func answers(_ values: [AirFitStep: [String: JSONValue]] = [:]) -> [String: [String: JSONValue]] {
        var byStep: [String: [String: JSONValue]] = [:]
        for (index, step) in AirFitStep.allCases.enumerated() where index < Answers.walk.count {
            byStep[step.id] = values[step] ?? Answers.walk[index]
        }
        return byStep
    }

    @Test(arguments: [
        [AirFitStep: [String: JSONValue]](),
        [
            .coreAspiration: ["aspirationPreset": "build_strength"], .engagementPreferences: ["engagementPreset": "dataDrivenPartnership"],
            .motivationAndCheckins: ["achievementAcknowledgement": "subtleAffirming", "inactivityResponse": "gentleNudge", "preferredUnits": "imperial"],
        ],
        [.coreAspiration: ["aspirationPreset": "recover_rebuild"], .engagementPreferences: ["engagementPreset": "guidanceOnDemand"]],
    ])
    func everyWalkInSpanishKeepsTheEnglishShapeAndLeavesNoEnglish(_ values: [AirFitStep: [String: JSONValue]]) async throws {
        let report = try await LocaleWalk(driver: try await driver(), locale: "es").walk(
            "u", user: UserDetails(firstName: "Alex"), answers: answers(values), known: known)
        #expect(report.differences.isEmpty, "\(report.differences)")
        #expect(report.status == .completed, "\(report.steps)")
        #expect(report.locales == ["es"])
        #expect(report.untranslated.isEmpty, "left in English:\n\(report.untranslated.joined(separator: "\n"))")
    }

    @Test func theSpanishReadsAsWritten() async throws {
        let driver = try await driver()
        let view = try await driver.start("ana", locale: "es-MX")
        #expect(view.locale == "es")
        #expect(view.step?.actions.map(\.label).contains("Begin") == false, "\(view.step?.actions.map(\.label) ?? [])")
        #expect(view.step?.content["footer"]?.stringValue != "Privacy & Data")
    }
}
