import Foundation

/// A user's records, written when they complete onboarding (`profile.get`, `profile.update`).
public struct Profile: Sendable, Hashable, Codable {
    public var tenant: String
    public var userId: String
    /// When the flow completed (sent as an ISO 8601 UTC timestamp).
    public var completedAt: Date
    /// Named records, each a JSON object the plugin defines (its `Docs/plugins/<app>.md`).
    public var records: [String: JSONValue]

    public init(tenant: String, userId: String, completedAt: Date, records: [String: JSONValue]) {
        self.tenant = tenant
        self.userId = userId
        self.completedAt = completedAt
        self.records = records
    }

    enum CodingKeys: String, CodingKey { case tenant, userId, completedAt, records }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tenant = try container.decode(String.self, forKey: .tenant)
        userId = try container.decode(String.self, forKey: .userId)
        let text = try container.decode(String.self, forKey: .completedAt)
        guard let date = Timestamp.date(text) else {
            throw DecodingError.dataCorruptedError(forKey: .completedAt, in: container, debugDescription: "not an ISO 8601 timestamp")
        }
        completedAt = date
        records = try container.decode([String: JSONValue].self, forKey: .records)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tenant, forKey: .tenant)
        try container.encode(userId, forKey: .userId)
        try container.encode(Timestamp.string(completedAt), forKey: .completedAt)
        try container.encode(records, forKey: .records)
    }

    /// A record decoded as the plugin's type.
    ///
    /// - Parameters:
    ///   - name: the record's name.
    ///   - type: a `Decodable` type of the record's shape.
    /// - Returns: the record, or nil when the profile has no record of that name.
    /// - Throws: `DecodingError` when the record does not have the type's shape.
    public func record<Record: Decodable>(_ name: String, as type: Record.Type = Record.self) throws -> Record? {
        try records[name].map { try $0.decode(type) }
    }
}

/// One thing a gate needs before it lets an action through.
public struct GateRequirement: Sendable, Hashable, Codable {
    public var id: String
    /// What the person is told is needed ("Complete onboarding").
    public var label: String
    /// Whether the user already meets it.
    public var satisfied: Bool

    public init(id: String, label: String, satisfied: Bool) {
        self.id = id
        self.label = label
        self.satisfied = satisfied
    }
}

/// The answer to `gate.check`.
///
/// A refusal carries the copy to show (``title``, ``message``, the button's ``cta``) and the
/// ``requirements`` that would let the action through.
public struct GateDecision: Sendable, Hashable, Codable {
    /// The action asked about.
    public var action: String
    public var allowed: Bool
    /// The gate that blocks it (`onboarding`, `tier1`, `tier2`).
    public var gate: String?
    public var title: String?
    public var message: String?
    /// The button's label.
    public var cta: String?
    /// What the user needs, each with whether it is met.
    public var requirements: [GateRequirement]

    public init(
        action: String, allowed: Bool, gate: String? = nil, title: String? = nil,
        message: String? = nil, cta: String? = nil, requirements: [GateRequirement] = []
    ) {
        self.action = action
        self.allowed = allowed
        self.gate = gate
        self.title = title
        self.message = message
        self.cta = cta
        self.requirements = requirements
    }
}

/// One option a `search` field offers: `value` to post back, `label` to show, and whatever else
/// the provider knows (a city's coordinates and country).
public struct SearchResult: Sendable, Hashable, Codable {
    /// The id a client posts as the field's value.
    public var value: String
    /// What the person sees.
    public var label: String
    /// Other members, sent beside `value` and `label`.
    public var extra: [String: JSONValue]

    public init(value: String, label: String, extra: [String: JSONValue] = [:]) {
        self.value = value
        self.label = label
        self.extra = extra
    }

    /// The member of ``extra`` named `key`.
    public subscript(key: String) -> JSONValue? { extra[key] }

    enum CodingKeys: String, CodingKey { case value, label }
    static let knownKeys: Set<String> = ["value", "label"]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decode(String.self, forKey: .value)
        label = try container.decode(String.self, forKey: .label)
        extra = try decoder.extraMembers(excluding: Self.knownKeys)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(value, forKey: .value)
        try container.encode(label, forKey: .label)
        try encoder.encodeExtra(extra, excluding: Self.knownKeys)
    }
}

/// The answer to `flow.search`.
public struct SearchResults: Sendable, Hashable, Codable {
    public var results: [SearchResult]
    /// Said when nothing was found ("No results found").
    public var message: String?

