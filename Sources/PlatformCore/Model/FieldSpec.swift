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
    /// A hidden field (``visibleWhen``) is not checked, required or not. With ``requiredWhen``
    /// it is false and the condition decides.
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
    /// For `date`: the day of its month an answer must fall on, else `out_of_range` (checked
    /// after ``earliest`` and ``latest``). Clients see it as `dayOfMonth`.
    public var dayOfMonth: DayOfMonthRule?
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
    /// Shows the field only while the condition holds on other answers (read from the same
    /// submit, else from the saved answers; in a list's ``itemFields``, from the same entry).
    /// While hidden the field is not checked, so ``required`` does not apply, and its value is
    /// dropped from the submit and, for a step ahead, from the saved answers. A hidden field
    /// reads as unanswered to the conditions of the fields after it.
    public var visibleWhen: FieldCondition?
    /// Makes the field required only while the condition holds (read as ``visibleWhen`` reads
    /// it); ``required`` is then false. A field that is hidden is never required.
    public var requiredWhen: FieldCondition?
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
        earliest: TemporalBound? = nil, latest: TemporalBound? = nil, dayOfMonth: DayOfMonthRule? = nil,
        minLength: Int? = nil, maxLength: Int? = nil,
        minItems: Int? = nil, maxItems: Int? = nil,
        defaultValue: JSONValue? = nil, visibleWhen: FieldCondition? = nil, requiredWhen: FieldCondition? = nil,
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
        self.required = requiredWhen == nil ? required : false
        self.placeholder = placeholder
        self.options = options
        self.min = min
        self.max = max
        self.step = step
        self.earliest = earliest
        self.latest = latest
        self.dayOfMonth = dayOfMonth
        self.minLength = minLength
        self.maxLength = maxLength
        self.minItems = minItems
        self.maxItems = maxItems
        self.defaultValue = defaultValue
        self.visibleWhen = visibleWhen
        self.requiredWhen = requiredWhen
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
    /// - Returns: true when the field has no ``visibleWhen``, or it holds.
    public func isVisible(given values: (String) -> JSONValue?) -> Bool {
        visibleWhen?.holds(given: values) ?? true
    }

    /// The field as it applies to these answers: nil while it is hidden, else with ``required``
    /// decided by ``requiredWhen`` when it has one.
    public func applying(_ values: (String) -> JSONValue?) -> FieldSpec? {
        guard isVisible(given: values) else { return nil }
        guard let requiredWhen else { return self }
        var applied = self
        applied.required = requiredWhen.holds(given: values)
        return applied
    }

    /// The FieldView of the contract, with the saved answer as `value`.
    ///
    /// - Parameters:
    ///   - value: the saved answer.
    ///   - today: the command's day, which relative date bounds are counted from (the engine
    ///     passes it; the default, today by the wall clock, is for views made outside a command).
    public func view(value: JSONValue?, today: CalendarDate = CalendarDate(Date())) -> FieldView {
        var view = FieldView(
            id: id, type: type, label: label, required: requiredWhen == nil && required, placeholder: placeholder,
            options: options.isEmpty ? nil : options.map(\.view),
            min: earliest.map { .string($0.text(on: today)) } ?? min.map(JSONValue.number),
            max: latest.map { .string($0.text(on: today)) } ?? max.map(JSONValue.number),
            step: step.map(JSONValue.number),
            minLength: minLength, maxLength: maxLength, minItems: minItems, maxItems: maxItems,
            default: defaultValue, value: value.flatMap { $0.isNull ? nil : $0 }, visibleWhen: visibleWhen,
            requiredWhen: requiredWhen, allowCustom: allowCustom ? true : nil,
            itemFields: itemFields.isEmpty ? nil : itemFields.map { $0.view(value: nil, today: today) },
            pattern: pattern?.source, extra: extra)
        if let dayOfMonth { view.extra["dayOfMonth"] = dayOfMonth.json }
        view.adoptKnownKeys()
        return view
    }
}

/// Reads answers for conditions while fields are applied in order (a step's fields, a list
/// entry's item fields): a field found hidden reads as unanswered to the fields after it.
struct ConditionReader {
    private var hidden: Set<String> = []
    private let read: (String) -> JSONValue?

    init(_ read: @escaping (String) -> JSONValue?) {
        self.read = read
    }

    func value(of id: String) -> JSONValue? {
        hidden.contains(id) ? nil : read(id)
    }

    /// The field as it applies (``FieldSpec/applying(_:)``), nil while hidden.
    mutating func apply(_ spec: FieldSpec) -> FieldSpec? {
        guard let applied = spec.applying(value(of:)) else {
            hidden.insert(spec.id)
            return nil
        }
        return applied
    }
}

extension FieldSpec {
    /// A step's fields as a client sees them: each condition's parts that read fields of other
    /// steps are decided with the session's `answers`, so what is served reads only the step's
    /// own fields (every client can decide it from its form, as the server does); a field they
    /// hide is left out, and a `requiredWhen` they decide becomes `required`.
    static func views(
        of specs: [FieldSpec], saved: [String: JSONValue], answers: (String) -> JSONValue?, today: CalendarDate
    ) -> [FieldView] {
        let local = Set(specs.map(\.id))
        return specs.compactMap { spec in
            var view = spec.view(value: saved[spec.id], today: today)
            switch spec.visibleWhen?.residual(open: local, value: answers) {
            case .decided(false)?: return nil
            case .decided(true)?: view.visibleWhen = nil
            case .open(let rest)?: view.visibleWhen = rest
            case nil: break
            }
            switch spec.requiredWhen?.residual(open: local, value: answers) {
            case .decided(let holds)?:
                view.required = holds
                view.requiredWhen = nil
            case .open(let rest)?: view.requiredWhen = rest
            case nil: break
            }
            return view
        }
    }

    /// The field's conditions by their names, for definition checks.
    var conditions: [(name: String, condition: FieldCondition)] {
        [("visibleWhen", visibleWhen), ("requiredWhen", requiredWhen)].compactMap { name, condition in
            condition.map { (name, $0) }
        }
    }
}

extension FieldCondition {
    /// What is wrong with the condition as data: an ordering against a value that is neither a
    /// number nor a text, `in` without an array, an empty `any` (it never holds).
    var problems: [String] {
        switch self {
        case .compare(let field, let comparison, let operand):
            switch comparison {
            case .lessThan, .atMost, .greaterThan, .atLeast:
                return operand.doubleValue != nil || operand.stringValue != nil
                    ? [] : ["compares \(field) \(comparison.rawValue) \(operand.serialized()), which is neither a number nor a text"]
            case .in:
                return operand.arrayValue != nil ? [] : ["takes \(field) in \(operand.serialized()), which is not an array"]
            default:
                return []
            }
        case .answered:
            return []
        case .all(let conditions):
            return conditions.flatMap(\.problems)
        case .any(let conditions):
            return conditions.isEmpty ? ["has an empty any, which never holds"] : conditions.flatMap(\.problems)
        case .not(let condition):
            return condition.problems
        }
    }
}
