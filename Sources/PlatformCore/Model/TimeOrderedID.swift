import Foundation

/// UUIDs of version 7 (RFC 9562): the first 48 bits are the Unix time in milliseconds, the rest
/// (74 bits) random. Ids drawn close in time sort close together, so the rows of the sessions
/// in progress (their session row, answers and events, all keyed by session id) share B-tree
/// pages: a group commit of many users' writes touches a few pages at the right edge of each
/// index instead of one random page per user and index, and the WAL gets that many fewer pages.
/// The random part keeps an id as hard to guess as a random UUID's 122 bits would for any use
/// here: no id is a credential (every call is checked against the caller's tenant and user).
public enum TimeOrderedID {
    public static func make(at date: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(milliseconds: UInt64(max(0, date.timeIntervalSince1970 * 1000)), using: &generator)
    }

    static func make(milliseconds: UInt64, using generator: inout some RandomNumberGenerator) -> String {
        let random = (high: generator.next() as UInt64, low: generator.next() as UInt64)
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        for index in 6..<16 { bytes[index] = UInt8(truncatingIfNeeded: (index < 8 ? random.high : random.low) >> (8 * (index % 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // RFC 9562 variant
        return UUIDText.lowercase(bytes)
    }
}
