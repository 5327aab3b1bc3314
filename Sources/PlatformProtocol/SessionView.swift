/// Where a session stands.
public enum SessionStatus: String, Sendable, Hashable, Codable, CaseIterable {
    case active, completed, deferred, rejected
    /// Left unfinished past its tenant's `expireAfterDays`: its answers are gone; `flow.start`
    /// starts the user afresh.
    case expired

    /// Completed, rejected and expired sessions take no more commands.
    public var isFinal: Bool { self == .completed || self == .rejected || self == .expired }
}

/// The contract's SessionView: what every flow command answers with.
public struct SessionView: Sendable, Hashable, Codable {
    public var sessionId: String
    public var tenant: String
    public var userId: String
    public var flow: String
    public var status: SessionStatus
    public var revision: Int
    public var progress: SessionProgress
    /// The step to render; nil once completed or rejected.
    public var step: StepView?
    public var completion: CompletionView?
    public var rejection: Rejection?
    /// The version of the flow the session runs on (protocol 3); nil from an older server.
    public var flowVersion: String?
    /// The locale its texts are in (protocol 3): the nearest the plugin ships to the one the
    /// session asked for, else the plugin's base language; nil from an older server.
    public var locale: String?
    /// The experiment the session is in and the variant it was given (protocol 4); nil when in none.
    public var experiment: ExperimentMembership?

    public init(
        sessionId: String, tenant: String, userId: String, flow: String, status: SessionStatus, revision: Int,
        progress: SessionProgress, step: StepView?, completion: CompletionView? = nil, rejection: Rejection? = nil,
        flowVersion: String? = nil, locale: String? = nil, experiment: ExperimentMembership? = nil
    ) {
        self.flowVersion = flowVersion
        self.locale = locale
        self.experiment = experiment
        self.sessionId = sessionId
        self.tenant = tenant
        self.userId = userId
        self.flow = flow
        self.status = status
        self.revision = revision
        self.progress = progress
        self.step = step
        self.completion = completion
        self.rejection = rejection
    }

    enum CodingKeys: String, CodingKey {
        case sessionId, tenant, userId, flow, status, revision, progress, step, completion, rejection, flowVersion, locale, experiment
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sessionId, forKey: .sessionId)
        try container.encode(tenant, forKey: .tenant)
        try container.encode(userId, forKey: .userId)
        try container.encode(flow, forKey: .flow)
        try container.encodeIfPresent(flowVersion, forKey: .flowVersion)
        try container.encodeIfPresent(locale, forKey: .locale)
        try container.encodeIfPresent(experiment, forKey: .experiment)
        try container.encode(status, forKey: .status)
        try container.encode(revision, forKey: .revision)
        try container.encode(progress, forKey: .progress)
        try container.encodeNullable(step, forKey: .step)
        try container.encodeNullable(completion, forKey: .completion)
        try container.encodeNullable(rejection, forKey: .rejection)
    }
}

/// "Step N of M". A step the flow does not count has index 0 and an empty label.
public struct SessionProgress: Sendable, Hashable, Codable {
    public var index: Int
    public var total: Int
    public var label: String
    /// index / total, rounded to four decimals.
    public var fraction: Double

    public init(index: Int, total: Int, label: String, fraction: Double) {
        self.index = index
        self.total = total
        self.label = label
        self.fraction = fraction
    }
}

/// The contract's step kinds: how a client renders a step.
public enum StepKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Fields to answer.
    case question
    /// A screen of copy (a splash, a motivational screen), usually with no fields.
    case content
    /// A list of items to tick.
    case checklist
    /// A summary of earlier answers, each with a way back to change it.
    case review
    /// A screen shown while server work runs.
    case processing
}

/// A button the step offers: `continue`, `back`, `skip`, `later`, `edit`, or a screen's own.
///
/// A step lists its buttons in its copy; `back` is added by the engine. Of the ids, only
/// `continue`, `skip` and `later` are submits (`SubmitAction`).
public struct StepAction: Sendable, Hashable, Codable {
    /// What the button does: the action a submit names.
    public var id: String
    /// The button's text.
    public var label: String

    public init(_ id: String, _ label: String) {
        self.id = id
        self.label = label
    }

    /// Submits the step's values.
    public static func `continue`(_ label: String = "Continue") -> StepAction { StepAction("continue", label) }
    /// Leaves the step unanswered: its saved answers are cleared.
    public static func skip(_ label: String = "Skip") -> StepAction { StepAction("skip", label) }
    /// Defers the session: the user comes back later.
    public static func later(_ label: String = "Maybe Later") -> StepAction { StepAction("later", label) }
    /// Goes back a step (`flow.back`); added by the server, never listed by a step.
    public static let back = StepAction("back", "Back")
}

