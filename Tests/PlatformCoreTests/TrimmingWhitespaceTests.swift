import Foundation
import PlatformCore
import Testing

/// `trimmingWhitespace` trims what Foundation's `.whitespacesAndNewlines` trims, without
/// Foundation: every whitespace and newline of Unicode at either end, nothing else.
@Suite struct TrimmingWhitespaceTests {
    static let ends: [String] = [
        "", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2003}", "\u{200A}", "\u{2028}",
        "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{200B}", "\u{200C}", "\u{FEFF}", "\u{1}", "x",
    ]

    @Test func everyEndIsTrimmedAsFoundationTrimsIt() {
        for left in Self.ends {
            for right in Self.ends {
                for middle in ["", "Alex", "Alex  Morgan", "é", "e\u{301}", " \u{301}", "日本"] {
                    let text = left + middle + right
                    #expect(text.trimmingWhitespace == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
                }
            }
        }
    }

    /// Every scalar of the Basic Multilingual Plane (where every whitespace is), on its own.
    @Test func everyScalarIsWhitespaceExactlyWhenFoundationSaysSo() {
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            #expect(text.trimmingWhitespace.isEmpty == text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "U+\(String(value, radix: 16))")
        }
    }

    @Test func aSubstringIsTrimmedToo() {
        let line = "name:  Alex \t"
        #expect(line.dropFirst(5).trimmingWhitespace == "Alex")
    }
}
