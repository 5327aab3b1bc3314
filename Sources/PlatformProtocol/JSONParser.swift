/// A syntax error in JSON input, located by byte offset.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Offset of the offending byte from the start of the input.
    public var offset: Int
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "invalid JSON at byte \(offset): \(reason)"
    }
}

extension JSONValue {
    /// Parses exactly one RFC 8259 JSON text from UTF-8 bytes.
    ///
    /// Unpaired surrogate escapes decode to U+FFFD, numbers too large for
    /// `Double` become infinite, and duplicate object keys keep the last value.
    public static func parse<Bytes: Collection>(
        _ bytes: Bytes
    ) throws(JSONParseError) -> JSONValue where Bytes.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable(JSONParser.parse) {
            return try result.get()
        }
        return try Array(bytes).withUnsafeBufferPointer(JSONParser.parse).get()
    }

    /// Parses a JSON-RPC message, keeping the exact source text of each request's `id` (of the
    /// top-level object, or of each object of a top-level array, by its position), so that a
    /// reply can echo it unchanged: `12345678901234567890` stays that integer, a string with a
    /// lone surrogate escape stays as written.
    public static func parseMessage<Bytes: Collection>(
        _ bytes: Bytes
    ) throws(JSONParseError) -> (value: JSONValue, rawIDs: [Int: String]) where Bytes.Element == UInt8 {
        let parse: (UnsafeBufferPointer<UInt8>) -> Result<(JSONValue, [Int: String]), JSONParseError> = { buffer in
            var parser = JSONParser(bytes: buffer)
            parser.recordingIDs = true
            do throws(JSONParseError) {
                let value = try parser.parseDocument()
                return .success((value, parser.rawIDs))
            } catch {
                return .failure(error)
            }
        }
        let result = bytes.withContiguousStorageIfAvailable(parse) ?? Array(bytes).withUnsafeBufferPointer(parse)
        let (value, ids) = try result.get()
        return (value, ids)
    }

    /// Parses exactly one RFC 8259 JSON text.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var text = text
        return try text.withUTF8(JSONParser.parse).get()
    }
}

/// Recursive-descent parser over a contiguous byte buffer.
struct JSONParser {
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// When set, the source text of `id` members of top-level requests goes to `rawIDs`.
    var recordingIDs = false
    var rawIDs: [Int: String] = [:]
    /// The position of the element being parsed in a top-level array.
    private var topLevelItem = 0
    private var topLevelIsArray = false

