import Foundation
import PlatformCore

/// How a command names its session.
public enum SessionKey: Sendable, Hashable {
    case id(String)
    case user(userId: String, flow: String)
}

/// What one command writes, in one transaction.
public struct SessionCommit: Sendable {
    public var state: SessionState
    public var events: [FlowEvent]
    /// The records of a completion, written with the completed state.
    public var profile: Profile?
    /// Completion events (`session.completed`, `session.rejected`) for the apps' backends,
    /// written in the same transaction as the change they report.
    public var outbox: [OutboxEvent]
    /// An experiment enrolment: stored with the new session it started, kept if the person
    /// already has one for the phase (two hosts enrolling one person store one).
    public var assignment: ExperimentAssignment?
    /// Assignments that give way to this new session: the person's session of them expired (or is
    /// gone), and someone whose session expired starts afresh as someone new. Each is deleted,
    /// with its rollup, only while it still names that old session (another host's restart may
    /// have replaced it first).
    public var droppedAssignments: [ExperimentAssignment]

    public init(
        state: SessionState, events: [FlowEvent], profile: Profile? = nil, outbox: [OutboxEvent] = [], assignment: ExperimentAssignment? = nil,
        droppedAssignments: [ExperimentAssignment] = []
    ) {
        self.state = state
        self.events = events
        self.profile = profile
        self.outbox = outbox
        self.assignment = assignment
        self.droppedAssignments = droppedAssignments
    }

    /// Whether the commit writes experiment rows beside the session (the stores' locked path).
    public var touchesAssignments: Bool { assignment != nil || !droppedAssignments.isEmpty }
}

/// A stored event with the session it belongs to.
public struct StoredEvent: Sendable, Hashable {
    public var sessionId: String
    public var flow: String
    public var event: FlowEvent

    public init(sessionId: String, flow: String, event: FlowEvent) {
        self.sessionId = sessionId
        self.flow = flow
        self.event = event
    }
}

/// Where sessions, records and events live. Every call is scoped by tenant: a tenant never
/// sees another's rows. The SQLite store is the embedded default; the conformance suite in
/// PlatformCoreTests is what any other store (PostgreSQL) must pass too.
public protocol SessionStore: Sendable {
    /// Why `error` is a passing condition a client may retry after (disk full, a lock held past
    /// its timeout, a server out of reach), or nil for a defect.
    func unavailability(of error: any Error) -> String?

    /// Answers when the store can serve a read now; throws why not (readiness checks).
    func ping() async throws

    /// Reads the session without writing anything.
    func session(tenant: String, key: SessionKey) async throws -> SessionState?

    /// Runs `body` on the latest stored state inside one write transaction and commits what it
    /// returns (nil: nothing to write). Errors thrown by `body` roll everything back. A commit's
    /// profile records are stamped with its state's `updatedAt`.
    func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result

    /// `updateSession` of a session the caller has just read as absent (an experiment's enrolment
    /// reads the person's sessions first): a store may run `body` on nil without reading again,
    /// provided it runs it anew on the stored state when a session arrived meanwhile.
    func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey, readAsAbsent: Bool,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result

    func profile(tenant: String, userId: String) async throws -> Profile?

    /// Like `updateSession`, for a completed user's records; `time` is when the records written
    /// were updated (the store reads no clock). The commit's outbox events are written in the
    /// same transaction.
    func updateProfile<Result: Sendable>(
        tenant: String, userId: String, at time: Date,
        _ body: @escaping @Sendable (Profile?) throws -> (ProfileCommit?, Result)
    ) async throws -> Result

    /// The tenant's completion events after position `after` (0: from the first), oldest first,
    /// at most `limit`.
    func outbox(tenant: String, after: Int64, limit: Int) async throws -> [OutboxEntry]

    /// Events of a tenant's sessions, oldest first.
    func events(tenant: String, flow: String?, since: Date?, until: Date?) async throws -> [StoredEvent]

    /// The funnel of the sessions of `flow` started in [since, until), computed from the events.
    /// - Parameter renamedSteps: by the version an event was recorded on, its step ids' newer
    ///   names, so a step renamed by a flow's migration counts as one row.
    func funnel(
        tenant: String, flow: String, since: Date?, until: Date?, version: String?, renamedSteps: [String: [String: String]]
    ) async throws -> FunnelFigures

    /// Finishes pending work and closes the database.
    func close() async throws

    /// Registers flow versions as first served now (a version already registered keeps its
    /// place) and returns every registered version of the same tenants, with its sequence
    /// (given none, registers nothing and returns every version registered).
    func registerFlowVersions(_ records: [FlowVersionRecord]) async throws -> [FlowVersionRecord]

