import Foundation
import PlatformCore
import PlatformTesting
import Testing
@testable import TeePals

/// TeePals in Spanish: the wizard to completion, the age refusal, the search and the gate, with
/// the same ids and values as in English and no text left in English.
@Suite struct SpanishTests {
    let known: Set<String> = ["Birdie Queen", "Austin, Texas, United States", "Austin, TX"]

    @Test func theWizardInSpanishKeepsTheEnglishShapeAndLeavesNoEnglish() async throws {
        let driver = try teePals()
        let answers: [String: [String: JSONValue]] = [
            "nickname": Answers.nickname, "birthdate": Answers.birthdate, "location": Answers.location, "gender": Answers.gender,
        ]
        let report = try await LocaleWalk(driver: driver, locale: "es").walk("u", answers: answers, known: known)
        #expect(report.differences.isEmpty, "\(report.differences)")
        #expect(report.status == .completed)
        #expect(report.locales == ["es"])
        #expect(report.untranslated.isEmpty, "left in English:\n\(report.untranslated.joined(separator: "\n"))")
    }

    @Test func theAgeRefusalInSpanish() async throws {
        let driver = try teePals()
        let answers: [String: [String: JSONValue]] = [
            "nickname": Answers.nickname, "birthdate": ["birthdate": "2015-01-01"],
        ]
        let report = try await LocaleWalk(driver: driver, locale: "es").walk("young", answers: answers, known: known)
        #expect(report.differences.isEmpty, "\(report.differences)")
        #expect(report.status == .rejected)
        #expect(report.untranslated.isEmpty, "left in English:\n\(report.untranslated.joined(separator: "\n"))")
    }
}
