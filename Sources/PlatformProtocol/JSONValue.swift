/// A JSON value as defined by RFC 8259.
///
/// Numbers keep the integer/floating-point distinction of their source text,
/// but equality and hashing treat them as plain JSON numbers, so
/// `.int(1) == .double(1.0)`.
///
/// It is how plugins see answers, records and content: build one with literals
/// (`["title": "Goals", "count": 3]`) and read one with the optional accessors (``stringValue``,
/// ``intValue``, ``subscript(_:)``), which are nil when the value is of another type.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64`.
    case int(Int64)
    /// Every other number.
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

// MARK: - Accessors

extension JSONValue {
    /// The text, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The flag, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The value as `Int` when it is an integer or an integral double in range.
    public var intValue: Int? {
        switch self {
        case .int(let value): Int(exactly: value)
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }

    /// The number as `Double`, when this is any number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { true } else { false }
    }

    /// The member named `key`, or nil when this is not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The JSON type name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

// MARK: - Equality and hashing

extension JSONValue: Hashable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        // Compare through an exact conversion: Double(Int64) rounds, which
        // would make e.g. Int64.max equal to 2^63.
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Int64(exactly: b) == a
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            // Integral doubles must hash like the equal `.int`.
            if let integer = Int64(exactly: value) {
                hasher.combine(2 as UInt8)
                hasher.combine(integer)
            } else {
                hasher.combine(3 as UInt8)
                hasher.combine(value)
            }
        case .string(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(6 as UInt8)
            hasher.combine(value)
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self = .int(value)
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// Later duplicate keys win, matching the parser.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(elements.count)
        for (key, value) in elements {
            object[key] = value
        }
        self = .object(object)
    }
}

// MARK: - Codable

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Value is not representable as JSON")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value):
            // Same policy as `serialized()`: JSON has no non-finite numbers.
            if value.isFinite { try container.encode(value) } else { try container.encodeNil() }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

// MARK: - Serialization

extension JSONValue {
    /// Compact, deterministic JSON text: no whitespace, object keys sorted by
    /// their UTF-8 bytes, non-finite doubles written as `null`.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// The UTF-8 bytes of `serialized()`.
    public func serializedBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.output
    }
}

/// Writes JSON text (the rules of `serialized()`). Also the back end of `JSONRenderable`, which
/// writes wire types without building a `JSONValue` first.
package struct JSONWriter {
    package var output: [UInt8] = []

    package init(capacity: Int = 0) {
        output.reserveCapacity(capacity)
    }

    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null:
            append("null")
        case .bool(let value):
            append(value ? "true" : "false")
        case .int(let value):
            append(String(value))
        case .double(let value):
            // Swift's shortest round-trip description ("5.0", "1e-05",
            // "1.5e+300") is always valid JSON for finite values.
            append(value.isFinite ? value.description : "null")
        case .string(let value):
            writeString(value)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                write(element)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Byte order rather than String's `<`, which compares by
            // canonical equivalence and is not a stable wire order.
            // The members sorted as pairs: no second lookup (and hash) of each key to write it.
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (offset, member) in sorted.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key)
                output.append(UInt8(ascii: ":"))
                write(member.value)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    package mutating func writeString(_ string: String) {
        var string = string
        output.append(UInt8(ascii: "\""))
        string.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            while index < bytes.count {
                let escape = escapeSequence(in: bytes, at: index)
                guard let (replacement, length) = escape else {
                    index += 1
                    continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                output.append(contentsOf: replacement.utf8)
                index += length
                runStart = index
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// The escape for the character starting at `index` and how many bytes it
    /// replaces, or nil when the byte is copied verbatim.
    private func escapeSequence(
        in bytes: UnsafeBufferPointer<UInt8>, at index: Int
    ) -> (String, Int)? {
        switch bytes[index] {
        case UInt8(ascii: "\""): return ("\\\"", 1)
        case UInt8(ascii: "\\"): return ("\\\\", 1)
        case 0x0A: return ("\\n", 1)
        case 0x0D: return ("\\r", 1)
        case 0x09: return ("\\t", 1)
        case 0x08: return ("\\b", 1)
        case 0x0C: return ("\\f", 1)
        case 0x00..<0x20:
            let hex = String(bytes[index], radix: 16)
            return ("\\u00" + (hex.count == 1 ? "0" : "") + hex, 1)
        case 0xE2:
            // U+2028 and U+2029 (E2 80 A8/A9) are valid JSON but break
            // JavaScript and line-oriented consumers.
            guard index + 2 < bytes.count, bytes[index + 1] == 0x80 else { return nil }
            switch bytes[index + 2] {
            case 0xA8: return ("\\u2028", 3)
            case 0xA9: return ("\\u2029", 3)
            default: return nil
            }
        default:
            return nil
        }
    }
}

extension Optional where Wrapped == JSONValue {
    /// nil for a missing member and for JSON null alike.
    public var nonNull: JSONValue? {
        guard let value = self, !value.isNull else { return Optional.none }
        return value
    }
}
