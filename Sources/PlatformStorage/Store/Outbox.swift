import Foundation
import PlatformCore

/// A completion event to write in the same transaction as the change it reports, with the
/// webhooks (their URLs) it is to be delivered to. The store writes the event and one pending
/// delivery per webhook, so a crash can neither lose the event nor leave one for a change that
/// rolled back.
public struct OutboxEvent: Sendable, Hashable {
    public var event: PlatformEvent
    /// The URLs of the tenant's webhooks that take this event's type.
    public var webhooks: [String]
    /// Until when its deliveries are retried; after that a delivery that still fails is marked failed.
    public var deliverUntil: Date
    /// When its deliveries are first due: when it was raised. Not `occurredAt` for a sweep run
    /// with `--now` another day, whose events happen at that time but go out when it runs.
    public var deliverFrom: Date

    public init(event: PlatformEvent, webhooks: [String], deliverUntil: Date, deliverFrom: Date? = nil) {
        self.event = event
        self.webhooks = webhooks
        self.deliverUntil = deliverUntil
        self.deliverFrom = deliverFrom ?? event.occurredAt
    }
}

/// An event as stored, with its place in the outbox's order.
public struct OutboxEntry: Sendable, Hashable {
    /// Increases with every event written (across tenants); the cursor of `events.list`.
    public var sequence: Int64
    public var event: PlatformEvent

    public init(sequence: Int64, event: PlatformEvent) {
        self.sequence = sequence
        self.event = event
    }
}

/// `events.list`'s cursors: opaque strings for clients, a position in the outbox here. `c0` is
/// the start. Stable: the same event always has the same cursor.
public enum EventCursor {
    public static let start = "c0"

    public static func string(_ sequence: Int64) -> String { "c\(sequence)" }

    /// The position a cursor names, or nil when it is not one of ours.
    public static func sequence(_ cursor: String) -> Int64? {
        guard cursor.hasPrefix("c"), cursor.utf8.count <= 20 else { return nil }
        let digits = cursor.dropFirst()
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            digits == "0" || digits.first != "0", let value = Int64(digits)
        else { return nil }
        return value
    }
}

/// What a profile update writes, in one transaction: the records, and the event that reports them.
public struct ProfileCommit: Sendable {
    public var profile: Profile
    public var outbox: [OutboxEvent]

    public init(profile: Profile, outbox: [OutboxEvent] = []) {
        self.profile = profile
        self.outbox = outbox
    }
}

// MARK: - deliveries

/// One delivery (an event to one webhook) claimed by a host: it holds the claim for the
/// worker's lease, and no other host takes it before then.
public struct DeliveryClaim: Sendable, Hashable {
    public var sequence: Int64
    public var eventId: String
    public var tenant: String
    public var webhook: String
    /// The POST body: the event's JSON, the same bytes on every attempt.
    public var body: [UInt8]
    /// Attempts made before this one.
    public var attempts: Int
    /// After this, a failed attempt marks the delivery failed instead of scheduling another.
    public var expiresAt: Date

    public init(
        sequence: Int64, eventId: String, tenant: String, webhook: String, body: [UInt8], attempts: Int,
        expiresAt: Date
    ) {
        self.sequence = sequence
        self.eventId = eventId
        self.tenant = tenant
        self.webhook = webhook
        self.body = body
        self.attempts = attempts
        self.expiresAt = expiresAt
    }
}

/// What a claim round found: the deliveries now held, and when the next one not held falls due
/// (nil: none pending), so a worker sleeps until then rather than a whole poll interval.
public struct ClaimedDeliveries: Sendable {
    public var claims: [DeliveryClaim]
    public var nextDue: Date?

    public init(claims: [DeliveryClaim], nextDue: Date?) {
        self.claims = claims
        self.nextDue = nextDue
    }
}

/// What became of an attempt.
public enum DeliveryAttempt: Sendable, Hashable {
    /// A 2xx answer: done.
    case delivered(at: Date, status: Int)
    /// Failed; try again at `next`.
    case retry(at: Date, next: Date, status: Int?, error: String)
    /// Failed past the delivery window: given up.
    case failed(at: Date, status: Int?, error: String)

    /// What a store writes on the delivery's row for this attempt: one mapping for every store.
    public struct Row: Sendable, Hashable {
        public var state: DeliveryState
        public var nextAttempt: Date
        public var lastStatus: Int?
        public var lastError: String?
        public var finishedAt: Date?
    }

    public var row: Row {
        switch self {
        case .delivered(let at, let code):
            Row(state: .delivered, nextAttempt: at, lastStatus: code, lastError: nil, finishedAt: at)
        case .retry(_, let next, let code, let reason):
            Row(state: .pending, nextAttempt: next, lastStatus: code, lastError: reason, finishedAt: nil)
        case .failed(let at, let code, let reason):
            Row(state: .failed, nextAttempt: at, lastStatus: code, lastError: reason, finishedAt: at)
        }
    }
}

public enum DeliveryState: String, Sendable, Hashable, CaseIterable {
    case pending, delivered, failed
}

/// A delivery's state, for operators (`platformd events`).
public struct DeliveryStatus: Sendable, Hashable {
    public var webhook: String
    public var state: DeliveryState
    public var attempts: Int
    public var nextAttemptAt: Date?
    public var lastStatus: Int?
    public var lastError: String?
    /// When it was delivered, or given up.
    public var finishedAt: Date?

    public init(
        webhook: String, state: DeliveryState, attempts: Int, nextAttemptAt: Date?, lastStatus: Int?, lastError: String?,
        finishedAt: Date?
    ) {
        self.webhook = webhook
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.finishedAt = finishedAt
    }
}

/// An event with the state of each of its deliveries.
public struct EventDeliveries: Sendable, Hashable {
    public var entry: OutboxEntry
    public var deliveries: [DeliveryStatus]

    public init(entry: OutboxEntry, deliveries: [DeliveryStatus]) {
        self.entry = entry
        self.deliveries = deliveries
    }
}

/// The delivery worker's and the operators' view of the outbox. Claims are leases taken by a
/// conditional UPDATE (`claimed_until` in the past or unset), so with several hosts on one
/// database each delivery is attempted by one host at a time, and a host that dies mid-delivery
/// only holds it until its lease runs out.
public protocol DeliveryStore: Sendable {
    /// Claims up to `limit` deliveries due at `now` for `lease`, oldest due first.
    func claimDeliveries(now: Date, limit: Int, lease: TimeInterval, host: String) async throws -> ClaimedDeliveries

    /// Records an attempt of a delivery this host holds and releases it; false when the claim
    /// was no longer this host's (its lease ran out and another host took it).
    @discardableResult
    func recordAttempt(_ claim: DeliveryClaim, host: String, _ attempt: DeliveryAttempt) async throws -> Bool

    /// Gives a claim back unattempted (a stopping host), due again at once.
    func releaseClaim(_ claim: DeliveryClaim, host: String) async throws

    /// The tenant's `limit` latest events (only those with a failed delivery when `failedOnly`),
    /// oldest first, with their deliveries.
    func recentEvents(tenant: String, limit: Int, failedOnly: Bool) async throws -> [EventDeliveries]

    /// Puts an event's failed deliveries back in the queue, due at `now`, retried until
    /// `deliverUntil` with a fresh attempt count. Returns how many.
    func requeueFailed(eventId: String, now: Date, deliverUntil: Date) async throws -> Int
}
