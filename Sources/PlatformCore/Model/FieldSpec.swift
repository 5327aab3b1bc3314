import Foundation

/// One option of a choice or multi-choice field.
public struct FieldOption: Sendable, Hashable {
    /// What a client posts and the answer keeps.
    public var value: String
    /// What the person sees.
    public var label: String
    /// A second line under the label.
    public var detail: String?
    /// Shown but not available: picking it is refused with `locked`.
    public var locked: Bool
    /// A short tag shown beside the option.
    public var badge: String?
    /// A URL the option links to.
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
///
/// The whole normalised text must match (no anchors needed); the rule is checked after
/// `minLength` and `maxLength`. A field's `messages[.invalidFormat]`, when set, replaces
/// ``message``.
public struct FieldPattern: @unchecked Sendable {
    /// The source, sent to clients as the field's `pattern` (ICU/JavaScript-compatible syntax is
    /// the safe subset: classes, quantifiers, anchors are implied).
    public let source: String
    /// The `invalid_format` message; nil: "<label> is not in the expected format."
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
///
/// ``FieldValidator`` checks a posted value against it and returns the value as it is kept.
/// Each rule fails with one `FieldErrorCode`, and its message is the field's ``messages`` entry
/// for that code when there is one, else a generic message naming the ``label``.
public struct FieldSpec: Sendable {
    /// The key of the value in a submit and in the saved answers: unique in the whole flow
    /// (checked at registration, ``Flow/definitionProblems(_:)``).
    public var id: String
    /// What kind of value it takes; a value of the wrong JSON type is `invalid_type`.
    public var type: FieldType
    /// What the person sees; generic messages name the field by it.
    public var label: String
    /// Whether an answer is needed: no value, `null`, an empty or blank text (blank is kept when
    /// normalization is `.none`), or an empty `list` or `multi_choice` (with no `minItems`) is
    /// `required`.
    /// A hidden field (``visibleWhen``) is not checked, required or not.
    public var required: Bool
    /// Hint text shown in an empty input.
    public var placeholder: String?
    /// For `choice` and `multi_choice`: a value not among them is `not_an_option`, a locked one
    /// is `locked` (with the option's `lockedMessage`).
    public var options: [FieldOption]
    /// For `integer`, `number` and `slider`: the lowest value allowed, else `out_of_range`.
    public var min: Double?
    /// For `integer`, `number` and `slider`: the highest value allowed, else `out_of_range`.
    public var max: Double?
    /// For `number` and `slider`: the value must be `min` (or 0) plus a whole number of steps,
    /// else `invalid_format`.
    public var step: Double?
    /// For `date` and `time`: the earliest value allowed, else `out_of_range`; fixed or counted
    /// from the command's day. Clients see it as `min`.
    public var earliest: TemporalBound?
    /// For `date` and `time`: the latest value allowed, else `out_of_range`. Clients see it as `max`.
    public var latest: TemporalBound?
    /// For `text`: the fewest characters after normalisation, else `too_short`.
    public var minLength: Int?
    /// For `text`: the most characters after normalisation, else `too_long`.
    public var maxLength: Int?
    /// For `multi_choice` and `list`: the fewest choices or entries, else `count`.
    public var minItems: Int?
    /// For `multi_choice` and `list`: the most choices or entries, else `count`.
    public var maxItems: Int?
    /// Sent to clients as the field's `default`, for them to preselect; the server does not fill
    /// it in for a value that was not posted.
    public var defaultValue: JSONValue?
    /// Shows the field only while another field has a given value (read from the same submit,
    /// else from the saved answers). While hidden the field is not checked, so ``required`` does
    /// not apply, and its value is dropped from the submit and, for a step ahead, from the
    /// saved answers.
    public var visibleWhen: VisibilityCondition?
    /// For `multi_choice`: entries may also be objects of the person's own (a custom goal), whose
    /// `title` is normalised with ``TextNormalization/collapsedSpaces``. A choice or title picked
    /// twice (titles compared ignoring case) is `duplicate`.
    public var allowCustom: Bool
    /// For `list` fields: the keys of each item.
    ///
    /// Each entry must be an object; its keys are checked against these specs and other keys are
    /// dropped. Errors of entries land on the list field itself, each message starting
    /// "Entry N: ", and all of them are reported at once, followed by a `count` error if any.
    public var itemFields: [FieldSpec]
    /// For `text`: how the answer is cleaned before it is checked and kept; `.trimmed` by default.
    public var normalization: TextNormalization
    /// Copy in the app's voice that replaces the generic message for a code.
    ///
    /// It also replaces a ``pattern``'s message and a locked option's `lockedMessage`; it does
    /// not replace a ``SearchProvider``'s `unknownValueError`.
    public var messages: [FieldErrorCode: String]
    /// Extra, field-type specific data sent to clients (a slider's value bands, say).
    public var extra: [String: JSONValue]
    /// A value the server must not be able to recover later (a birthdate): it is left out of the
    /// retry digest, whose input space is small enough to search.
    ///
    /// It is never saved with the step's answers either: read it in `validate`, `stored` or
    /// `transition`, and keep what is derived from it (an age bracket) under another key.
    public var sensitive: Bool
    /// For `text` fields: the whole answer must match it (after normalisation).
    ///
    /// A text that does not match is `invalid_format`, with the pattern's ``FieldPattern/message``.
    public var pattern: FieldPattern?
    /// For fields editable after onboarding: the record (by name) the value lives in, under the
    /// field's id; `profile.update` writes it there by default.
    public var record: String?

