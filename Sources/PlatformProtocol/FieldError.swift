/// The contract's field-level error codes.
public enum FieldErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    case required
    case invalidType = "invalid_type"
    case tooShort = "too_short"
    case tooLong = "too_long"
    case outOfRange = "out_of_range"
    case invalidFormat = "invalid_format"
    case notAnOption = "not_an_option"
    case locked
    case count
    case duplicate
    case overlap
    case unknownCity = "unknown_city"
    case notEditable = "not_editable"
}

/// One reason a submitted value was refused, written for the person filling the form.
public struct FieldError: Error, Sendable, Hashable, Codable {
    /// The field it belongs to; nil (sent as `null`) for an error of the whole step.
    public var field: String?
    public var code: FieldErrorCode
    public var message: String

    public init(field: String?, code: FieldErrorCode, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    enum CodingKeys: String, CodingKey { case field, code, message }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeNullable(field, forKey: .field)
        try container.encode(code, forKey: .code)
        try container.encode(message, forKey: .message)
    }
}
