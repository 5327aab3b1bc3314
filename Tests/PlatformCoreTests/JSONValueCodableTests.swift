import Foundation
import Testing

@testable import PlatformCore
@testable import PlatformServer
@testable import PlatformStorage

/// `JSONValue(encoding:)` and `decode(_:)`: the edge between plugins' typed records and the wire.
struct JSONValueCodableTests {
    struct Record: Codable, Hashable {
        var name: String
        var note: String?
        var count: Int
        var ratio: Double
        var whole: Double
        var at: Date
        var link: String
    }

    let record = Record(
        name: "a\u{2028}\"b", note: nil, count: 3, ratio: 0.6, whole: 12, at: Date(timeIntervalSince1970: 1_800_000_000),
        link: "https://example.com/a/b")

    @Test func encodesToTheWireSpelling() throws {
        let json = try JSONValue(encoding: record)
        #expect(
            json == [
                "name": "a\u{2028}\"b", "count": 3, "ratio": 0.6, "whole": 12,
                "at": .string(Timestamp.string(record.at)), "link": "https://example.com/a/b",
            ])
        // A nil optional is absent; whole doubles have no fraction; slashes are not escaped.
        #expect(
            json.serialized()
                == #"{"at":"2027-01-15T08:00:00Z","count":3,"link":"https://example.com/a/b","name":"a\u2028\"b","ratio":0.6,"whole":12}"#)
    }

    @Test func decodesWhatItEncodes() throws {
        #expect(try JSONValue(encoding: record).decode(Record.self) == record)
        #expect(
            try JSONValue.parse(#"{"name":"n","note":null,"count":1,"ratio":1.5,"whole":2.0,"at":"2027-01-15T08:00:00Z","link":""}"#)
                .decode(Record.self).note == nil)
    }

    @Test func datesAreContractTimestamps() throws {
        // Fractions of a second are not kept: the contract's timestamps have whole seconds.
        let json = try JSONValue(encoding: ["at": Date(timeIntervalSince1970: 1_800_000_000.75)])
        #expect(json == ["at": "2027-01-15T08:00:00Z"])
        let bad: JSONValue = ["name": "n", "count": 1, "ratio": 1, "whole": 1, "at": "yesterday", "link": ""]
        #expect(throws: DecodingError.self) { try bad.decode(Record.self) }
    }

    /// Every scalar overload a synthesized `encode(to:)` calls (the keyed and unkeyed ones, and
    /// `encodeIfPresent` with and without a value) writes what the generic path wrote.
    struct Scalars: Codable {
        var text: String
        var flag: Bool
        var count: Int
        var ratio: Double
        var infinite: Double
        var maybeText: String?
        var maybeFlag: Bool?
        var maybeCount: Int?
        var maybeRatio: Double?
        var missingText: String?
        var missingFlag: Bool?
        var missingCount: Int?
        var missingRatio: Double?
        var maybeDate: Date?
        var texts: [String]
        var flags: [Bool]
        var counts: [Int]
        var ratios: [Double]
    }

    @Test func scalarOverloadsWriteWhatTheGenericPathWrote() throws {
        let value = Scalars(
            text: "t", flag: true, count: -7, ratio: 2.5, infinite: .infinity, maybeText: "m", maybeFlag: false, maybeCount: 0,
            maybeRatio: 3, missingText: nil, missingFlag: nil, missingCount: nil, missingRatio: nil,
            maybeDate: Date(timeIntervalSince1970: 1_800_000_000), texts: ["a", ""], flags: [false, true], counts: [1, Int.max],
            ratios: [0.5, 4, .nan])
        #expect(
            try JSONValue(encoding: value) == [
                "text": "t", "flag": true, "count": -7, "ratio": 2.5, "infinite": nil, "maybeText": "m", "maybeFlag": false, "maybeCount": 0,
                "maybeRatio": 3, "maybeDate": "2027-01-15T08:00:00Z", "texts": ["a", ""], "flags": [false, true],
                "counts": [1, .int(Int64(Int.max))], "ratios": [0.5, 4, nil],
            ])
    }
}