    public init(
        id: String, type: FieldType, label: String, required: Bool = true,
        placeholder: String? = nil, options: [FieldOption] = [],
        min: Double? = nil, max: Double? = nil, step: Double? = nil,
        earliest: TemporalBound? = nil, latest: TemporalBound? = nil,
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
        self.earliest = earliest
        self.latest = latest
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

    /// The option whose value is `value`, if the field offers it.
    public func option(_ value: String) -> FieldOption? {
        options.first { $0.value == value }
    }

    /// Whether the field's own checks depend on the command's day (a relative date bound), so
    /// a saved answer may no longer pass them on another day.
    public var dependsOnToday: Bool {
        earliest?.isRelative == true || latest?.isRelative == true
    }

    /// Whether the field is shown, given the values it could depend on.
    ///
    /// - Parameter values: the value of a field by id (the engine reads the submit first, then the
    ///   saved answers).
    /// - Returns: true when the field has no ``visibleWhen``, or its field's value equals the
    ///   condition's.
    public func isVisible(given values: (String) -> JSONValue?) -> Bool {
        guard let condition = visibleWhen else { return true }
        return values(condition.field) == condition.equals
    }

    /// The FieldView of the contract, with the saved answer as `value`.
    ///
    /// - Parameters:
    ///   - value: the saved answer.
    ///   - today: the command's day, which relative date bounds are counted from (the engine
    ///     passes it; the default, today by the wall clock, is for views made outside a command).
    public func view(value: JSONValue?, today: CalendarDate = CalendarDate(Date())) -> FieldView {
        var view = FieldView(
            id: id, type: type, label: label, required: required, placeholder: placeholder,
            options: options.isEmpty ? nil : options.map(\.view),
            min: earliest.map { .string($0.text(on: today)) } ?? min.map(JSONValue.number),
            max: latest.map { .string($0.text(on: today)) } ?? max.map(JSONValue.number),
            step: step.map(JSONValue.number),
            minLength: minLength, maxLength: maxLength, minItems: minItems, maxItems: maxItems,
            default: defaultValue, value: value.flatMap { $0.isNull ? nil : $0 }, visibleWhen: visibleWhen,
            allowCustom: allowCustom ? true : nil,
            itemFields: itemFields.isEmpty ? nil : itemFields.map { $0.view(value: nil, today: today) },
            pattern: pattern?.source, extra: extra)
        view.adoptKnownKeys()
        return view
    }
}
