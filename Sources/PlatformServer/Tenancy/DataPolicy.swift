import Foundation
import PlatformCore
import PlatformStorage

/// How long a tenant keeps what its people leave behind (the tenants file's `sessions` and
/// `retention`); every member is optional, and a policy with none does nothing.
public struct DataPolicy: Sendable, Hashable {
    /// A session in flight with no write for this long gets one `session.abandoned` event.
    public var abandonedAfterHours: Double?
    /// A session in flight with no write for this long expires: answers and details deleted,
    /// `session.expired` written.
    public var expireAfterDays: Double?
    /// A completed session's remaining details (its answers go at completion) are deleted this
    /// long after it completed; the records stay.
    public var keepCompletedAnswersDays: Double?
    /// Funnel events, and completion events no longer being delivered, older than this are deleted.
    public var eventsDays: Double?

    public init(
        abandonedAfterHours: Double? = nil, expireAfterDays: Double? = nil, keepCompletedAnswersDays: Double? = nil,
        eventsDays: Double? = nil
    ) {
        self.abandonedAfterHours = abandonedAfterHours
        self.expireAfterDays = expireAfterDays
        self.keepCompletedAnswersDays = keepCompletedAnswersDays
        self.eventsDays = eventsDays
    }

    public var isEmpty: Bool { self == DataPolicy() }

    /// The tenants file's `sessions` and `retention` of one tenant, checked (the longest: ten years).
    static func parse(
        sessions: JSONValue?, retention: JSONValue?, tenant: String, fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> DataPolicy {
        func members(_ value: JSONValue?, _ key: String, _ allowed: [String]) throws(ConfigurationError) -> [String: JSONValue] {
            guard let value, !value.isNull else { return [:] }
            guard let fields = value.objectValue else { throw fail(tenant, key, "must be an object") }
            if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw fail(tenant, "\(key).\(unknown)", "unknown key (\(key) has \(allowed.joined(separator: ", ")))")
            }
            return fields
        }
        func duration(_ fields: [String: JSONValue], _ key: String, _ name: String, most: Double) throws(ConfigurationError) -> Double? {
            guard let value = fields[name], !value.isNull else { return nil }
            guard value.boolValue == nil, let number = value.doubleValue, number > 0, number <= most else {
                throw fail(tenant, "\(key).\(name)", "must be a number above 0 and at most \(Int(most))")
            }
            return number
        }
        let session = try members(sessions, "sessions", ["abandonedAfterHours", "expireAfterDays", "keepCompletedAnswersDays"])
        let kept = try members(retention, "retention", ["eventsDays"])
        let policy = DataPolicy(
            abandonedAfterHours: try duration(session, "sessions", "abandonedAfterHours", most: 87_600),
            expireAfterDays: try duration(session, "sessions", "expireAfterDays", most: 3_650),
            keepCompletedAnswersDays: try duration(session, "sessions", "keepCompletedAnswersDays", most: 3_650),
            eventsDays: try duration(kept, "retention", "eventsDays", most: 3_650))
        if let hours = policy.abandonedAfterHours, let days = policy.expireAfterDays, hours >= days * 24 {
            throw fail(tenant, "sessions.abandonedAfterHours", "must be shorter than expireAfterDays (a session would expire before it is abandoned)")
        }
        return policy
    }
}
