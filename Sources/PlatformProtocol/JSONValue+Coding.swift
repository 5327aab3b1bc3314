import Foundation

extension JSONValue {
    /// The JSON value of an `Encodable` wire type: how the server renders every reply.
    public init<Value: Encodable>(encoding value: Value) throws {
        self = try JSONValueEncoder().encode(value)
    }

    /// Decodes this value as a wire type: how a client (or a test) reads a reply.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self) throws -> Value {
        try WireCoding.decoder.decode(type, from: Data(serializedBytes()))
    }
}

/// The decoder every wire type is read back through, so that dates (contract timestamps: ISO
/// 8601 in UTC, whole seconds) read alike everywhere; encoding goes through `JSONValueEncoder`.
/// Foundation's decoder is thread-safe once configured.
enum WireCoding {
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.date(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not an ISO 8601 UTC timestamp")
            }
            return date
        }
        return decoder
    }()
}

/// A keyed container's "write this key even when the value is nil" rule: the contract shows some
/// keys as `null` (a session's `step`, a field's `value`), and synthesised Codable would drop them.
extension KeyedEncodingContainer {
    mutating func encodeNullable<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}

/// An object's members that a type does not name, kept beside its known keys (a field's
/// type-specific data, a search result's coordinates).
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Members of this object not among `known`.
    func extraMembers(excluding known: Set<String>) throws -> [String: JSONValue] {
        let container = try container(keyedBy: AnyCodingKey.self)
        var extra: [String: JSONValue] = [:]
        for key in container.allKeys where !known.contains(key.stringValue) {
            extra[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
        }
        return extra
    }
}

extension Encoder {
    func encodeExtra(_ extra: [String: JSONValue], excluding known: Set<String>) throws {
        guard !extra.isEmpty else { return }
        var container = container(keyedBy: AnyCodingKey.self)
        for (key, value) in extra where !known.contains(key) {
            try container.encode(value, forKey: AnyCodingKey(key))
        }
    }
}

/// The contract's timestamps: ISO 8601 in UTC, whole seconds.
public enum Timestamp {
    /// Made once: a style and its time zone made for every date were a tenth of a completion's
    /// record encoding.
    private static let style = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!)

    /// The date written as the contract writes it (`2026-03-01T09:30:00Z`).
    public static func string(_ date: Date) -> String {
        style.format(date)
    }

    /// The date a contract timestamp names, or nil when the text is not one.
    public static func date(_ text: String) -> Date? {
        try? Date(text, strategy: style)
    }
}
