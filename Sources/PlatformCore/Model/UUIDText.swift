/// The text of a UUID from its 16 bytes: lowercase hex in the 8-4-4-4-12 groups, the same text
/// as Foundation's `UUID(uuid:).uuidString.lowercased()`, written into one string without the
/// uppercase string and its lowercased copy.
enum UUIDText {
    private static let digits = Array("0123456789abcdef".utf8)

    static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        precondition(bytes.count == 16, "a UUID has 16 bytes")
        return String(unsafeUninitializedCapacity: 36) { text in
            var at = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[at] = UInt8(ascii: "-")
                    at += 1
                }
                text[at] = digits[Int(byte >> 4)]
                text[at + 1] = digits[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }
}

/// Random UUIDs (version 4, RFC 9562), lowercase: event ids, MCP sessions, hosts' names.
///
/// Drawn from the system's generator (`getrandom` on Linux), two calls for the 16 bytes.
/// Foundation's `UUID()` on Linux opens `/dev/urandom`, reads it and closes it for every id:
/// three system calls and a file descriptor a completion event paid for.
public enum RandomUUID {
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return make(using: &generator)
    }

    static func make(using generator: inout some RandomNumberGenerator) -> String {
        let high: UInt64 = generator.next()
        let low: UInt64 = generator.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (8 * (index % 8))) }
        bytes[6] = 0x40 | (bytes[6] & 0x0F)  // version 4
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562 variant
        return UUIDText.lowercase(bytes)
    }
}
