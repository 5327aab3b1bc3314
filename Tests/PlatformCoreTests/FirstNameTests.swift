import PlatformCore
import Testing

/// A person's name in the copy is the first word of their first name, read by bytes when the
/// name is ASCII: the same word Swift's `Character.isWhitespace` finds, for every ASCII byte.
@Suite struct FirstNameTests {
    /// The word a Character-by-Character reading finds, or the fallback.
    static func expected(_ name: String) -> String {
        name.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? "there"
    }

    @Test func everyASCIIByteAroundAndInsideANameIsReadAsCharactersReadIt() {
        let bytes = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        for byte in bytes {
            for name in [byte, byte + "Alex", "Alex" + byte + "Morgan", byte + byte + "Jo" + byte, "\r\n" + byte + "Sam"] {
                let said = UserDetails(firstName: name).personalName(default: "there")
                #expect(said == Self.expected(name), "\(Array(name.utf8))")
            }
        }
    }

    @Test func namesBeyondASCIIAreReadAsCharacters() {
        for name in ["José María", "\u{A0}Zoë\u{2003}B", "e\u{301}mile x", " \u{301}Ana", "日本 太郎", "\u{3000}", "Ana\u{85}Bo"] {
            #expect(UserDetails(firstName: name).personalName(default: "there") == Self.expected(name), "\(Array(name.unicodeScalars))")
        }
    }
}