/// One screen to render.
public struct StepView: Sendable, Hashable, Codable {
    public var id: String
    public var kind: StepKind
    public var title: String
    public var subtitle: String?
    public var helper: String?
    public var fields: [FieldView]
    public var actions: [StepAction]
    /// Kind-specific data: a motivational screen's message and symbol, a review summary, a carousel.
    public var content: [String: JSONValue]
    /// Reasons to show when the server sent the user back to this step.
    public var errors: [FieldError]

    public init(
        id: String, kind: StepKind, title: String, subtitle: String? = nil, helper: String? = nil,
        fields: [FieldView] = [], actions: [StepAction] = [], content: [String: JSONValue] = [:], errors: [FieldError] = []
    ) {
        self.id = id
        self.kind = kind
        self.title = title
        self.subtitle = subtitle
        self.helper = helper
        self.fields = fields
        self.actions = actions
        self.content = content
        self.errors = errors
    }

    /// The field with this id, if the step shows it.
    public func field(_ id: String) -> FieldView? {
        fields.first { $0.id == id }
    }
}

/// The contract's field types.
public enum FieldType: String, Sendable, Hashable, Codable, CaseIterable {
    case text, integer, number, boolean, date, time, choice, slider, search, list
    case multiChoice = "multi_choice"
}

/// One option of a choice or multi-choice field, as shown.
public struct OptionView: Sendable, Hashable, Codable {
    public var value: String
    public var label: String
    public var detail: String?
    public var locked: Bool
    public var badge: String?
    public var link: String?

    public init(value: String, label: String, detail: String? = nil, locked: Bool = false, badge: String? = nil, link: String? = nil) {
        self.value = value
        self.label = label
        self.detail = detail
        self.locked = locked
        self.badge = badge
        self.link = link
    }
}

/// One input as shown, with its saved answer as `value` (null when none).
public struct FieldView: Sendable, Hashable, Codable {
    public var id: String
    public var type: FieldType
    public var label: String
    public var required: Bool
    public var placeholder: String?
    public var options: [OptionView]?
    /// Bounds: numbers for numeric fields and sliders, `YYYY-MM-DD` or `HH:mm` strings for dates and times.
    public var min: JSONValue?
    public var max: JSONValue?
    public var step: JSONValue?
    public var minLength: Int?
    public var maxLength: Int?
    public var minItems: Int?
    public var maxItems: Int?
    public var `default`: JSONValue?
    public var value: JSONValue?
    /// Shown (and checked and kept) only while this holds.
    public var visibleWhen: FieldCondition?
    /// Required while this holds (`required` is then false: the condition decides).
    public var requiredWhen: FieldCondition?
    /// A multi_choice that also takes custom objects.
    public var allowCustom: Bool?
    /// For `list` fields: the keys of each item.
    public var itemFields: [FieldView]?
    /// A pattern the value must match (a regular expression), when the field has one.
    public var pattern: String?
    /// Type-specific data the field also carries (a slider's value bands, say).
    public var extra: [String: JSONValue]

    public init(
        id: String, type: FieldType, label: String, required: Bool, placeholder: String? = nil,
        options: [OptionView]? = nil, min: JSONValue? = nil, max: JSONValue? = nil, step: JSONValue? = nil,
        minLength: Int? = nil, maxLength: Int? = nil, minItems: Int? = nil, maxItems: Int? = nil,
        default: JSONValue? = nil, value: JSONValue? = nil, visibleWhen: FieldCondition? = nil,
        requiredWhen: FieldCondition? = nil, allowCustom: Bool? = nil, itemFields: [FieldView]? = nil, pattern: String? = nil, extra: [String: JSONValue] = [:]
    ) {
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
        self.default = `default`
        self.value = value
        self.visibleWhen = visibleWhen
        self.requiredWhen = requiredWhen
        self.allowCustom = allowCustom
        self.itemFields = itemFields
        self.pattern = pattern
        self.extra = extra
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, type, label, required, placeholder, options, min, max, step, minLength, maxLength
        case minItems, maxItems, `default`, value, visibleWhen, requiredWhen, allowCustom, itemFields, pattern
    }

    static let knownKeys = Set(CodingKeys.allCases.map(\.stringValue))

