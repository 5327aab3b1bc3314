/// Who a connection acts for, once logged in (or by its transport's default).
public struct Principal: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Every method, every tenant.
        case admin
        /// Every method of one tenant.
        case tenant
        /// The flow, profile and gate methods of one user of one tenant.
        case user
    }

    public var kind: Kind
    public var tenant: String?
    public var userId: String?
    /// When a user token stops working (ISO 8601).
    public var expiresAt: String?

    public init(kind: Kind, tenant: String? = nil, userId: String? = nil, expiresAt: String? = nil) {
        self.kind = kind
        self.tenant = tenant
        self.userId = userId
        self.expiresAt = expiresAt
    }

    public static let admin = Principal(kind: .admin)
}

/// `auth.login`: a key's secret or a user token, one of the two.
public struct LoginParams: Sendable, Hashable, Codable {
    public var key: String?
    public var token: String?

    public init(key: String) { self.key = key }
    public init(token: String) { self.token = token }
}

/// The answer to `auth.login`.
public struct LoginResult: Sendable, Hashable, Codable {
    public var principal: Principal

    public init(principal: Principal) {
        self.principal = principal
    }
}

/// `auth.userToken`: a short-lived token for one user of one tenant.
public struct UserTokenParams: Sendable, Hashable, Codable {
    public var tenant: String
    public var userId: String
    /// 60 to 86400; default 3600.
    public var ttlSeconds: Int?

    public init(tenant: String, userId: String, ttlSeconds: Int? = nil) {
        self.tenant = tenant
        self.userId = userId
        self.ttlSeconds = ttlSeconds
    }
}

/// The answer to `auth.userToken`. The token is shown once; the server keeps only its hash.
public struct UserToken: Sendable, Hashable, Codable {
    public var token: String
    public var expiresAt: String

    public init(token: String, expiresAt: String) {
        self.token = token
        self.expiresAt = expiresAt
    }
}
