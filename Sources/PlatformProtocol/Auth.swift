/// Logins and user tokens (the contract's version 2 additions: "Keys, logins and user tokens").
///
/// Secrets and tokens are left out of `description`, so printing or logging a value never shows them.

/// `auth.login`: exactly one of `key` (an admin or tenant key's secret) and `token` (a user token).
public struct LoginParams: MethodParams, Hashable, CustomStringConvertible {
    public static let members: [ParamMember] = [
        ParamMember("key", required: false, schema: Schema.string(description: "A key's secret (give key or token).")),
        ParamMember("token", required: false, schema: Schema.string(description: "A user token from auth.userToken.")),
    ]

    public var key: String?
    public var token: String?

    public init(key: String? = nil, token: String? = nil) {
        self.key = key
        self.token = token
    }

    public static func key(_ secret: String) -> LoginParams { LoginParams(key: secret) }
    public static func token(_ token: String) -> LoginParams { LoginParams(token: token) }

    public var description: String {
        key != nil ? "LoginParams(key: <redacted>)" : token != nil ? "LoginParams(token: <redacted>)" : "LoginParams()"
    }
}

/// Who a connection acts for once logged in.
public struct Principal: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Every method, every tenant.
        case admin
        /// Every method for one tenant (a key of that tenant).
        case tenant
        /// The flow, profile and gate methods for one user of one tenant (a user token).
        case user
    }

    public var kind: Kind
    /// Set for `tenant` and `user`.
    public var tenant: String?
    /// Set for `user`.
    public var userId: String?
    /// When a user token stops being accepted (ISO 8601 UTC), for `user`.
    public var expiresAt: String?

    public init(kind: Kind, tenant: String? = nil, userId: String? = nil, expiresAt: String? = nil) {
        self.kind = kind
        self.tenant = tenant
        self.userId = userId
        self.expiresAt = expiresAt
    }

    public static let admin = Principal(kind: .admin)
}

/// The answer to `auth.login`.
public struct LoginResult: Sendable, Hashable, Codable {
    public var principal: Principal

    public init(principal: Principal) {
        self.principal = principal
    }
}

/// `auth.userToken` (an admin, or a key of `tenant`): a token that lets an app's client act for
/// one user directly.
public struct UserTokenParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [.tenant, .userId, .bounded(ParamBounds.tokenLifetime)]

    public var tenant: String
    public var userId: String
    /// 60 to 86400; the server's default is 3600.
    public var ttlSeconds: Int?

    public init(tenant: String, userId: String, ttlSeconds: Int? = nil) {
        self.tenant = tenant
        self.userId = userId
        self.ttlSeconds = ttlSeconds
    }
}

/// The answer to `auth.userToken`.
public struct UserToken: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The secret to pass to `auth.login` as `token`; shown only in this reply.
    public var token: String
    /// ISO 8601 UTC.
    public var expiresAt: String

    public init(token: String, expiresAt: String) {
        self.token = token
        self.expiresAt = expiresAt
    }

    public var description: String { "UserToken(token: <redacted>, expiresAt: \(expiresAt))" }
}

/// `auth.revokeToken` (an admin, or a key of `tenant`): one token, or every token of one user.
public struct RevokeTokenParams: MethodParams, Hashable, CustomStringConvertible {
    public static let members: [ParamMember] = [
        .tenant, ParamMember("token", required: false, schema: Schema.string(description: "The token to revoke (give token or userId).")),
        ParamMember.userId.optional,
    ]

    public var tenant: String
    public var token: String?
    public var userId: String?

    public init(tenant: String, token: String) {
        self.tenant = tenant
        self.token = token
    }

    public init(tenant: String, userId: String) {
        self.tenant = tenant
        self.userId = userId
    }

    public var description: String {
        token != nil ? "RevokeTokenParams(tenant: \(tenant), token: <redacted>)" : "RevokeTokenParams(tenant: \(tenant), userId: \(userId ?? ""))"
    }
}

/// The answer to `auth.revokeToken`: how many live tokens were revoked.
public struct RevokedTokens: Sendable, Hashable, Codable {
    public var revoked: Int

    public init(revoked: Int) {
        self.revoked = revoked
    }
}
