import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// String Catalogs read, matched and formatted: keys with placeholders, the locale fallback,
/// plurals by CLDR rule, arguments that are texts themselves, and the checks that stop a
/// broken catalog or override at start.
@Suite struct CopyBookTests {
    static func catalog(_ strings: [String: [String: JSONValue]], name: String = "Plugin.xcstrings") throws -> StringCatalog {
        let entries = strings.mapValues { localizations -> JSONValue in
            ["localizations": .object(localizations)]
        }
        return try StringCatalog(name: name, json: JSONValue.object(["sourceLanguage": "en", "strings": .object(entries), "version": "1.0"]).serialized())
    }

    static func unit(_ value: String, state: String = "translated") -> JSONValue {
        ["stringUnit": ["state": .string(state), "value": .string(value)]]
    }

    static func plural(_ forms: [String: String]) -> JSONValue {
        ["variations": ["plural": .object(forms.mapValues { unit($0) })]]
    }

    let core = try! CopyBookTests.catalog(
        [
            "%@ is required.": ["es": unit("%@: este dato es obligatorio.")],
            "Continue": ["es": unit("Continuar")],
        ], name: "core")

    func makeBook(overrides: [String: [String: String]] = [:]) throws -> CopyBook {
        try CopyBook(
            catalogs: [
                Self.catalog([
                    "Nickname": ["es": Self.unit("Apodo"), "es-MX": Self.unit("Sobrenombre")],
                    "Welcome, %@!": ["es": Self.unit("¡Hola, %@!")],
                    "%lld goals": ["es": Self.plural(["one": "%lld gol", "other": "%lld goles"])],
                    "%@ by %@": ["es": Self.unit("%2$@: %1$@")],
                    "Step %lld of %lld": ["es": Self.unit("Paso %lld de %lld")],
                    "%@%%+ saves": ["es": Self.unit("%@%%+ atajadas")],
                    "Draft": ["es": Self.unit("Borrador", state: "needs_review")],
                ])
            ], core: core, overrides: overrides)
    }

    @Test func formatsReadXcodeSpecifiers() throws {
        #expect(try CopyFormat("%@ is required.").placeholders == [.text])
        #expect(try CopyFormat("Step %lld of %lld").placeholders == [.integer, .integer])
        #expect(try CopyFormat("%2$@ y %1$lld").placeholders == [.integer, .text])
        #expect(try CopyFormat("100%% sure").hasPlaceholders == false)
        #expect(throws: CopyProblem.self) { try CopyFormat("50% off") }
        #expect(throws: CopyProblem.self) { try CopyFormat("%@%@") }
        #expect(throws: CopyProblem.self) { try CopyFormat("ends with %") }
    }

    @Test func aTextIsFoundByItsKeyOrByTheKeyItWasMadeFrom() throws {
        let book = try makeBook()
        #expect(book.text("Nickname", in: "es") == "Apodo")
        #expect(book.text("Welcome, Alex!", in: "es") == "¡Hola, Alex!")
        #expect(book.text("Step 2 of 11", in: "es") == "Paso 2 de 11")
        #expect(book.text("Step two of 11", in: "es") == "Step two of 11", "a %lld takes digits only")
        #expect(book.text("120%+ saves", in: "es") == "120%+ atajadas")
        #expect(book.text("Austin, TX", in: "es") == "Austin, TX", "a text no key matches is shown as it is")
        #expect(book.translation(of: "Austin, TX", in: "es") == nil)
    }

    @Test func argumentsThatAreKeysAreTranslatedToo() throws {
        let book = try makeBook()
        #expect(book.text("Nickname is required.", in: "es") == "Apodo: este dato es obligatorio.")
        #expect(book.text("Nickname is required.", in: "es-MX") == "Sobrenombre: este dato es obligatorio.")
        #expect(book.text("Alex is required.", in: "es") == "Alex: este dato es obligatorio.")
    }

