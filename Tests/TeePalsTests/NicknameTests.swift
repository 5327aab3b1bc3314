import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import TeePals

@Suite("Nickname")
struct NicknameTests {
    func accepted(_ nickname: String) async throws -> JSONValue? {
        let d = try await teePals()
        let view = try await d.submit(try await d.start("u1"), ["nickname": .string(nickname)])
        #expect(view.stepId == "birthdate", "\(nickname) should be accepted")
        return try await d.back(view).value("nickname")
    }

    func refusal(_ nickname: JSONValue) async throws -> FieldError? {
        let d = try await teePals()
        let view = try await d.start("u1")
        let error = await d.refuse(view, ["nickname": nickname])
        #expect(error?.code == -32004)
        #expect(error?.session?.stepId == "nickname")
        #expect(error?.session?.revision == view.revision)
        return error?.fieldErrors.first
    }

    @Test(arguments: ["Al", "Jo", String(repeating: "a", count: 30), "Golfer 42", "42"])
    func lengthsFromTwoToThirtyAreAccepted(_ nickname: String) async throws {
        #expect(try await accepted(nickname) == .string(nickname))
    }

    @Test func oneCharacterIsTooShortAndThirtyOneTooLong() async throws {
        let short = try await refusal("A")
        #expect(short?.code == .tooShort)
        #expect(short?.message == "Your nickname needs at least 2 characters.")
        let long = try await refusal(.string(String(repeating: "b", count: 31)))
        #expect(long?.code == .tooLong)
        #expect(long?.message == "Your nickname can be at most 30 characters.")
    }

    @Test func lengthCountsCharactersAsAPersonSeesThem() async throws {
        // "é" written as e + combining accent is one character; NFC keeps it as one scalar.
        let decomposed = "Rene\u{301}"
        #expect(try await accepted(decomposed) == "René")
        #expect(try await accepted("Rene\u{301}")?.stringValue?.unicodeScalars.count == 4)
        // 30 Devanagari clusters (consonant + vowel sign) are 60 scalars, still 30 characters.
        let hindi = String(repeating: "नि", count: 30)
        #expect(hindi.unicodeScalars.count == 60)
        #expect(try await accepted(hindi) == .string(hindi))
        #expect(try await refusal(.string(hindi + "क"))?.code == .tooLong)
        // A decomposed é at the limit still counts once.
        let thirty = String(repeating: "e\u{301}", count: 30)
        #expect(try await accepted(thirty)?.stringValue?.count == 30)
    }

    @Test(arguments: ["José Ñúñez", "Zoë", "Łukasz", "Søren", "Мария", "李小龙", "محمد علي", "नमस्ते", "Aditi क्षत्रिय", "Ελένη", "Nguyễn Văn An", "ʻIolani", "Player9"])
    func lettersOfAnyScriptAndDigitsAreAccepted(_ nickname: String) async throws {
        #expect(try await accepted(nickname) == .string(nickname))
    }

    @Test func spacesAreTrimmedAndRunsCollapsed() async throws {
        #expect(try await accepted("  Big   Bertha  ") == "Big Bertha")
        #expect(try await accepted("Big\tBertha\n") == "Big Bertha")
        // Collapsing happens before counting: these are 2 characters once cleaned.
        #expect(try await accepted(" A    B ") == "A B")
        #expect(try await refusal("   ")?.code == .required)
        #expect(try await refusal("")?.code == .required)
    }

    @Test(arguments: ["Tiger 🐯", "👍👍", "⛳️ Pro", "1️⃣2", "O'Neil", "Jean-Luc", "Hi!", "Joe_1", "#1 Golfer", "a.b", "x@y", "Mr♥", "ab\u{200D}cd"])
    func emojiPunctuationAndSymbolsAreRefused(_ nickname: String) async throws {
        let error = try await refusal(.string(nickname))
        #expect(error?.code == .invalidFormat)
        #expect(error?.field == "nickname")
        #expect(error?.message == "Your nickname can only use letters, numbers and spaces (no emoji or symbols).")
    }

    @Test func aNicknameMustBeText() async throws {
        #expect(try await refusal(42)?.code == .invalidType)
        #expect(try await refusal(nil)?.code == .required)
    }
}
