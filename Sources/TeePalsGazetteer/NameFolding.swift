import Foundation

/// The form names and queries are compared in: lower case, diacritics removed ("Zürich" and
/// "zurich" meet), apostrophes dropped ("O'Fallon" is "ofallon"), any other punctuation a single
/// space ("Winston-Salem" is "winston salem").
///
/// Every script is folded: compatibility forms are unified (NFKC: full-width letters, Arabic
/// presentation forms, half-width kana), letters are lower-cased (Greek final sigma as sigma), and
/// the marks on Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic and Syriac letters are dropped
/// (accents, niqqud and harakat a person often leaves out: "Αθήνα" is "αθηνα", "Москва" is "москва").
/// In the other scripts marks are part of the letters (Indic vowel signs, the kana voicing marks)
/// and are kept, recomposed (NFC: "ド" stays "ド", Hangul stays in syllables).
///
/// The same code folds the names when the index is built (the `teepals-gazetteer` tool) and the
/// queries when it is searched, so the two always agree for a given `version`.
package enum NameFolding {
    /// The version of these rules. The index records the version it was folded with and a
    /// different one is refused, so change this whenever a change here folds any text differently.
    package static let version: UInt32 = 2

    package static func fold<Text: StringProtocol>(_ text: Text) -> String {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { fold(utf8: UnsafeBufferPointer($0)) }
    }

    /// Folds UTF-8 text; the common case (ASCII) is a plain byte loop with no String in between.
    package static func fold(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String {
        var index = 0
        while index < bytes.count {
            if bytes[index] >= 0x80 { return foldUnicode(String(decoding: bytes, as: UTF8.self)) }
            index += 1
        }
        var folded: [UInt8] = []
        folded.reserveCapacity(bytes.count)
        var pendingSpace = false
        index = 0
        while index < bytes.count {
            var byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                byte += 0x20
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                break
            case UInt8(ascii: "'"), UInt8(ascii: "`"):
                continue
            default:
                pendingSpace = true
                continue
            }
            if pendingSpace && !folded.isEmpty { folded.append(0x20) }
            pendingSpace = false
            folded.append(byte)
        }
        return String(decoding: folded, as: UTF8.self)
    }

    private static func foldUnicode(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        var pendingSpace = false
        // The letter the next marks sit on; nil after punctuation or a space (a mark there is dropped).
        var base: Unicode.Scalar?
        var keptMark = false
        func append<Scalars: Sequence<Unicode.Scalar>>(_ scalars: Scalars) {
            if pendingSpace && !folded.isEmpty { folded.append(" ") }
            pendingSpace = false
            folded.append(contentsOf: scalars)
        }
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if isMark(scalar) {
                if let base, !dropsMarks(base) {
                    folded.append(scalar)
                    keptMark = true
                }
                continue
            }
            if apostrophes.contains(scalar) { continue }
            if let replacement = specialLetters[scalar] {
                append(replacement.unicodeScalars)
                base = scalar
            } else if let replacement = caseFoldings[scalar] {
                append(CollectionOfOne(replacement))
                base = scalar
            } else if isLetterOrNumber(scalar) {
                append(scalar.properties.lowercaseMapping.unicodeScalars)
                base = scalar
            } else {
                pendingSpace = true
                base = nil
            }
        }
        let result = String(folded)
        // Decomposition split kana from their voicing marks and Hangul syllables into jamo:
        // compose them again. Conjoining jamo are letters, not marks, so check for them too.
        guard keptMark || result.unicodeScalars.contains(where: { (0x1100...0x11FF).contains($0.value) }) else {
            return result
        }
        return result.precomposedStringWithCanonicalMapping
    }

    /// Letters canonical decomposition leaves whole, spelled as a person without the key types them.
    static let specialLetters: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o",
        "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ł": "l", "Ł": "l",
        "ı": "i", "ħ": "h", "Ħ": "h", "ŧ": "t", "Ŧ": "t", "ŋ": "n", "Ŋ": "n", "ĸ": "k",
    ]

    /// Where Unicode case folding differs from lower-casing in the place names' scripts (the
    /// other differences, like ϐ or ſ, are already undone by the compatibility decomposition).
    static let caseFoldings: [Unicode.Scalar: Unicode.Scalar] = ["ς": "σ"]

    static let apostrophes: Set<Unicode.Scalar> = ["'", "’", "ʻ", "ʼ", "`", "´"]

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Whether marks on this letter are diacritics a person may leave out: Latin, Greek,
    /// Cyrillic, Armenian, Hebrew, Arabic and Syriac letters (and their extensions).
    static func dropsMarks(_ base: Unicode.Scalar) -> Bool {
        switch base.value {
        case 0..<0x0780,  // Latin to Syriac and Arabic supplement
            0x0860..<0x0900,  // Syriac supplement, Arabic extended
            0x1C80..<0x1C90,  // Cyrillic extended C
            0x1D00..<0x2000,  // phonetic extensions, Latin extended additional, Greek extended
            0x2C60..<0x2C80, 0x2DE0..<0x2E00, 0xA640..<0xA6A0, 0xA720..<0xA800, 0xAB30..<0xAB70,
            0xFB00..<0xFE00,  // alphabetic and Arabic presentation forms
            0xFE70..<0xFF00:
            true
        default:
            false
        }
    }

    static func isLetterOrNumber(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber:
            true
        default: false
        }
    }
}
