import Foundation

/// Guards actions of a user who has completed onboarding (`gate.check`).
///
/// The plugin's ``OnboardingPlugin/gates`` are asked in order, before onboarding is complete as
/// after it (``OnboardingPlugin/gateDecision(for:tenant:userId:profile:)``): the first that
/// refuses gives the copy and every refusing gate's requirements are listed; when none refuses,
/// the first decision given is the answer, and when no gate guards the action it is allowed.
/// Before completion ``OnboardingGate`` refuses first, and the gates see a profile with no records.
public protocol Gate: Sendable {
    /// The gate's name, sent as the decision's `gate` (`tier1`).
    var id: String { get }
    /// The decision for `action`, or nil when this gate does not guard it.
    ///
    /// - Parameters:
    ///   - action: the name the client asked about (`post_round`), as the plugin's docs list them.
    ///   - profile: the user's records, written at completion and by `profile.update`.
    /// - Returns: a `GateDecision` with `allowed` and, when refused, the copy and requirements
    ///   to show; nil to leave the action to the other gates.
    func decide(action: String, profile: Profile) -> GateDecision?
}

/// The copy of the gate that blocks every action until onboarding is complete: `gate.check`
/// answers with it for a user who has no profile yet, its `onboarding` requirement listed first
/// beside the plugin's own gates' requirements.
public struct OnboardingGate: Sendable, Hashable {
    /// The decision's `gate`.
    public var id: String
    /// The heading of the blocked screen.
    public var title: String
    /// Why the action is blocked.
    public var message: String
    /// The button's label, or nil for none.
    public var cta: String?

    public init(
        id: String = "onboarding", title: String = "Finish onboarding",
        message: String = "Complete onboarding to continue.", cta: String? = "Continue Onboarding"
    ) {
        self.id = id
        self.title = title
        self.message = message
        self.cta = cta
    }

    /// A refusal of `action` with this copy and one unsatisfied requirement, `onboarding`.
    public func decision(for action: String) -> GateDecision {
        GateDecision(
            action: action, allowed: false, gate: id, title: title, message: message, cta: cta,
            requirements: [GateRequirement(id: "onboarding", label: "Complete onboarding", satisfied: false)]
        )
    }
}

/// Options for a `search` field, registered under the field's id in
/// ``OnboardingPlugin/searchProviders``.
///
/// A client searches with `field.search` and posts a result's `value`; ``FieldValidator`` keeps
/// what ``resolve(_:)`` returns for it.
public protocol SearchProvider: Sendable {
    /// Results, best first, each with at least `value` and `label`.
    ///
    /// - Parameters:
    ///   - query: the text the person typed.
    ///   - limit: the most results to return.
    func search(_ query: String, limit: Int) -> [SearchResult]
    /// `search(_:limit:)` for a session whose texts are in `locale` (a locale the plugin serves):
    /// labels in that language where the provider knows it (a country's name). By default the
    /// labels of `search(_:limit:)`; `emptyMessage` is translated by the host from the catalogs.
    func search(_ query: String, limit: Int, locale: String) -> [SearchResult]
    /// What is kept for a chosen result id, or nil when the id is unknown.
    ///
    /// - Returns: the field's saved value (typically an object with `value`, `label` and what
    ///   else the result knows); nil refuses the submit with ``unknownValueError(field:)``.
    func resolve(_ id: String) -> JSONValue?
    /// The error for a value that is not a known id; by default `not_an_option`,
    /// "Choose one of the search results." The field's `messages` do not replace it.
    func unknownValueError(field: String) -> FieldError
    /// Shown when a search finds nothing.
    var emptyMessage: String { get }
    /// The id inside an object this provider stored, so a client may post back the saved value.
    func id(ofStored value: JSONValue) -> String?
}

extension SearchProvider {
    public func search(_ query: String, limit: Int, locale: String) -> [SearchResult] {
        search(query, limit: limit)
    }
    public func unknownValueError(field: String) -> FieldError {
        FieldError(field: field, code: .notAnOption, message: "Choose one of the search results.")
    }
    public var emptyMessage: String { "No results found" }
    public func id(ofStored value: JSONValue) -> String? { value["value"]?.stringValue }
}

