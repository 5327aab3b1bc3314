/// Lowercase hexadecimal, two digits a byte: digests, signatures, key ids.
package enum Hex {
    /// Every HTTP request with a bearer hashes it and writes the hash in hex: no table or
    /// growing buffer allocated on the way.
    package static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digit(byte >> 4))
            text.append(digit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? 0x30 + value : 0x61 - 10 + value
    }
}