    @Test func anArgumentMayHoldTheLiteralThatFollowsIt() throws {
        let remove = try CopyFormat("Remove %@ %lld")
        #expect(remove.arguments(in: "Remove Emergency contact 2") == ["Emergency contact", "2"])
        #expect(try CopyFormat("Welcome, %@.").arguments(in: "Welcome, J.R. Smith.") == ["J.R. Smith"])
        #expect(try CopyFormat("%1$@ and %1$@").arguments(in: "A and B") == nil, "one position, two texts")
        #expect(try CopyFormat("%1$@ and %1$@").arguments(in: "A and A") == ["A"])
        #expect(try CopyFormat("%1$@, %3$@").arguments(in: "x, z") == ["x", "", "z"], "a position no placeholder shows is empty")
        #expect(try CopyFormat("%@ goals").arguments(in: "goals") == nil, "a placeholder takes at least one character")
    }

    @Test func aPluralWithoutOtherIsRefused() throws {
        let catalog = try Self.catalog(["%lld goals": ["es": Self.plural(["one": "%lld gol"])]])
        #expect(catalog.problems().contains { $0.contains("without an `other` form") })
        #expect(throws: CopyProblem.self) { try CopyBook(catalogs: [catalog], core: core) }
        let book = try makeBook()
        #expect(book.format("%lld goals", ["1"], in: "es") == "1 gol")
        #expect(book.format("%lld goals", ["4"], in: "es") == "4 goles")
        #expect(book.format("%lld goals", ["4"], in: "en") == "4 goals")
    }

    @Test func translationsMayReorderTheirPlaceholders() throws {
        #expect(try makeBook().text("Goals by Alex", in: "es") == "Alex: Goals")
    }

    @Test func pluralsFollowTheLocalesRule() throws {
        let book = try makeBook()
        #expect(book.text("1 goals", in: "es") == "1 gol")
        #expect(book.text("3 goals", in: "es") == "3 goles")
        #expect(book.text("0 goals", in: "es") == "0 goles")
        #expect(PluralCategory.of(1, in: "es") == .one)
        #expect(PluralCategory.of(1_000_000, in: "es") == .many)
        #expect(PluralCategory.of(1.5, in: "en") == .other)
        #expect(PluralCategory.of(0, in: "fr") == .one)
    }

    @Test func aLocaleFallsBackToItsLanguageThenTheBase() throws {
        let book = try makeBook()
        #expect(book.locales == ["en", "es", "es-MX"])
        #expect(book.served("es-MX") == "es-MX")
        #expect(book.served("es_mx") == "es-MX")
        #expect(book.served("es-AR") == "es")
        #expect(book.served("fr-CA") == "en")
        #expect(book.served(nil) == "en")
        #expect(book.served("not a tag!") == "en")
        // es-MX has its own word for one key and takes the rest from es, key by key.
        #expect(book.text("Nickname", in: "es-MX") == "Sobrenombre")
        #expect(book.text("Welcome, Alex!", in: "es-MX") == "¡Hola, Alex!")
        #expect(book.preferred(["fr", "es-AR", "en"]) == "es-AR")
        #expect(book.preferred(["fr", "de"]) == "fr")
        // The base language wanted first is the base language, not the next one served.
        #expect(book.preferred(["en-US", "en", "es"]) == "en-US")
        #expect(book.served(book.preferred(["en-US", "en", "es"])) == "en")
        #expect(book.preferred(["de", "en", "es"]) == "en")
    }

    @Test func unfinishedTranslationsAreNotShipped() throws {
        #expect(try makeBook().translation(of: "Draft", in: "es") == nil)
    }

