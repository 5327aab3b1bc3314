/// Tenant, user, session and key ids are their UTF-8 bytes. Swift's `String ==` and its hashing
/// follow Unicode canonical equivalence ("\u{212A}ate", with KELVIN SIGN, equals "Kate"; NFD
/// "jose\u{301}" equals NFC "josé"), while both stores compare bytes: an access check made with
/// `==` would let a token minted for one id act for another. Every comparison of ids that decides
/// access goes through here.
public enum IDBytes {
    /// Whether two ids are the same bytes.
    @inlinable
    public static func equal(_ first: String, _ second: String) -> Bool {
        first.utf8.elementsEqual(second.utf8)
    }

    /// Whether two optional ids are the same bytes (two nils are the same; a nil and an id are not).
    @inlinable
    public static func equal(_ first: String?, _ second: String?) -> Bool {
        switch (first, second) {
        case (nil, nil): true
        case (let first?, let second?): equal(first, second)
        default: false
        }
    }

    /// Why `value` cannot be an id, or nil when it can. A NUL would cut the id short where a store
    /// binds C strings ("victim\0attacker" stored as "victim"), and other control characters
    /// (U+0000-U+001F, U+007F) have no place in one. U+FFFD stands for what was not UTF-8: the
    /// JSON parser decodes an unpaired surrogate escape ("\ud800") to it, so two ids that differ on
    /// the wire would become one.
    public static func refusal(_ value: String) -> String? {
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x00: return "must not hold a NUL character"
            case 0x01...0x1F, 0x7F: return "must not hold a control character (U+\(hex(scalar.value)))"
            case 0xFFFD: return "must be valid UTF-8 (it holds U+FFFD, what an unpaired surrogate escape decodes to)"
            default: continue
            }
        }
        return nil
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// An id as a dictionary key: hashed and compared by its bytes, never by canonical equivalence.
public struct IDKey: Hashable, Sendable {
    public let bytes: [UInt8]

    public init(_ id: String) {
        bytes = Array(id.utf8)
    }

    public init(joining parts: String...) {
        // Length-prefixed, so ("ab", "c") and ("a", "bc") stay two keys.
        var bytes: [UInt8] = []
        for part in parts {
            let utf8 = Array(part.utf8)
            withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: utf8)
        }
        self.bytes = bytes
    }
}
