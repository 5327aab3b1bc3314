/// The contract's field-level error codes.
public enum FieldErrorCode: String, Sendable, Hashable, CaseIterable {
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
public struct FieldError: Error, Sendable, Hashable {
    /// The field it belongs to; nil for an error of the whole step.
    public var field: String?
    public var code: FieldErrorCode
    public var message: String

    public init(field: String?, code: FieldErrorCode, message: String) {
        self.field = field
        self.code = code
        self.message = message
    }

    public var json: JSONValue {
        ["field": field.map(JSONValue.string) ?? .null, "code": .string(code.rawValue), "message": .string(message)]
    }

    init?(json: JSONValue) {
        guard let code = json["code"]?.stringValue.flatMap(FieldErrorCode.init(rawValue:)),
              let message = json["message"]?.stringValue else { return nil }
        self.init(field: json["field"]?.stringValue, code: code, message: message)
    }
}
