import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import TeePals

/// TeePals in Spanish: the wizard to completion, the age refusal, the search and the gate, with
/// the same ids and values as in English and no text left in English.
@Suite struct SpanishTests {
    let known: Set<String> = ["Birdie Queen", "Austin, Texas, United States", "Austin, TX"]

    @Test func theWizardInSpanishKeepsTheEnglishShapeAndLeavesNoEnglish() async throws {
        let driver = try await teePals()
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
        let driver = try await teePals()
        let answers: [String: [String: JSONValue]] = [
            "nickname": Answers.nickname, "birthdate": ["birthdate": "2015-01-01"],
        ]
        let report = try await LocaleWalk(driver: driver, locale: "es").walk("young", answers: answers, known: known)
        #expect(report.differences.isEmpty, "\(report.differences)")
        #expect(report.status == .rejected)
        #expect(report.untranslated.isEmpty, "left in English:\n\(report.untranslated.joined(separator: "\n"))")
    }

    @Test func theSpanishReadsAsWritten() async throws {
        let driver = try await teePals()
        var view = try await driver.start("ana", locale: "es")
        #expect(view.locale == "es")
        #expect(view.step?.title == "¿Cómo quieres que te llamemos?")
        #expect(view.step?.fields.first?.label == "Apodo")
        #expect(view.step?.actions.map(\.label) == ["Continuar"])
        #expect(view.progress.label == "1/4")
        let refused = try #require(await driver.refuse(view, ["nickname": "A"]))
        #expect(refused.fieldErrors.first?.message == "Tu apodo necesita al menos 2 caracteres.", "\(refused.fieldErrors)")
        view = try await driver.submit(view, Answers.nickname)
        view = try await driver.submit(view, Answers.birthdate)
        view = try await driver.submit(view, Answers.location)
        #expect(view.step?.fields.first?.options?.map(\.label) == ["Hombre", "Mujer", "No binario", "Prefiero no decirlo"])
        #expect(view.step?.fields.first?.options?.map(\.value) == ["male", "female", "non_binary", "prefer_not_to_say"])
        view = try await driver.submit(view, Answers.gender)
        #expect(view.completion?.message == "¡Te damos la bienvenida a TeePals, Birdie Queen!")

        let young = try await driver.walk(try await driver.start("young", locale: "es"), [Answers.nickname, ["birthdate": "2015-01-01"]])
        #expect(young.rejection?.message == "Debes tener 13 años o más para usar TeePals")
    }

    @Test func aLocaleFallsBackToItsLanguageThenEnglish() async throws {
        let driver = try await teePals()
        let mexico = try await driver.start("mx", locale: "es-MX")
        #expect(mexico.locale == "es")
        #expect(mexico.step?.title == "¿Cómo quieres que te llamemos?")
        let french = try await driver.start("fr", locale: "fr-CA")
        #expect(french.locale == "en")
        #expect(french.step?.title == "What should we call you?")
        let none = try await driver.start("none")
        #expect(none.locale == "en")
        let refused = await driver.error("flow.start", ["userId": "bad", "locale": "not a tag"])
        #expect(refused?.code == ErrorCode.invalidParams.rawValue)
        #expect(refused?.message.contains("locale") == true)
    }

    @Test func theCitySearchAnswersInSpanish() async throws {
        let driver = try await teePals()
        var view = try await driver.start("s", locale: "es")
        view = try await driver.submit(view, Answers.nickname)
        view = try await driver.submit(view, Answers.birthdate)
        let found = try await driver.call("flow.search", ["sessionId": .string(view.sessionId), "field": "location", "query": "sevilla"])
        let labels = found["results"]?.arrayValue?.compactMap { $0["label"]?.stringValue } ?? []
        #expect(labels.contains("Sevilla, España"), "\(labels)")
        #expect(!labels.contains { $0.hasSuffix(", Spain") }, "\(labels)")
        let austin = try await driver.call("flow.search", ["sessionId": .string(view.sessionId), "field": "location", "query": "austin, tx"])
        #expect(austin["results"]?[0]?["label"] == "Austin, TX, Estados Unidos", "\(austin)")
        let none = try await driver.call("flow.search", ["sessionId": .string(view.sessionId), "field": "location", "query": "zzzzqx"])
        #expect(none["message"] == "No se encontraron resultados", "\(none)")
        // In English, as before.
        let english = try await driver.start("e")
        let englishFound = try await driver.call("flow.search", ["sessionId": .string(english.sessionId), "field": "location", "query": "sevilla"])
        #expect(englishFound["results"]?.arrayValue?.contains { $0["label"] == "Sevilla, Spain" } == true, "\(englishFound)")
        let englishNone = try await driver.call("flow.search", ["sessionId": .string(english.sessionId), "field": "location", "query": "zzzzqx"])
        #expect(englishNone["message"] == "No results found")
    }

    @Test func theSessionKeepsItsLocaleUntilThePersonComesBackInAnother() async throws {
        let driver = try await teePals()
        let started = try await driver.start("kept", locale: "es")
        var view = try await driver.submit(started, Answers.nickname)
        #expect(view.locale == "es")
        #expect(try await driver.get(view).step?.title == "¿Cuándo es tu cumpleaños?")
        view = try await driver.start("kept")
        #expect(view.locale == "es", "a start without a locale keeps the session's")
        view = try await driver.start("kept", locale: "en-US")
        #expect(view.locale == "en")
        #expect(view.step?.title == "When's your birthday?")
        #expect(try await driver.get(view).locale == "en")
    }

    @Test func gateCopyIsInTheSessionsLanguage() async throws {
        let driver = try await teePals()
        _ = try await driver.start("g", locale: "es")
        let decision = try await driver.checkGate("g", "join_round")
        #expect(decision.allowed == false)
        #expect(decision.title == "Termina de configurar tu cuenta")
        #expect(decision.cta == "Continuar la configuración")
        let english = try await driver.call("gate.check", ["userId": "g", "action": "join_round", "locale": "en"])
        #expect(english["title"] == "Finish Setting Up")
    }

    @Test func aTenantOverridesATextAndAWrongOverrideStopsTheStart() async throws {
        let plugin = TeePalsPlugin()
        let copy = try CopyBook(catalogs: plugin.stringCatalogs, overrides: ["es": ["Nickname": "Alias"], "en": ["Nickname": "Handle"]])
        let driver = try await FlowDriver(plugin: plugin, clock: TestClock(testDay), copy: copy)
        #expect(try await driver.start("o", locale: "es").step?.fields.first?.label == "Alias")
        #expect(try await driver.start("p").step?.fields.first?.label == "Handle")
        #expect(throws: CopyProblem.self) {
            try CopyBook(catalogs: plugin.stringCatalogs, overrides: ["es": ["Welcome to TeePals, %@!": "¡Hola!"]])
        }
    }
}