    /// Moves members of `extra` that name a known key into that key when it is unset (a plugin may
    /// give a date field's bounds as strings, or a text length it checks itself).
    public mutating func adoptKnownKeys() {
        func take<T>(_ key: CodingKeys, _ slot: inout T?, _ read: (JSONValue) -> T?) {
            guard let value = extra[key.stringValue] else { return }
            if slot == nil, let typed = read(value) { slot = typed }
            extra[key.stringValue] = nil
        }
        take(.placeholder, &placeholder, \.stringValue)
        take(.min, &min) { $0 }
        take(.max, &max) { $0 }
        take(.step, &step) { $0 }
        take(.minLength, &minLength, \.intValue)
        take(.maxLength, &maxLength, \.intValue)
        take(.minItems, &minItems, \.intValue)
        take(.maxItems, &maxItems, \.intValue)
        take(.default, &`default`) { $0 }
        take(.pattern, &pattern, \.stringValue)
        for key in Self.knownKeys where extra[key] != nil { extra[key] = nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        type = try container.decode(FieldType.self, forKey: .type)
        label = try container.decode(String.self, forKey: .label)
        required = try container.decode(Bool.self, forKey: .required)
        placeholder = try container.decodeIfPresent(String.self, forKey: .placeholder)
        options = try container.decodeIfPresent([OptionView].self, forKey: .options)
        min = try container.decodeIfPresent(JSONValue.self, forKey: .min)
        max = try container.decodeIfPresent(JSONValue.self, forKey: .max)
        step = try container.decodeIfPresent(JSONValue.self, forKey: .step)
        minLength = try container.decodeIfPresent(Int.self, forKey: .minLength)
        maxLength = try container.decodeIfPresent(Int.self, forKey: .maxLength)
        minItems = try container.decodeIfPresent(Int.self, forKey: .minItems)
        maxItems = try container.decodeIfPresent(Int.self, forKey: .maxItems)
        `default` = try container.decodeIfPresent(JSONValue.self, forKey: .default)
        value = try container.decodeIfPresent(JSONValue.self, forKey: .value).flatMap { $0.isNull ? nil : $0 }
        // A form of a later version is read as none: the field is shown (the server drops what
        // it hides), and the rest of the view still decodes.
        visibleWhen = (try? container.decodeIfPresent(FieldCondition.self, forKey: .visibleWhen)) ?? nil
        requiredWhen = (try? container.decodeIfPresent(FieldCondition.self, forKey: .requiredWhen)) ?? nil
        allowCustom = try container.decodeIfPresent(Bool.self, forKey: .allowCustom)
        itemFields = try container.decodeIfPresent([FieldView].self, forKey: .itemFields)
        pattern = try container.decodeIfPresent(String.self, forKey: .pattern)
        extra = try decoder.extraMembers(excluding: Self.knownKeys)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(label, forKey: .label)
        try container.encode(required, forKey: .required)
        try container.encodeIfPresent(placeholder, forKey: .placeholder)
        try container.encodeIfPresent(options, forKey: .options)
        try container.encodeIfPresent(min, forKey: .min)
        try container.encodeIfPresent(max, forKey: .max)
        try container.encodeIfPresent(step, forKey: .step)
        try container.encodeIfPresent(minLength, forKey: .minLength)
        try container.encodeIfPresent(maxLength, forKey: .maxLength)
        try container.encodeIfPresent(minItems, forKey: .minItems)
        try container.encodeIfPresent(maxItems, forKey: .maxItems)
        try container.encodeIfPresent(`default`, forKey: .default)
        try container.encode(value ?? .null, forKey: .value)
        try container.encodeIfPresent(visibleWhen, forKey: .visibleWhen)
        try container.encodeIfPresent(requiredWhen, forKey: .requiredWhen)
        try container.encodeIfPresent(allowCustom, forKey: .allowCustom)
        try container.encodeIfPresent(itemFields, forKey: .itemFields)
        try container.encodeIfPresent(pattern, forKey: .pattern)
        try encoder.encodeExtra(extra, excluding: Self.knownKeys)
    }
}

extension JSONValue {
    /// Whole numbers as integers (`2030`, not `2030.0`), so bounds read as the contract writes them.
    public static func number(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 1e15 ? .int(Int64(value)) : .double(value)
    }
}

/// What a completed session shows.
public struct CompletionView: Sendable, Hashable, Codable {
    /// "Welcome to StatLocker, Alex!"
    public var message: String
    /// The names of the records written.
    public var records: [String]
    /// The final screen some flows show after completing.
    public var screen: CompletionScreen?

    public init(message: String, records: [String], screen: CompletionScreen? = nil) {
        self.message = message
        self.records = records
        self.screen = screen
    }
}

/// The final screen a flow shows after completing (AirFit's coach profile, AFL's Complete).
public struct CompletionScreen: Sendable, Hashable, Codable {
    public var title: String
    public var body: String
    /// Lines of the summary, each an object the plugin defines (at least `label`).
    public var summary: [JSONValue]?
    public var actions: [StepAction]?

    public init(title: String, body: String, summary: [JSONValue]? = nil, actions: [StepAction]? = nil) {
        self.title = title
        self.body = body
        self.summary = summary
        self.actions = actions
    }
}

/// A session's place in an experiment: which one, and the variant the person was assigned.
public struct ExperimentMembership: Sendable, Hashable, Codable {
    public var id: String
    public var variant: String

    public init(id: String, variant: String) {
        self.id = id
        self.variant = variant
    }
}

/// Why a session ended without completing (a plugin's `StepTransition.reject`).
public struct Rejection: Sendable, Hashable, Codable {
    /// A code for clients (`underage`).
    public var code: String
    /// The text shown to the person.
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}