    public init(results: [SearchResult], message: String? = nil) {
        self.results = results
        self.message = message
    }
}

/// The answer to `flow.describe`: a flow as data and as a Mermaid flowchart.
public struct FlowDescription: Sendable, Hashable, Codable {
    public struct Step: Sendable, Hashable, Codable {
        public var id: String
        public var kind: StepKind
        public var title: String
        /// Field ids, in the step's order.
        public var fields: [String]

        public init(id: String, kind: StepKind, title: String, fields: [String]) {
            self.id = id
            self.kind = kind
            self.title = title
            self.fields = fields
        }
    }

    public struct Edge: Sendable, Hashable, Codable {
        public var from: String
        public var to: String
        /// The branch condition in words, when a step has more than one way out.
        public var when: String?

        public init(from: String, to: String, when: String? = nil) {
            self.from = from
            self.to = to
            self.when = when
        }
    }

    public var tenant: String
    public var flow: String
    public var steps: [Step]
    public var edges: [Edge]
    public var mermaid: String
    /// Content shown before sign-in (TeePals' posters).
    public var intro: JSONValue?
    /// The newest version, on which new sessions start, and its fingerprint (protocol 3).
    public var version: String?
    public var fingerprint: String?

    public init(tenant: String, flow: String, steps: [Step], edges: [Edge], mermaid: String, intro: JSONValue? = nil) {
        self.tenant = tenant
        self.flow = flow
        self.steps = steps
        self.edges = edges
        self.mermaid = mermaid
        self.intro = intro
    }
}

/// The answer to `analytics.funnel`.
public struct Funnel: Sendable, Hashable, Codable {
    public struct Step: Sendable, Hashable, Codable {
        public var id: String
        public var reached: Int
        public var left: Int
        public var dropped: Int
        /// Median over sessions of the seconds spent on the step (summed over visits); null when none.
        public var medianSeconds: Double?

        public init(id: String, reached: Int, left: Int, dropped: Int, medianSeconds: Double?) {
            self.id = id
            self.reached = reached
            self.left = left
            self.dropped = dropped
            self.medianSeconds = medianSeconds
        }

        enum CodingKeys: String, CodingKey { case id, reached, left, dropped, medianSeconds }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(reached, forKey: .reached)
            try container.encode(left, forKey: .left)
            try container.encode(dropped, forKey: .dropped)
            try container.encodeNullable(medianSeconds, forKey: .medianSeconds)
        }
    }

    public struct Branch: Sendable, Hashable, Codable {
        public var from: String
        public var to: String
        public var count: Int
        /// Sessions that took the branch and completed.
        public var completed: Int

        public init(from: String, to: String, count: Int, completed: Int) {
            self.from = from
            self.to = to
            self.count = count
            self.completed = completed
        }
    }

    public struct Skip: Sendable, Hashable, Codable {
        public var step: String
        public var count: Int

        public init(step: String, count: Int) {
            self.step = step
            self.count = count
        }
    }

    public var started: Int
    public var completed: Int
    public var deferred: Int
    public var rejected: Int
    /// completed / started, four decimals.
    public var completionRate: Double
    public var steps: [Step]
    public var branches: [Branch]
    public var skips: [Skip]
    /// Sessions started and completed by the version of the flow they started on (protocol 3).
    public var versions: [Version]?

    public struct Version: Sendable, Hashable, Codable {
        public var version: String
        public var started: Int
        public var completed: Int

        public init(version: String, started: Int, completed: Int) {
            self.version = version
            self.started = started
            self.completed = completed
        }
    }

    public init(
        started: Int, completed: Int, deferred: Int, rejected: Int, completionRate: Double,
        steps: [Step], branches: [Branch], skips: [Skip], versions: [Version]? = nil
    ) {
        self.versions = versions
        self.started = started
        self.completed = completed
        self.deferred = deferred
        self.rejected = rejected
        self.completionRate = completionRate
        self.steps = steps
        self.branches = branches
        self.skips = skips
    }
}

/// The answer to `platform.info`.
public struct PlatformInfo: Sendable, Hashable, Codable {
    public struct Tenant: Sendable, Hashable, Codable {
        public var tenant: String
        public var plugin: String
        public var version: String?
        public var flows: [String]