    /// How many of the tenant's sessions of `flow` are in flight (active or deferred), by the
    /// version (and fingerprint) they run on.
    func versionsInFlight(tenant: String, flow: String) async throws -> [(version: String, fingerprint: String, sessions: Int)]

    /// Up to `limit` sessions in flight on one version, with their answers, in id order after `after`.
    func sessionsInFlight(
        tenant: String, flow: String, version: String, fingerprint: String, after: String, limit: Int
    ) async throws -> [SessionState]

    /// Everything held about one user of a tenant (`user.export`).
    func userData(tenant: String, userId: String) async throws -> StoredUserData

    /// Deletes, in one transaction, every session (answers with them), the profile (records with
    /// it), the funnel events of those sessions and of the sessions they replaced (an expired
    /// session makes way for the next of its flow), and the completion events about the user (their
    /// deliveries with them, pending ones counted as cancelled), and writes `report` (the
    /// `user.erased` event) in the same transaction. The bytes leave the files soon after (SQLite:
    /// `secure_delete` and a truncated WAL; PostgreSQL: a VACUUM off the reply path).
    func eraseUser(tenant: String, userId: String, report: OutboxEvent) async throws -> UserErasure.Counts

    /// Up to `limit` sessions a sweep may act on (it checks each again inside its own write):
    /// `.idle`, in flight with no write since `before`; `.completedBefore`, completed before
    /// `before` and still holding the details the app passed or answers.
    func sweepCandidates(tenant: String, kind: SweepCandidates, before: Date, limit: Int) async throws -> [SessionState]

    /// Deletes up to `limit` funnel events of `flows` older than `before` (per flow, along the
    /// (tenant, flow, at) index), and up to `limit` completion events
    /// older than it that no delivery is still trying; how many of each.
    func pruneEvents(tenant: String, flows: [String], before: Date, limit: Int) async throws -> (events: Int, completionEvents: Int)

    /// Takes (or renews) the sweeper's lease for `host` until `now + lease`; false while another
    /// host holds it.
    func claimSweep(host: String, now: Date, lease: TimeInterval) async throws -> Bool
}

public enum SweepCandidates: Sendable {
    case idle
    /// `.idle`, and not told abandoned since its last write.
    case idleNotTold
    case completedBefore
}

/// What a store holds about one user of one tenant.
public struct StoredUserData: Sendable {
    public var sessions: [SessionState]
    public var profile: Profile?
    /// The funnel events of the user's sessions and of those they replaced, in order.
    public var events: [StoredEvent]
    /// Completion events about the user, in order.
    public var outbox: [PlatformEvent]

    public init(sessions: [SessionState], profile: Profile?, events: [StoredEvent], outbox: [PlatformEvent]) {
        self.sessions = sessions
        self.profile = profile
        self.events = events
        self.outbox = outbox
    }
}

/// Everything the server keeps, behind one value: what `--db` opens (SQLite or PostgreSQL).
public typealias PlatformStore = SessionStore & CredentialStore & DeliveryStore & ExperimentStore

/// A store's passing failure (disk full, a lock held past its timeout, a server out of reach):
/// nothing was saved, and the same request may succeed later. Anything else a store throws is a defect.
public struct StoreUnavailable: Error, Sendable, Hashable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

extension SessionStore {
    public func unavailability(of error: any Error) -> String? {
        (error as? StoreUnavailable)?.reason
    }

    /// A store with no cheaper way reads again.
    public func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey, readAsAbsent: Bool,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        try await updateSession(tenant: tenant, key: key, body)
    }

    /// A store that is always there (in memory, in a test) answers at once.
    public func ping() async throws {}

    /// For a store with no registry: the versions in the order given, nothing kept.
    public func registerFlowVersions(_ records: [FlowVersionRecord]) async throws -> [FlowVersionRecord] {
        records.enumerated().map { index, record in
            var numbered = record
            numbered.sequence = Int64(index + 1)
            return numbered
        }
    }

    public func versionsInFlight(tenant: String, flow: String) async throws -> [(version: String, fingerprint: String, sessions: Int)] { [] }

    public func sessionsInFlight(
        tenant: String, flow: String, version: String, fingerprint: String, after: String, limit: Int
    ) async throws -> [SessionState] { [] }

    /// A profile update that reports no event.
    public func updateProfile<Result: Sendable>(
        tenant: String, userId: String, at time: Date,
        _ body: @escaping @Sendable (Profile?) throws -> (Profile?, Result)
    ) async throws -> Result {
        try await updateProfile(tenant: tenant, userId: userId, at: time) { current -> (ProfileCommit?, Result) in
            let (profile, result) = try body(current)
            return (profile.map { ProfileCommit(profile: $0) }, result)
        }
    }
}
