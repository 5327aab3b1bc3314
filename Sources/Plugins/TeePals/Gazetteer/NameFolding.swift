import Foundation

/// The form names and queries are compared in: lower case, diacritics removed ("Zürich" and
/// "zurich" meet), apostrophes dropped ("O'Fallon" is "ofallon"), any other punctuation a single
/// space ("Winston-Salem" is "winston salem").
///
/// `scripts/teepals/make_gazetteer.py` folds the same way to drop redundant alternate names;
/// the index itself is folded here at load time, so a difference between the two can only keep
/// a redundant name, never lose a match.
enum NameFolding {
    static func fold<Text: StringProtocol>(_ text: Text) -> String {
        var utf8 = Array(text.utf8)
        return utf8.withUnsafeMutableBufferPointer { fold(utf8: UnsafeBufferPointer($0)) }
    }

    /// Folds UTF-8 text. The loader calls this on slices of the resource, so the common case
    /// (ASCII) is a plain byte loop with no String in between.
    static func fold(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String {
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
        var folded = ""
        var pendingSpace = false
        func append(_ piece: String) {
            if pendingSpace && !folded.isEmpty { folded.append(" ") }
            pendingSpace = false
            folded.append(piece)
        }
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if isMark(scalar) || apostrophes.contains(scalar) { continue }
            if let replacement = specialLetters[scalar] {
                append(replacement)
            } else if isLetterOrNumber(scalar) {
                append(scalar.properties.lowercaseMapping)
            } else {
                pendingSpace = true
            }
        }
        return folded
    }

    /// Letters canonical decomposition leaves whole, spelled as a person without the key types them.
    static let specialLetters: [Unicode.Scalar: String] = [
        "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ø": "o", "Ø": "o",
        "đ": "d", "Đ": "d", "ð": "d", "Ð": "d", "þ": "th", "Þ": "th", "ł": "l", "Ł": "l",
        "ı": "i", "ħ": "h", "Ħ": "h", "ŧ": "t", "Ŧ": "t", "ŋ": "n", "Ŋ": "n", "ĸ": "k",
    ]

    static let apostrophes: Set<Unicode.Scalar> = ["'", "’", "ʻ", "ʼ", "`", "´"]

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    static func isLetterOrNumber(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .decimalNumber, .letterNumber, .otherNumber: true
        default: false
        }
    }
}
