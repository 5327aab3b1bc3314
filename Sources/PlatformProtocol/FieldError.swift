/// The contract's field-level error codes: what a client may branch on, beside a message it
/// shows as it is.
///
/// The codes a field's own rules give are listed with each case; a plugin's own checks pick the
/// code that fits.
public enum FieldErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// A required field with no value: absent, `null`, blank text, or an empty list or
    /// multi-choice.
    case required
    /// A value of the wrong JSON type for its field (a string for an integer, an entry of a list
    /// that is not an object).
    case invalidType = "invalid_type"
    /// A text shorter than the field's `minLength`.
    case tooShort = "too_short"
    /// A text longer than the field's `maxLength`.
    case tooLong = "too_long"
    /// A number outside the field's `min` and `max`.
    case outOfRange = "out_of_range"
    /// A text that does not match the field's pattern, a date that is not a real `YYYY-MM-DD`, a
    /// time that is not `HH:mm`, or a number off the field's `step`.
    case invalidFormat = "invalid_format"
    /// A choice the field does not offer, or a search value its provider does not know.
    case notAnOption = "not_an_option"
    /// An option the field shows but does not let the person pick yet.
    case locked
    /// Fewer or more choices or list entries than the field's `minItems` and `maxItems`.
    case count
    /// A choice (or custom entry) picked twice.
    case duplicate
    /// Entries that overlap each other (AirFit's availability windows); plugins raise it.
    case overlap
    /// A city the gazetteer does not know (TeePals' search); plugins raise it.
    case unknownCity = "unknown_city"
    /// A `profile.update` key that is not an editable field, or that the profile cannot take.
    case notEditable = "not_editable"
}

/// One reason a submitted value was refused, written for the person filling the form.
///
/// A refused submit answers with every error at once, so a person can fix them all in one go.
public struct FieldError: Error, Sendable, Hashable, Codable {
    /// The field it belongs to; nil (sent as `null`) for an error of the whole step.
    public var field: String?
    /// What kind of refusal it is.
    public var code: FieldErrorCode
    /// The text shown to the person, in the app's voice.
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
