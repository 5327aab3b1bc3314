import Foundation

/// Everything the server keeps about one user's pass through one flow.
public struct SessionState: Sendable, Hashable {
    public var id: String
    public var tenant: String
    public var userId: String
    public var flow: String
    /// The version of the flow it runs on, and that version's fingerprint ("" for sessions
    /// stored before flows had versions).
    public var flowVersion: String
    public var flowFingerprint: String
    /// The BCP 47 locale the session asked for ("": none, the plugin's base language); its views
    /// are in the nearest one the tenant serves.
    public var locale: String
    public var status: SessionStatus
    public var revision: Int
    public var user: UserDetails
    /// The steps visited on the way to the current one, which is last. Empty once completed or rejected.
    public var path: [String]
    /// Saved answers by step id then field id. A step with an entry counts as answered.
    public var answers: [String: [String: JSONValue]]
    /// Results of server work, by step id (kept and erased with the answers).
    public var computed: [String: JSONValue]
    public var skipped: Set<String>
    /// Errors to show on a step the server sent the user back to.
    public var stepErrors: [String: [FieldError]]
    public var secondsSpent: [String: Double]
    /// When the session arrived on its current step.
    public var arrivedAt: Date
    /// Digest of the last accepted submit, for safe retries.
    public var lastSubmitDigest: String?
    public var completion: CompletionView?
    public var rejection: Rejection?
    public var createdAt: Date
    public var updatedAt: Date
    /// When the sweeper last raised `session.abandoned` for it (another is raised only after a
    /// later write and a new idle period).
    public var abandonedAt: Date?
    /// Once completed: the step count its progress showed, of the version it completed on (a
    /// newer version served later may count more). Nil for sessions completed before it was kept.
    public var progressTotal: Int?
    /// The experiment that chose this session's flow, and the variant (set when it was enrolled;
    /// kept for the session's life).
    public var experiment: ExperimentMembership?

    public init(
        id: String, tenant: String, userId: String, flow: String, flowVersion: String = "", flowFingerprint: String = "",
        locale: String = "", status: SessionStatus = .active,
        revision: Int = 0, user: UserDetails = .empty, path: [String],
        answers: [String: [String: JSONValue]] = [:], computed: [String: JSONValue] = [:],
        skipped: Set<String> = [], stepErrors: [String: [FieldError]] = [:], secondsSpent: [String: Double] = [:],
        arrivedAt: Date, lastSubmitDigest: String? = nil, completion: CompletionView? = nil,
        rejection: Rejection? = nil, createdAt: Date, updatedAt: Date, abandonedAt: Date? = nil, progressTotal: Int? = nil,
        experiment: ExperimentMembership? = nil
    ) {
        self.experiment = experiment
        self.abandonedAt = abandonedAt
        self.progressTotal = progressTotal
        self.id = id
        self.tenant = tenant
        self.userId = userId
        self.flow = flow
        self.flowVersion = flowVersion
        self.flowFingerprint = flowFingerprint
        self.locale = locale
        self.status = status
        self.revision = revision
        self.user = user
        self.path = path
        self.answers = answers
        self.computed = computed
        self.skipped = skipped
        self.stepErrors = stepErrors
        self.secondsSpent = secondsSpent
        self.arrivedAt = arrivedAt
        self.lastSubmitDigest = lastSubmitDigest
        self.completion = completion
        self.rejection = rejection
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    public var currentStep: String? { status.isFinal ? nil : path.last }

    /// Whether writing `new` over `old` deletes something of the person (a rejection, an expiry,
    /// a completed session's details pruned): the store then makes sure the old bytes leave its
    /// files (SQLite truncates the WAL, PostgreSQL vacuums).
    public static func erases(from old: SessionState?, to new: SessionState) -> Bool {
        guard let old else { return false }
        if [.rejected, .expired].contains(new.status) && old.status != new.status { return true }
        if old.user != .empty && new.user == .empty { return true }
        return old.completion?.personal == true && new.completion?.personal != true
    }
}

extension CompletionView {
    /// Copy or a screen that may name the person ("Welcome to TeePals, Alex!"); a pruned
    /// completion keeps only its records' names.
    package var personal: Bool { !message.isEmpty || screen != nil }
}

/// Something that happened to a session, for funnels: ids and timings, never answer values.
public struct FlowEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case started, arrived, left, branch, deferred, rejected, completed
        /// Moved onto a newer version of its flow (`step`: where it stands after the move).
        case migrated
        /// Enrolled in an experiment: the reply that started the session was its variant's first
        /// view (the session carries which experiment and variant).
        case exposed
    }

    public var kind: Kind
    public var step: String?
    /// How the step was left: `continue`, `skip`, `later`, `back`, `goto`.
    public var action: String?
    /// Where a branch or a move led.
    public var toStep: String?
    public var seconds: Double?
    public var at: Date

    public init(_ kind: Kind, step: String? = nil, action: String? = nil, toStep: String? = nil, seconds: Double? = nil, at: Date) {
        self.kind = kind
        self.step = step
        self.action = action
        self.toStep = toStep
        self.seconds = seconds
        self.at = at
    }
}