        public init(tenant: String, plugin: String, version: String? = nil, flows: [String]) {
            self.tenant = tenant
            self.plugin = plugin
            self.version = version
            self.flows = flows
        }
    }

    public var name: String
    public var version: String
    public var `protocol`: Int
    public var tenants: [Tenant]

    public init(name: String = "platformd", version: String, protocol: Int, tenants: [Tenant]) {
        self.name = name
        self.version = version
        self.protocol = `protocol`
        self.tenants = tenants
    }
}

/// The answer to `user.export`: everything the store holds about one user of one tenant.
public struct UserExport: Sendable, Hashable, Codable {
    public struct Session: Sendable, Hashable, Codable {
        public var sessionId: String
        public var flow: String
        public var flowVersion: String
        public var status: SessionStatus
        public var createdAt: String
        public var updatedAt: String
        public var user: UserDetails
        /// Saved answers by step id, then field id.
        public var answers: [String: [String: JSONValue]]

        public init(
            sessionId: String, flow: String, flowVersion: String, status: SessionStatus, createdAt: String, updatedAt: String,
            user: UserDetails, answers: [String: [String: JSONValue]]
        ) {
            self.sessionId = sessionId
            self.flow = flow
            self.flowVersion = flowVersion
            self.status = status
            self.createdAt = createdAt
            self.updatedAt = updatedAt
            self.user = user
            self.answers = answers
        }
    }

    public struct Event: Sendable, Hashable, Codable {
        /// A funnel event's kind (`arrived`, `left` …) or a completion event's type (`session.completed`).
        public var type: String
        public var step: String?
        public var at: String

        public init(type: String, step: String? = nil, at: String) {
            self.type = type
            self.step = step
            self.at = at
        }
    }

    /// The person's place in an experiment's phase: the variant they were given, and when.
    public struct Assignment: Sendable, Hashable, Codable {
        public var experiment: String
        public var seed: String
        public var variant: String
        public var flow: String
        public var assignedAt: String

        public init(experiment: String, seed: String, variant: String, flow: String, assignedAt: String) {
            self.experiment = experiment
            self.seed = seed
            self.variant = variant
            self.flow = flow
            self.assignedAt = assignedAt
        }
    }

    public var tenant: String
    public var userId: String
    public var exportedAt: String
    public var sessions: [Session]
    public var profile: Profile?
    public var events: [Event]
    /// Every experiment assignment the person has in the tenant (protocol 4).
    public var assignments: [Assignment]

    public init(
        tenant: String, userId: String, exportedAt: String, sessions: [Session], profile: Profile?, events: [Event], assignments: [Assignment] = []
    ) {
        self.tenant = tenant
        self.userId = userId
        self.exportedAt = exportedAt
        self.sessions = sessions
        self.profile = profile
        self.events = events
        self.assignments = assignments
    }

    enum CodingKeys: String, CodingKey { case tenant, userId, exportedAt, sessions, profile, events, assignments }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tenant = try container.decode(String.self, forKey: .tenant)
        userId = try container.decode(String.self, forKey: .userId)
        exportedAt = try container.decode(String.self, forKey: .exportedAt)
        sessions = try container.decode([Session].self, forKey: .sessions)
        profile = try container.decodeIfPresent(Profile.self, forKey: .profile)
        events = try container.decode([Event].self, forKey: .events)
        // A server before protocol 4 sends none.
        assignments = try container.decodeIfPresent([Assignment].self, forKey: .assignments) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tenant, forKey: .tenant)
        try container.encode(userId, forKey: .userId)
        try container.encode(exportedAt, forKey: .exportedAt)
        try container.encode(sessions, forKey: .sessions)
        try container.encodeNullable(profile, forKey: .profile)
        try container.encode(events, forKey: .events)
        try container.encode(assignments, forKey: .assignments)
    }
}

/// The answer to `user.erase`: what was deleted.
public struct UserErasure: Sendable, Hashable, Codable {
    public struct Counts: Sendable, Hashable, Codable {
        public var sessions: Int
        public var records: Int
        public var events: Int
        /// Pending webhook deliveries about the user that were cancelled (their payloads deleted).
        public var deliveries: Int

        public init(sessions: Int = 0, records: Int = 0, events: Int = 0, deliveries: Int = 0) {
            self.sessions = sessions
            self.records = records
            self.events = events
            self.deliveries = deliveries
        }
    }

    public var erased: Counts

    public init(erased: Counts) {
        self.erased = erased
    }
}
