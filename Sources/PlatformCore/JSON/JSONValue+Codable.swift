import Foundation

/// Typed values at the JSON edge: plugins keep their records as Codable structs and convert them
/// here, so the wire keeps one spelling of numbers, strings and dates.
extension JSONValue {
    /// The JSON of `value`, as Foundation's `JSONEncoder` writes it: keys as the type's coding
    /// keys, a nil optional absent unless the type encodes it (`encode(_:forKey:)` writes `null`),
    /// whole doubles without a fraction (`5.0` is `5`), dates as contract timestamps
    /// (`Timestamp.string`: ISO 8601 in UTC, whole seconds).
    public init<T: Encodable>(encoding value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(date))
        }
        self = try JSONValue.parse(encoder.encode(value))
    }

    /// This value read as `type` by Foundation's `JSONDecoder`; dates are read as contract
    /// timestamps (`Timestamp.date`), and anything else there is a decoding error.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.date(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\(text) is not an ISO 8601 UTC timestamp")
            }
            return date
        }
        return try decoder.decode(type, from: Data(serializedBytes()))
    }
}
