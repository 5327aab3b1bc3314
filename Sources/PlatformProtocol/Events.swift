import Foundation

/// What a completion event reports. Each tenant's webhooks subscribe to some of these.
public enum PlatformEventType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A session completed; `data.records` holds the records the completion wrote.
    case sessionCompleted = "session.completed"
    /// A session was rejected; `data.code` is the rejection's code and nothing of the person.
    case sessionRejected = "session.rejected"
    /// `profile.update` changed a user's records; `data.records` holds the whole set after it.
    case profileUpdated = "profile.updated"
    /// Everything held about the user in the tenant was erased (`user.erase`); `data` is empty.
    case userErased = "user.erased"
    /// A session in flight had no write for the tenant's `abandonedAfterHours`; `data` is
    /// `{ step, progress }`, nothing the person typed.
    case sessionAbandoned = "session.abandoned"
    /// A session in flight had no write for the tenant's `expireAfterDays` and expired; `data` is
    /// `{ step, progress }` as it stood.
    case sessionExpired = "session.expired"
    /// The server stopped an experiment (`autoStop`): `data` is `{ experiment, variant, interval }`,
    /// the variant found worse and its interval against the control; `userId` is empty (it is
    /// about no one).
    case experimentStopped = "experiment.stopped"
}

/// An event for an app's backend, as its webhooks receive it (the POST body) and as
/// `events.list` returns it.
///
/// ```json
/// { "id": "evt_0b6c…", "type": "session.completed", "tenant": "statlocker", "userId": "u1",
///   "sessionId": "b0c2…", "occurredAt": "2026-11-21T22:43:37Z", "data": { "records": { … } } }
/// ```
public struct PlatformEvent: Sendable, Hashable, Codable {
    /// Unique per event (`evt_…`); the same on every delivery of it, so a receiver deduplicates by it.
    public var id: String
    public var type: PlatformEventType
    public var tenant: String
    public var userId: String
    /// The session of `session.completed` and `session.rejected`; absent for `profile.updated`.
    public var sessionId: String?
    /// When the change it reports was committed.
    public var occurredAt: Date
    /// `{ "records": { NAME: OBJECT } }`, or `{ "code": CODE }` for `session.rejected`.
    public var data: JSONValue

    public init(
        id: String, type: PlatformEventType, tenant: String, userId: String, sessionId: String? = nil,
        occurredAt: Date, data: JSONValue
    ) {
        self.id = id
        self.type = type
        self.tenant = tenant
        self.userId = userId
        self.sessionId = sessionId
        self.occurredAt = occurredAt
        self.data = data
    }

    /// The records of a `session.completed` or `profile.updated` event.
    public var records: [String: JSONValue]? { data["records"]?.objectValue }
}

/// The answer to `events.list`: events oldest first, and the cursor to continue after them.
public struct EventsPage: Sendable, Hashable, Codable {
    public var events: [PlatformEvent]
    /// Pass as `after` to get the events that follow. Always present: after an empty page it is
    /// the cursor that was given (or the start's cursor), so a poller keeps passing it back.
    public var next: String

    public init(events: [PlatformEvent], next: String) {
        self.events = events
        self.next = next
    }
}
