/// One option of a choice or multi-choice field.
public struct FieldOption: Sendable, Hashable {
    public var value: String
    public var label: String
    public var detail: String?
    public var locked: Bool
    public var badge: String?
    public var link: String?
    /// What the person is told when they pick a locked option.
    public var lockedMessage: String?

    public init(
        value: String, label: String, detail: String? = nil, locked: Bool = false,
        badge: String? = nil, link: String? = nil, lockedMessage: String? = nil
    ) {
        self.value = value
        self.label = label
        self.detail = detail
        self.locked = locked
        self.badge = badge
        self.link = link
        self.lockedMessage = lockedMessage
    }

    /// The option as a client sees it (without the server's locked message).
    public var view: OptionView {
        OptionView(value: value, label: label, detail: detail, locked: locked, badge: badge, link: link)
    }
}

/// A regular expression a text answer must match as a whole, with the message (in the app's
/// voice) a person sees when it does not: `invalid_format`.
public struct FieldPattern: @unchecked Sendable {
    /// The source, sent to clients as the field's `pattern` (ICU/JavaScript-compatible syntax is
    /// the safe subset: classes, quantifiers, anchors are implied).
    public let source: String
    public let message: String?
    /// Compiled once; Regex is immutable after creation, so sharing it across threads is safe.
    let regex: Regex<AnyRegexOutput>

    /// Fails (a definition error, caught at registration in tests) when `source` does not compile.
    public init(_ source: String, message: String? = nil) throws {
        self.source = source
        self.message = message
        self.regex = try Regex(source)
    }
}

/// How a text answer is cleaned before it is checked and kept.
public enum TextNormalization: Sendable, Hashable {
    /// Leading and trailing whitespace removed.
    case trimmed
    /// Trimmed, Unicode NFC, runs of whitespace collapsed to one space.
    case collapsedSpaces
    /// Kept exactly as sent.
    case none
}

/// Everything the server knows about one input: how it is shown and how it is validated.
public struct FieldSpec: Sendable {
    public var id: String
    public var type: FieldType
    public var label: String
    public var required: Bool
    public var placeholder: String?
    public var options: [FieldOption]
    public var min: Double?
    public var max: Double?
    public var step: Double?
    public var minLength: Int?
    public var maxLength: Int?
    public var minItems: Int?
    public var maxItems: Int?
    public var defaultValue: JSONValue?
    public var visibleWhen: VisibilityCondition?
    public var allowCustom: Bool
    /// For `list` fields: the keys of each item.
    public var itemFields: [FieldSpec]
    public var normalization: TextNormalization
    /// Copy in the app's voice that replaces the generic message for a code.
    public var messages: [FieldErrorCode: String]
    /// Extra, field-type specific data sent to clients (a slider's value bands, say).
    public var extra: [String: JSONValue]
    /// A value the server must not be able to recover later (a birthdate): it is left out of the
    /// retry digest, whose input space is small enough to search.
    public var sensitive: Bool
    /// For `text` fields: the whole answer must match it (after normalisation).
    public var pattern: FieldPattern?
    /// For fields editable after onboarding: the record (by name) the value lives in, under the
    /// field's id; `profile.update` writes it there by default.
    public var record: String?

    public init(
        id: String, type: FieldType, label: String, required: Bool = true,
        placeholder: String? = nil, options: [FieldOption] = [],
        min: Double? = nil, max: Double? = nil, step: Double? = nil,
        minLength: Int? = nil, maxLength: Int? = nil,
        minItems: Int? = nil, maxItems: Int? = nil,
        defaultValue: JSONValue? = nil, visibleWhen: VisibilityCondition? = nil,
        allowCustom: Bool = false, itemFields: [FieldSpec] = [],
        normalization: TextNormalization = .trimmed,
        messages: [FieldErrorCode: String] = [:], extra: [String: JSONValue] = [:], sensitive: Bool = false,
        pattern: FieldPattern? = nil, record: String? = nil
    ) {
        self.pattern = pattern
        self.record = record
        self.id = id
        self.type = type
        self.label = label
        self.required = required
        self.placeholder = placeholder
        self.options = options
        self.min = min
        self.max = max
        self.step = step
        self.minLength = minLength
        self.maxLength = maxLength
        self.minItems = minItems
        self.maxItems = maxItems
        self.defaultValue = defaultValue
        self.visibleWhen = visibleWhen
        self.allowCustom = allowCustom
        self.itemFields = itemFields
        self.normalization = normalization
        self.messages = messages
        self.extra = extra
        self.sensitive = sensitive
    }

    public func option(_ value: String) -> FieldOption? {
        options.first { $0.value == value }
    }

    /// Whether the field is shown, given the values it could depend on.
    public func isVisible(given values: (String) -> JSONValue?) -> Bool {
        guard let condition = visibleWhen else { return true }
        return values(condition.field) == condition.equals
    }

    /// The FieldView of the contract, with the saved answer as `value`.
    public func view(value: JSONValue?) -> FieldView {
        var view = FieldView(
            id: id, type: type, label: label, required: required, placeholder: placeholder,
            options: options.isEmpty ? nil : options.map(\.view),
            min: min.map(JSONValue.number), max: max.map(JSONValue.number), step: step.map(JSONValue.number),
            minLength: minLength, maxLength: maxLength, minItems: minItems, maxItems: maxItems,
            default: defaultValue, value: value.flatMap { $0.isNull ? nil : $0 }, visibleWhen: visibleWhen,
            allowCustom: allowCustom ? true : nil,
            itemFields: itemFields.isEmpty ? nil : itemFields.map { $0.view(value: nil) },
            pattern: pattern?.source, extra: extra)
        view.adoptKnownKeys()
        return view
    }
}