    fileprivate init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        var parser = JSONParser(bytes: bytes)
        do {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        topLevelIsArray = index < bytes.count && bytes[index] == Byte.openBracket
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            throw failure("unexpected \(describeByte(at: index)) after the value")
        }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of input, expected a value") }
        switch bytes[index] {
        case Byte.openBrace: return try parseObject()
        case Byte.openBracket: return try parseArray()
        case Byte.quote: return .string(try parseString())
        case Byte.t: return try parseLiteral("true", as: .bool(true))
        case Byte.f: return try parseLiteral("false", as: .bool(false))
        case Byte.n: return try parseLiteral("null", as: .null)
        case Byte.minus, Byte.zero...Byte.nine: return try parseNumber()
        default: throw failure("unexpected \(describeByte(at: index)), expected a value")
        }
    }

    private mutating func parseLiteral(
        _ literal: StaticString, as value: JSONValue
    ) throws(JSONParseError) -> JSONValue {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count, bytes[index] == byte else {
                throw failure("invalid literal, expected '\(literal)'")
            }
            index += 1
        }
        return value
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == Byte.closeBracket {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            if depth == 1 { topLevelItem = elements.count }
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated array") }
            switch bytes[index] {
            case Byte.comma:
                index += 1
                skipWhitespace()
            case Byte.closeBracket:
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw failure("unexpected \(describeByte(at: index)) in array, expected ',' or ']'")
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == Byte.closeBrace {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            guard index < bytes.count, bytes[index] == Byte.quote else {
                throw failure("unexpected \(describeByte(at: index)) in object, expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == Byte.colon else {
                throw failure("unexpected \(describeByte(at: index)) in object, expected ':'")
            }
            index += 1
            skipWhitespace()
            let start = index
            members[key] = try parseValue()
            if recordingIDs, key == "id", depth == (topLevelIsArray ? 2 : 1) {
                rawIDs[topLevelIsArray ? topLevelItem : 0] = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated object") }
            switch bytes[index] {
            case Byte.comma:
                index += 1
                skipWhitespace()
            case Byte.closeBrace:
                index += 1
                depth -= 1
                return .object(members)
            default:
                throw failure("unexpected \(describeByte(at: index)) in object, expected ',' or '}'")
            }
        }
    }

    /// Consumes the opening bracket or brace, enforcing the depth limit so
    /// hostile input cannot exhaust the stack.
    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maxDepth else {
            throw failure("nesting deeper than \(Self.maxDepth) levels")
        }
        index += 1
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let isNegative = bytes[index] == Byte.minus
        if isNegative { index += 1 }

        guard index < bytes.count, isDigit(bytes[index]) else {
            throw failure("expected a digit in number")
        }
        if bytes[index] == Byte.zero {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw failure("leading zeros are not allowed in numbers")
            }
        } else {
            skipDigits()
        }

        var isInteger = true
        if index < bytes.count, bytes[index] == Byte.period {
            isInteger = false
            index += 1
            try requireDigits(after: "decimal point")
        }
        if index < bytes.count, bytes[index] == Byte.e || bytes[index] == Byte.upperE {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == Byte.plus || bytes[index] == Byte.minus {
                index += 1
            }
            try requireDigits(after: "exponent")
        }

        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let value = Self.int64(fromDigits: text, negative: isNegative) {
            return .int(value)
        }
        // The text is validated JSON number syntax, which Double(String)
        // accepts; out-of-range magnitudes become infinity or zero.
        guard let value = Double(String(decoding: text, as: UTF8.self)) else {
            throw JSONParseError(offset: start, reason: "unrepresentable number")
        }
        return .double(value)
    }

    private mutating func requireDigits(after context: String) throws(JSONParseError) {
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw failure("expected a digit after \(context)")
        }
        skipDigits()
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) {
            index += 1
        }
    }

    /// The integer value of validated integer text, or nil if it overflows.
    private static func int64(fromDigits text: UnsafeBufferPointer<UInt8>, negative: Bool) -> Int64? {
        var value: Int64 = 0
        // Accumulating negative values reaches Int64.min without overflow.
        for byte in text where byte != Byte.minus {
            let digit = Int64(byte &- Byte.zero)
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) =
                negative
                ? shifted.subtractingReportingOverflow(digit)
                : shifted.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            value = next
        }
        return value
    }

    // MARK: Strings

    /// Parses a string starting at its opening quote. Unescaped strings are
    /// built directly from the validated input slice.
    private mutating func parseString() throws(JSONParseError) -> String {
        let openingQuote = index
        index += 1
        var runStart = index
        var unescaped: [UInt8] = []
        var hasEscapes = false
        while index < bytes.count {
            switch bytes[index] {
            case Byte.quote:
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                guard hasEscapes else { return String(decoding: run, as: UTF8.self) }
                unescaped.append(contentsOf: run)
                return String(decoding: unescaped, as: UTF8.self)
            case Byte.backslash:
                hasEscapes = true
                unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try parseEscape(into: &unescaped)
                runStart = index
            case ..<0x20:
                throw failure("unescaped control character \(describeByte(at: index)) in string")
            case ..<0x80:
                index += 1
            default:
                try skipUTF8Sequence()
            }
        }
        throw JSONParseError(offset: openingQuote, reason: "unterminated string")
    }

    /// Decodes the escape at `index` (a backslash) and appends its UTF-8.
    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw failure("unterminated escape sequence") }
        let simple: UInt8? =
            switch bytes[index] {
            case Byte.quote: Byte.quote
            case Byte.backslash: Byte.backslash
            case Byte.slash: Byte.slash
            case Byte.b: 0x08
            case Byte.f: 0x0C
            case Byte.n: 0x0A
            case Byte.r: 0x0D
            case Byte.t: 0x09
            default: nil
            }
        if let simple {
            output.append(simple)
            index += 1
            return
        }
        guard bytes[index] == Byte.u else {
            throw JSONParseError(offset: escapeStart, reason: "invalid escape sequence")
        }
        guard let unit = hexQuad(at: index + 1) else {
            throw JSONParseError(offset: escapeStart, reason: "invalid \\u escape")
        }
        index += 5

        let scalar: Unicode.Scalar
        if UTF16.isLeadSurrogate(unit), let trail = trailSurrogate(at: index) {
            index += 6
            scalar = Unicode.Scalar(UTF16.decode(UTF16.EncodedScalar([unit, trail])))
        } else {
            // Unpaired surrogates cannot be represented in a Swift String.
            scalar = Unicode.Scalar(unit) ?? "\u{FFFD}"
        }
        UTF8.encode(scalar) { output.append($0) }
    }

    /// The low surrogate of a `\uXXXX` escape at `position`, if there is one.
    private func trailSurrogate(at position: Int) -> UInt16? {
        guard position + 1 < bytes.count,
            bytes[position] == Byte.backslash,
            bytes[position + 1] == Byte.u,
            let unit = hexQuad(at: position + 2),
            UTF16.isTrailSurrogate(unit)
        else { return nil }
        return unit
    }

    private func hexQuad(at position: Int) -> UInt16? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case Byte.zero...Byte.nine: digit = byte - Byte.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence at `index` per Unicode Table
    /// 3-7, rejecting overlong forms, encoded surrogates and values above U+10FFFF.
    private mutating func skipUTF8Sequence() throws(JSONParseError) {
        let length: Int
        let secondByte: ClosedRange<UInt8>
        switch bytes[index] {
        case 0xC2...0xDF: (length, secondByte) = (2, 0x80...0xBF)
        case 0xE0: (length, secondByte) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (length, secondByte) = (3, 0x80...0xBF)
        case 0xED: (length, secondByte) = (3, 0x80...0x9F)
        case 0xF0: (length, secondByte) = (4, 0x90...0xBF)
        case 0xF1...0xF3: (length, secondByte) = (4, 0x80...0xBF)
        case 0xF4: (length, secondByte) = (4, 0x80...0x8F)
        default: throw failure("invalid UTF-8 \(describeByte(at: index))")
        }
        guard index + length <= bytes.count,
            secondByte.contains(bytes[index + 1]),
            bytes[index + 2..<index + length].allSatisfy({ 0x80...0xBF ~= $0 })
        else {
            throw failure("invalid UTF-8 sequence")
        }
        index += length
    }

    // MARK: Helpers

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case Byte.space, Byte.tab, Byte.lineFeed, Byte.carriageReturn: index += 1
            default: return
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        Byte.zero...Byte.nine ~= byte
    }

    private func failure(_ reason: String) -> JSONParseError {
        JSONParseError(offset: index, reason: reason)
    }

    private func describeByte(at position: Int) -> String {
        guard position < bytes.count else { return "end of input" }
        let byte = bytes[position]
        if (0x21...0x7E).contains(byte) {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count == 1 ? "0" : "") + hex
    }
}

private enum Byte {
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let slash = UInt8(ascii: "/")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let period = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let b = UInt8(ascii: "b")
    static let e = UInt8(ascii: "e")
    static let upperE = UInt8(ascii: "E")
    static let f = UInt8(ascii: "f")
    static let n = UInt8(ascii: "n")
    static let r = UInt8(ascii: "r")
    static let t = UInt8(ascii: "t")
    static let u = UInt8(ascii: "u")
}
