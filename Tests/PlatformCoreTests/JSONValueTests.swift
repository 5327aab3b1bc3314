import Testing

@testable import PlatformCore
@testable import PlatformServer
@testable import PlatformStorage
@testable import SQLiteStore

struct JSONValueTests {
    // MARK: - Parsing: rejected input

    @Test(arguments: [
        "[1,]", "[1,2,]", "[,]", "{\"a\":1,}", "{,}",
        "[1] // comment", "/* c */ [1]", "[1 /* c */]",
        "['a']", "{'a':1}",
        "NaN", "[NaN]", "[-Infinity]", "[Infinity]",
        "01", "[-01]", "[00]", "[+1]", "[.5]", "[1.]", "[1.e3]", "[0x1F]", "[1e]", "[-]",
        "", " ", "[", "]", "{\"a\"}", "{\"a\" 1}", "{1:1}", "[1 2]", "[1] x", "[1][2]",
        "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\uZZZZ\"", "\"a\tb\"", "\"a\nb\"",
        "tru", "nul", "True", "[\u{0C}1]",
    ])
    func rejectsInvalidJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test(arguments: [
        [0x22, 0xFF, 0x22] as [UInt8],  // byte never valid in UTF-8
        [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
        [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong 3-byte
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8 encoded surrogate U+D800
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],  // lead byte > 0xF4
        [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
        [0x22, 0x80, 0x22],  // lone continuation byte
        [0xEF, 0xBB, 0xBF, 0x5B, 0x5D],  // BOM before "[]"
        [0x5B, 0xE2, 0x5D],  // non-ASCII outside a string
    ])
    func rejectsInvalidUTF8(_ bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(bytes) }
    }

    @Test func errorReportsOffset() throws {
        let error = try #require(throws: JSONParseError.self) { try JSONValue.parse("[1, 2,]") }
        #expect(error.offset == 6)
        #expect(error.description.contains("byte 6"))
    }

    @Test func deepNestingIsRejectedWithoutCrashing() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        let deepObjects = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deepObjects) }
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let limit = 512
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONValue.parse(atLimit) }
        let beyond = "[" + atLimit + "]"
        #expect(throws: JSONParseError.self) { try JSONValue.parse(beyond) }
    }

    // MARK: - Parsing: accepted input

    @Test func parsesNestedDocument() throws {
        let value = try JSONValue.parse(" {\"a\": [1, -2.5, true, false, null, \"x\"], \"b\": {}} \r\n\t")
        #expect(value == ["a": [1, -2.5, true, false, nil, "x"], "b": [:]])
    }

    @Test func distinguishesIntegersFromDoubles() throws {
        #expect(try JSONValue.parse("42") == .int(42))
        guard case .int(42) = try JSONValue.parse("42") else {
            Issue.record("expected .int")
            return
        }
        guard case .double(42) = try JSONValue.parse("42.0") else {
            Issue.record("expected .double")
            return
        }
        guard case .double(420) = try JSONValue.parse("4.2e2") else {
            Issue.record("expected .double")
            return
        }
        guard case .int(0) = try JSONValue.parse("-0") else {
            Issue.record("expected .int")
            return
        }
        guard case .int(Int64.min) = try JSONValue.parse("-9223372036854775808") else {
            Issue.record("expected Int64.min")
            return
        }
        guard case .int(Int64.max) = try JSONValue.parse("9223372036854775807") else {
            Issue.record("expected Int64.max")
            return
        }
        guard case .double(let big) = try JSONValue.parse("9223372036854775808") else {
            Issue.record("expected .double for Int64 overflow")
            return
        }
        #expect(big == 9223372036854775808.0)
    }

    @Test func hugeExponentBecomesInfinityAndSerializesAsNull() throws {
        let value = try JSONValue.parse("[1e400]")
        #expect(value.arrayValue?.first?.doubleValue == .infinity)
        #expect(value.serialized() == "[null]")
    }

    @Test func escapesAreDecoded() throws {
        let value = try JSONValue.parse(#""\"\\\/\b\f\n\r\t\u0041\u00e9""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\tAé"))
    }

    @Test func surrogatePairDecodesToOneScalar() throws {
        let value = try JSONValue.parse(#""\uD83D\uDE00""#)
        #expect(value == .string("😀"))
        #expect(value.stringValue?.unicodeScalars.count == 1)
    }

    @Test func loneSurrogateEscapesBecomeReplacementCharacter() throws {
        #expect(try JSONValue.parse(#""\uD800""#) == .string("\u{FFFD}"))
        #expect(try JSONValue.parse(#""\uDC00x""#) == .string("\u{FFFD}x"))
        #expect(try JSONValue.parse(#""\uD800\u0041""#) == .string("\u{FFFD}A"))
        #expect(try JSONValue.parse(#""\uD800\uD800\uDC00""#) == .string("\u{FFFD}\u{10000}"))
    }

    @Test func rawMultibyteUTF8IsAccepted() throws {
        #expect(try JSONValue.parse("\"é€😀\"") == .string("é€😀"))
        #expect(try JSONValue.parse([0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22]) == .string("\u{10FFFF}"))
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        #expect(try JSONValue.parse(#"{"a":1,"a":2}"#) == ["a": 2])
        let literal: JSONValue = ["a": 1, "a": 2]
        #expect(literal == ["a": 2])
    }

    @Test func parsesFromNonContiguousCollection() throws {
        let bytes = Array("[1,\"a\"]".utf8).lazy.map { $0 }
        #expect(try JSONValue.parse(bytes) == [1, "a"])
    }

    // MARK: - Value semantics

    @Test func integralNumbersCompareAcrossCases() {
        #expect(JSONValue.int(1) == .double(1.0))
        #expect(JSONValue.double(-0.0) == .int(0))
        #expect(JSONValue.int(1) != .double(1.5))
        #expect(JSONValue.int(Int64.max) != .double(9223372036854775808.0))
        #expect(JSONValue.int(1) != .bool(true))
        #expect(Set<JSONValue>([.int(1), .double(1.0), .double(2.5)]).count == 2)
        #expect(JSONValue.int(3).hashValue == JSONValue.double(3).hashValue)
    }

    @Test func objectsCompareAsDictionaries() {
        let a: JSONValue = ["x": 1, "y": [true, nil]]
        let b: JSONValue = ["y": [true, nil], "x": 1.0]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ["x": 1])
    }

    @Test func accessorsMatchOnlyTheirCase() {
        let value: JSONValue = ["s": "text", "i": 7, "d": 2.0, "f": 2.5, "b": true, "n": nil, "a": [1]]
        #expect(value["s"]?.stringValue == "text")
        #expect(value["i"]?.intValue == 7)
        #expect(value["d"]?.intValue == 2)
        #expect(value["f"]?.intValue == nil)
        #expect(value["i"]?.doubleValue == 7)
        #expect(value["f"]?.doubleValue == 2.5)
        #expect(value["b"]?.boolValue == true)
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?.arrayValue == [1])
        #expect(value.objectValue?.count == 7)
        #expect(value["missing"] == nil)
        #expect(value["s"]?["x"] == nil)
        #expect(value["s"]?.intValue == nil)
        #expect(value["i"]?.stringValue == nil)
        #expect(JSONValue.double(1e300).intValue == nil)
    }

    @Test func typeNames() {
        let values: [JSONValue] = [nil, true, 1, 1.5, "s", [], [:]]
        #expect(values.map(\.typeName) == ["null", "boolean", "integer", "number", "string", "array", "object"])
    }

    // MARK: - Serialization

    @Test func serializesCompactlyWithSortedKeys() {
        let value: JSONValue = ["b": [1, 2.5, nil, false], "a": ["z": "", "é": 1, "Z": 0], "c": true]
        #expect(value.serialized() == #"{"a":{"Z":0,"z":"","é":1},"b":[1,2.5,null,false],"c":true}"#)
        #expect(value.serializedBytes() == Array(value.serialized().utf8))
    }

    @Test func keyOrderIsDeterministic() throws {
        let text = #"{"delta":1,"alpha":2,"charlie":3,"bravo":4}"#
        let first = try JSONValue.parse(text).serialized()
        let second = try JSONValue.parse(#"{"bravo":4,"charlie":3,"alpha":2,"delta":1}"#).serialized()
        #expect(first == second)
        #expect(first == #"{"alpha":2,"bravo":4,"charlie":3,"delta":1}"#)
    }

    @Test func serializerEscapesStrings() {
        let value = JSONValue.string("q\"b\\n\nr\rt\tb\u{08}f\u{0C}\u{00}\u{1F}\u{7F}/ls\u{2028}ps\u{2029}é😀")
        let text = value.serialized()
        #expect(text == #""q\"b\\n\nr\rt\tb\bf\f\u0000\u001f"# + "\u{7F}" + #"/ls\u2028ps\u2029é😀""#)
        #expect(!text.utf8.contains(0x0A))
        #expect(!text.utf8.contains(0x0D))
        #expect(text.utf8.allSatisfy { $0 >= 0x20 })
    }

    @Test func nonFiniteDoublesSerializeAsNull() {
        let value: JSONValue = [.double(.infinity), .double(-.infinity), .double(.nan)]
        #expect(value.serialized() == "[null,null,null]")
    }

    @Test func doublesSerializeAsValidJSON() throws {
        let doubles: [Double] = [0, -0.0, 5, 0.4545, 1e-05, 1.5e300, -2.5e-308, 1e16, 123_456_789_012_345_680, .pi]
        for double in doubles {
            let text = JSONValue.double(double).serialized()
            let parsed = try JSONValue.parse(text)
            #expect(parsed.doubleValue == double, "\(text)")
        }
        #expect(JSONValue.int(Int64.min).serialized() == "-9223372036854775808")
    }

    @Test func roundTripsNestedValue() throws {
        let value: JSONValue = [
            "name": "line1\nline2 \u{2028} \"quoted\" \\ é 😀",
            "numbers": [0, -1, 9_223_372_036_854_775_807, -9_223_372_036_854_775_808, 1.25, -3.5e-10, 6.02e23],
            "flags": [true, false, nil],
            "nested": ["empty": [:], "list": [[], [[]], ["deep": ["deeper": [1]]]]],
            "control": "\u{00}\u{01}\u{1F}",
        ]
        let text = value.serialized()
        #expect(try JSONValue.parse(text) == value)
        #expect(try JSONValue.parse(value.serializedBytes()) == value)
        #expect(try JSONValue.parse(text).serialized() == text)
    }
}

/// Integers: every magnitude, both signs and both ends of the range read as Swift writes them;
/// object members in the byte order of their keys.
@Suite struct JSONIntegerWritingTests {
    @Test(arguments: [0, 7, -7, 9, 10, -10, 99, 100, 1_234_567_890, -987_654_321, Int64.max, Int64.min])
    func anIntegerIsWrittenAsItsDecimalText(value: Int64) throws {
        #expect(JSONValue.int(value).serialized() == String(value))
        #expect(try JSONValue.parse(Array(JSONValue.int(value).serialized().utf8)) == .int(value))
    }

    @Test func objectsAreWrittenInByteOrderOfTheirKeys() {
        let value: JSONValue = ["b": 1, "a": [2, -3], "É": "x", "Z": .null, "aa": true]
        #expect(value.serialized() == #"{"Z":null,"a":[2,-3],"aa":true,"b":1,"É":"x"}"#)
    }
}
