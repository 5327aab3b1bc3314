/// A bounded integer member of a method's params: its range and the value a missing member takes.
/// The OpenRPC schema is derived from it (`schema`) and the server reads the member through it
/// (`RPCParams.integer(_:)`), so each bound is written once, here.
public struct IntegerParam: Sendable, Hashable {
    public let name: String
    public var range: ClosedRange<Int>
    public var defaultValue: Int

    public init(name: String, range: ClosedRange<Int>, defaultValue: Int) {
        self.name = name
        self.range = range
        self.defaultValue = defaultValue
    }

    public var schema: JSONValue {
        Schema.integer(minimum: range.lowerBound, maximum: range.upperBound, description: "Default \(defaultValue).")
    }

    /// The -32602 message for a value outside `range`.
    public var outOfRange: String { "\(name) must be between \(range.lowerBound) and \(range.upperBound)" }
}

/// A text member with a length bound (in characters, as the contract counts them).
public struct TextParam: Sendable, Hashable {
    public let name: String
    public var maxLength: Int
    public var minLength: Int?
    public var description: String?

    public init(name: String, maxLength: Int, minLength: Int? = nil, description: String? = nil) {
        self.name = name
        self.maxLength = maxLength
        self.minLength = minLength
        self.description = description
    }

    public var schema: JSONValue { Schema.string(description: description, maxLength: maxLength, minLength: minLength) }

    /// The -32602 message for a longer value.
    public var tooLong: String { "\(name) must be at most \(maxLength) characters" }
}

/// Every bounded member of the contract's methods, in one place: `rpc.discover`'s schemas and
/// the server's checks both read them (a test walks `integers` and `texts` through both).
public enum ParamBounds {
    /// `flow.search`'s `limit`.
    public static let searchLimit = IntegerParam(name: "limit", range: 1...50, defaultValue: 10)
    /// `events.list`'s `limit`.
    public static let eventsLimit = IntegerParam(name: "limit", range: 1...1000, defaultValue: 100)
    /// `auth.userToken`'s `ttlSeconds`.
    public static let tokenLifetime = IntegerParam(name: "ttlSeconds", range: 60...86_400, defaultValue: 3600)

    /// `flow.search`'s `query`.
    public static let searchQuery = TextParam(name: "query", maxLength: 200)
    /// Every method's `tenant` (the `TenantId` schema).
    public static let tenant = TextParam(
        name: "tenant", maxLength: 63, minLength: 1, description: "A tenant id: 1-63 characters of a-z, 0-9 and -.")
    /// Every method's `userId` (the `UserId` schema).
    public static let userId = TextParam(name: "userId", maxLength: 256, minLength: 1, description: "The app's id for the user.")
    /// `locale` of `flow.start` and `gate.check` (BCP 47).
    public static let locale = TextParam(name: "locale", maxLength: 35, minLength: 2)
    /// `analytics.experiment`'s `experiment`: an id of the tenants file (1-63 of a-z, 0-9 and -).
    public static let experiment = TextParam(
        name: "experiment", maxLength: 63, minLength: 1, description: "An experiment id of the tenants file.")
    /// Each member of `flow.start`'s `user` (`UserDetails`).
    public static let userDetail = TextParam(name: "user", maxLength: 256)

    /// The integer members, with the method each belongs to (for tests that walk them all).
    public static let integers: [(method: PlatformMethod, param: IntegerParam)] = [
        (.search, searchLimit), (.eventsList, eventsLimit), (.userToken, tokenLifetime),
    ]
    /// The text members with a bound of their own, with a method each is checked on.
    public static let texts: [(method: PlatformMethod, param: TextParam)] = [
        (.search, searchQuery), (.start, tenant), (.start, userId), (.start, locale),
        (.experiment, experiment),
    ]
}