    @Test func overridesWinAndAreChecked() throws {
        let book = try makeBook(overrides: ["es": ["Nickname": "Alias"], "en": ["Continue": "Next"]])
        #expect(book.text("Nickname", in: "es") == "Alias")
        #expect(book.text("Nickname is required.", in: "es") == "Alias: este dato es obligatorio.")
        #expect(book.text("Continue", in: "en") == "Next", "a white-label tenant rewords the base language")
        #expect(book.served("fr") == "en", "a locale no one translates is the base language")

        // A locale only the tenant translates is served when it translates every text, and
        // refused at start when it leaves some in the base language (its `locale` would lie).
        let partial = #expect(throws: CopyProblem.self) { try self.makeBook(overrides: ["fr": ["Nickname": "Surnom"]]) }
        #expect(partial?.description.contains("translates 1 of the") == true, "\(String(describing: partial))")
        let keys = try makeBook().keys
        let french = Dictionary(uniqueKeysWithValues: keys.map { ($0.key, $0.key == "Nickname" ? "Surnom" : $0.key) })
        let complete = try makeBook(overrides: ["fr": french])
        #expect(complete.served("fr-CA") == "fr")
        #expect(complete.text("Nickname", in: "fr") == "Surnom")

        let unknown = #expect(throws: CopyProblem.self) { try self.makeBook(overrides: ["es": ["Nick name": "Alias"]]) }
        #expect(unknown?.description.contains("\"Nick name\" is not a key") == true)
        let dropped = #expect(throws: CopyProblem.self) { try self.makeBook(overrides: ["es": ["Welcome, %@!": "¡Hola!"]]) }
        #expect(dropped?.description.contains("drops") == true, "\(String(describing: dropped))")
        #expect(throws: CopyProblem.self) { try self.makeBook(overrides: ["es": ["Nickname": "Apodo %@"]]) }
        #expect(throws: CopyProblem.self) { try self.makeBook(overrides: ["español": ["Nickname": "Apodo"]]) }
    }

    @Test func aCatalogThatDropsAPlaceholderDoesNotLoad() throws {
        let broken = try Self.catalog(["Welcome, %@!": ["es": Self.unit("¡Hola!")]])
        #expect(throws: CopyProblem.self) { try CopyBook(catalogs: [broken], core: core) }
        #expect(!broken.problems().isEmpty)
    }

    @Test func aViewIsTranslatedButItsIdsAndValuesAreNot() throws {
        let book = try makeBook()
        let view = SessionView(
            sessionId: "s", tenant: "t", userId: "u", flow: "onboarding", status: .active, revision: 1,
            progress: SessionProgress(index: 2, total: 11, label: "Step 2 of 11", fraction: 0.18),
            step: StepView(
                id: "nickname", kind: .question, title: "Welcome, Alex!",
                fields: [FieldView(id: "nickname", type: .text, label: "Nickname", required: true, value: "Nickname")],
                actions: [.continue()], content: ["symbol": "Nickname", "message": "Welcome, Sam!"],
                errors: [FieldError(field: "nickname", code: .required, message: "Nickname is required.")]))
        let spanish = book.localized(view, in: "es")
        #expect(spanish.locale == "es")
        #expect(spanish.progress.label == "Paso 2 de 11")
        #expect(spanish.step?.title == "¡Hola, Alex!")
        #expect(spanish.step?.fields.first?.label == "Apodo")
        #expect(spanish.step?.fields.first?.value == "Nickname", "the person's answer stays as typed")
        #expect(spanish.step?.actions.first?.label == "Continuar")
        #expect(spanish.step?.content["symbol"] == "Nickname", "a symbol's name is data")
        #expect(spanish.step?.content["message"] == "¡Hola, Sam!")
        #expect(spanish.step?.errors.first?.message == "Apodo: este dato es obligatorio.")
        #expect(
            book.localized(view, in: "en")
                == {
                    var english = view
                    english.locale = "en"
                    return english
                }())
        #expect(book.untranslated(view, in: "es").isEmpty)
        #expect(CopyBook.base.untranslated(view, in: "es").contains("Nickname"))
    }
}