/// One app's onboarding, served under its tenant id.
///
/// A plugin declares its ``flows`` and, for after completion, its ``gates``, its
/// ``editableFields`` and how `profile.update` writes them (``updatedRecords(_:with:in:)``).
/// The host builds it for each tenant through its ``PluginRegistration``. Every requirement but
/// ``id``, ``name``, ``version`` and ``flows`` has a default.
///
/// Each flow's definition is checked when the host starts (``Flow/definitionProblems(_:)``): a
/// wrong one stops the server before it serves anything.
public protocol OnboardingPlugin: Sendable {
    /// The tenant id it is served under (`statlocker`).
    var id: String { get }
    /// The app's name (`StatLocker`).
    var name: String { get }
    /// The plugin's version, reported by `platform.info`.
    var version: String { get }
    /// The plugin's flows; `flow.start` takes the one named, `onboarding` by default. Flow ids
    /// must be unique in a plugin. Each is the newest version of its flow: new sessions start on it.
    var flows: [Flow] { get }
    /// Older versions of the flows that are still served (same flow id, another `version`):
    /// sessions started on one of them finish on it. A version that is neither here nor in
    /// ``flows`` is no longer served, and its sessions move onto the newest (see
    /// ``Flow/migrations``). None by default.
    var olderFlows: [Flow] { get }
    /// Gates for actions after onboarding, asked in order (see ``Gate``); none by default.
    var gates: [any Gate] { get }
    /// What `gate.check` answers before onboarding is complete.
    var onboardingGate: OnboardingGate { get }
    /// Fields a user may change after onboarding with `profile.update`. A key not listed here is
    /// refused with `not_editable`; a listed one is checked like a flow's field (every error of
    /// a list's items), all keys at once, and `null` clears a field that is not `required`.
    var editableFields: [FieldSpec] { get }
    /// Search providers by field id, for the plugin's `search` fields (see ``SearchProvider``).
    var searchProviders: [String: any SearchProvider] { get }
    /// The name used in copy when the user gave none.
    var defaultDisplayName: String { get }
    /// Content shown before sign-in (`flow.describe`'s `intro`).
    var intro: JSONValue? { get }
    /// How its hosted pages look (``Theme``); the platform's own look by default.
    var theme: Theme { get }
    /// The label of the plugin's log lines (its Logger's label and the lines' source).
    var logLabel: String { get }
    /// The translations of the plugin's texts: its String Catalogs (`Localizable.xcstrings` in
    /// its resources, ``StringCatalog/bundled(in:owner:name:)``), whose keys are the texts as the code
    /// writes them. None by default: the plugin's texts are shown as written.
    var stringCatalogs: [StringCatalog] { get }
    /// Applies validated `profile.update` values to the records; may add cross-field errors.
    /// `context` has the tenant, the user, the time, `newID()` and `log(_:_:metadata:)`, and no
    /// answers; lines logged through it are written once the update has committed.
    ///
    /// - Parameters:
    ///   - profile: the user's profile as stored.
    ///   - values: each posted key that names an ``editableFields`` field, normalised by its
    ///     checks; a key of an optional field posted as `null` (or blank) is here as `null`, and
    ///     so is a field the update hides by its `visibleWhen` that had a value (it is cleared).
    ///   - context: the session-less context described above.
    /// - Returns: the records to store in place of `profile.records`.
    /// - Throws: ``ValidationFailure`` with the errors to answer with; nothing is written.
    func updatedRecords(
        _ profile: Profile, with values: [String: JSONValue], in context: StepContext
    ) throws(ValidationFailure) -> [String: JSONValue]
    /// Loads what the plugin needs before its first request (a gazetteer). The host runs it once,
    /// on a thread of its own, before the tenant's first request, never inside a transaction.
    func prepare()
}

/// Field errors raised outside a step: thrown from ``OnboardingPlugin/updatedRecords(_:with:in:)``
/// or ``CompletionHandler/complete(_:)``, answered as a validation error with these errors.
public struct ValidationFailure: Error, Sendable {
    /// What is wrong, each for a field or (`field` nil) for the whole request.
    public var errors: [FieldError]
    public init(_ errors: [FieldError]) { self.errors = errors }
}

extension OnboardingPlugin {
    public var gates: [any Gate] { [] }
    public var olderFlows: [Flow] { [] }
    public var onboardingGate: OnboardingGate { OnboardingGate() }
    public var editableFields: [FieldSpec] { [] }
    public var searchProviders: [String: any SearchProvider] { [:] }
    public var defaultDisplayName: String { "there" }
    public var intro: JSONValue? { nil }
    public var theme: Theme { .standard }
    public var stringCatalogs: [StringCatalog] { [] }
    public func prepare() {}

    /// The flow with this id, if the plugin has one.
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
    ///
    /// - Parameters:
    ///   - values: validated values by field id.
    ///   - records: the records to write into; a missing record is created as an object.
    ///   - editable: the fields, whose ``FieldSpec/record`` names each value's record.
    /// - Returns: `records` with each value under its field's id in its record.
    /// - Throws: ``ValidationFailure`` with a `not_editable` error for each key that has no
    ///   editable field with a record, all of them at once.
    public static func merge(
        _ values: [String: JSONValue], into records: [String: JSONValue], editable: [FieldSpec]
    ) throws(ValidationFailure) -> [String: JSONValue] {
        var records = records
        var errors: [FieldError] = []
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let spec = editable.first(where: { $0.id == key }), let name = spec.record,
                var record = (records[name] ?? [:]).objectValue
            else {
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
