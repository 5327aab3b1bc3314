import Foundation

/// Lowercase hexadecimal, two digits a byte: digests, signatures, key ids.
package enum Hex {
    /// Every HTTP request with a bearer hashes it and writes the hash in hex. Read as one
    /// buffer: over a generic sequence from another module each byte was a witness call and the
    /// text grew as it went (a digest's underestimated count is 0), ~2 µs of a login.
    package static func string(_ bytes: some ContiguousBytes) -> String {
        bytes.withUnsafeBytes { raw in
            String(unsafeUninitializedCapacity: raw.count * 2) { text in
                var at = 0
                for byte in raw {
                    text[at] = digit(byte >> 4)
                    text[at + 1] = digit(byte & 0x0F)
                    at += 2
                }
                return at
            }
        }
    }

    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x61 - 10 + value
    }
}
