import Foundation

/// Guards actions of a user who has completed onboarding.
public protocol Gate: Sendable {
    var id: String { get }
    /// The decision for `action`, or nil when this gate does not guard it.
    func decide(action: String, profile: Profile) -> GateDecision?
}

/// The copy of the gate that blocks every action until onboarding is complete.
public struct OnboardingGate: Sendable, Hashable {
    public var id: String
    public var title: String
    public var message: String
    public var cta: String?

    public init(id: String = "onboarding", title: String = "Finish onboarding",
                message: String = "Complete onboarding to continue.", cta: String? = "Continue Onboarding") {
        self.id = id
        self.title = title
        self.message = message
        self.cta = cta
    }

    public func decision(for action: String) -> GateDecision {
        GateDecision(
            action: action, allowed: false, gate: id, title: title, message: message, cta: cta,
            requirements: [GateRequirement(id: "onboarding", label: "Complete onboarding", satisfied: false)]
        )
    }
}

/// Options for a `search` field.
public protocol SearchProvider: Sendable {
    /// Results, best first, each with at least `value` and `label`.
    func search(_ query: String, limit: Int) -> [SearchResult]
    /// What is kept for a chosen result id, or nil when the id is unknown.
    func resolve(_ id: String) -> JSONValue?
    /// The error for a value that is not a known id.
    func unknownValueError(field: String) -> FieldError
    /// Shown when a search finds nothing.
    var emptyMessage: String { get }
    /// The id inside an object this provider stored, so a client may post back the saved value.
    func id(ofStored value: JSONValue) -> String?
}

extension SearchProvider {
    public func unknownValueError(field: String) -> FieldError {
        FieldError(field: field, code: .notAnOption, message: "Choose one of the search results.")
    }
    public var emptyMessage: String { "No results found" }
    public func id(ofStored value: JSONValue) -> String? { value["value"]?.stringValue }
}

/// One app's onboarding, served under its tenant id.
public protocol OnboardingPlugin: Sendable {
    /// The tenant id it is served under (`statlocker`).
    var id: String { get }
    /// The app's name (`StatLocker`).
    var name: String { get }
    var version: String { get }
    var flows: [Flow] { get }
    var gates: [any Gate] { get }
    var onboardingGate: OnboardingGate { get }
    /// Fields a user may change after onboarding with `profile.update`.
    var editableFields: [FieldSpec] { get }
    /// Search providers by field id.
    var searchProviders: [String: any SearchProvider] { get }
    /// The name used in copy when the user gave none.
    var defaultDisplayName: String { get }
    /// Content shown before sign-in (`flow.describe`'s `intro`).
    var intro: JSONValue? { get }
    /// The label of the plugin's log lines (its Logger's label and the lines' source).
    var logLabel: String { get }
    /// Applies validated `profile.update` values to the records; may add cross-field errors.
    /// `context` has the tenant, the user, the time, `newID()` and `log(_:_:metadata:)`, and no
    /// answers; lines logged through it are written once the update has committed.
    func updatedRecords(
        _ profile: Profile, with values: [String: JSONValue], in context: StepContext
    ) throws(ValidationFailure) -> [String: JSONValue]
    /// Loads what the plugin needs before its first request (a gazetteer). The host runs it once,
    /// on a thread of its own, before the tenant's first request, never inside a transaction.
    func prepare()
}

/// Field errors raised outside a step (profile updates).
public struct ValidationFailure: Error, Sendable {
    public var errors: [FieldError]
    public init(_ errors: [FieldError]) { self.errors = errors }
}

extension OnboardingPlugin {
    public var gates: [any Gate] { [] }
    public var onboardingGate: OnboardingGate { OnboardingGate() }
    public var editableFields: [FieldSpec] { [] }
    public var searchProviders: [String: any SearchProvider] { [:] }
    public var defaultDisplayName: String { "there" }
    public var intro: JSONValue? { nil }
    public func prepare() {}

    public func flow(_ id: String) -> Flow? {
        flows.first { $0.id == id }
    }

    /// The validator for this plugin's fields, with its search providers wired in.
    public var validator: FieldValidator { FieldValidator(searchProviders: searchProviders) }

    /// The name without spaces (`AFL Fantasy` logs as `AFLFantasy`, like its module).
    public var logLabel: String { name.filter { !$0.isWhitespace } }

    /// By default each validated value is written into the record its field names
    /// (`FieldSpec.record`), under the field's id; `null` clears it (the key is kept as null).
    /// A plugin overrides this only for rules across fields or records of its own shape.
    public func updatedRecords(
        _ profile: Profile, with values: [String: JSONValue], in context: StepContext
    ) throws(ValidationFailure) -> [String: JSONValue] {
        try Self.merge(values, into: profile.records, editable: editableFields)
    }

    /// Writes `values` into the records their editable fields name. A field with no record, or a
    /// record that is not an object, is an error of the plugin's definition, reported as
    /// `not_editable` so nothing is written.
    public static func merge(
        _ values: [String: JSONValue], into records: [String: JSONValue], editable: [FieldSpec]
    ) throws(ValidationFailure) -> [String: JSONValue] {
        var records = records
        var errors: [FieldError] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let spec = editable.first(where: { $0.id == key }), let name = spec.record,
                  var record = (records[name] ?? [:]).objectValue else {
                errors.append(FieldError(field: key, code: .notEditable, message: "\(key) can't be changed after onboarding."))
                continue
            }
            record[key] = value
            records[name] = .object(record)
        }
        guard errors.isEmpty else { throw ValidationFailure(errors) }
        return records
    }
}
