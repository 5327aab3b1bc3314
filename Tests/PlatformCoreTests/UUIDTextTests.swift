import Foundation
import Testing

@testable import PlatformCore

/// Ids written without Foundation's `UUID()`: the same text Foundation gives for the same bytes,
/// and random ids that are well-formed version 4 UUIDs.
@Suite struct UUIDTextTests {
    @Test func theTextIsFoundationsLowercasedForAnyBytes() {
        var generator = SystemRandomNumberGenerator()
        let edges: [[UInt8]] = [Array(repeating: 0, count: 16), Array(repeating: 0xFF, count: 16), Array(0..<16)]
        let random = (0..<500).map { _ in (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        for bytes in edges + random {
            let uuid = UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
            #expect(UUIDText.lowercase(bytes) == uuid.uuidString.lowercased())
        }
    }

    @Test func randomIdsAreVersionFourDistinctAndLowercase() throws {
        let ids = (0..<1_000).map { _ in RandomUUID.make() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(200) {
            let uuid = try #require(UUID(uuidString: id), "\(id)")
            #expect(id == id.lowercased() && id.count == 36)
            #expect(uuid.uuid.6 >> 4 == 4, "version: \(id)")
            #expect(uuid.uuid.8 >> 6 == 0b10, "variant: \(id)")
        }
    }

    /// The bits a generator gives are the id's, bar the version and variant: nothing else is
    /// fixed, so 122 bits stay random.
    @Test func everyBitButVersionAndVariantComesFromTheGenerator() {
        struct Fixed: RandomNumberGenerator {
            let value: UInt64
            mutating func next() -> UInt64 { value }
        }
        var zeros = Fixed(value: 0)
        var ones = Fixed(value: .max)
        #expect(RandomUUID.make(using: &zeros) == "00000000-0000-4000-8000-000000000000")
        #expect(RandomUUID.make(using: &ones) == "ffffffff-ffff-4fff-bfff-ffffffffffff")
    }
}
