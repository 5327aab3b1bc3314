import Foundation

/// An API key as stored: never its secret, only the secret's hash.
public struct StoredKey: Sendable, Hashable {
    public var id: String
    /// The tenant it acts for; nil for an admin key.
    public var tenant: String?
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?

    public init(id: String, tenant: String?, name: String, createdAt: Date, lastUsedAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.tenant = tenant
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

/// A user token as stored: its hash, whom it is for, when it ends.
public struct StoredToken: Sendable, Hashable {
    public var tenant: String
    public var userId: String
    public var expiresAt: Date

    public init(tenant: String, userId: String, expiresAt: Date) {
        self.tenant = tenant
        self.userId = userId
        self.expiresAt = expiresAt
    }
}

/// Keys and user tokens, kept in the same database as the sessions so that every host on it sees
/// the same ones. Only SHA-256 hashes of secrets are stored.
public protocol CredentialStore: Sendable {
    func insertKey(_ key: StoredKey, secretHash: String) async throws
    func keys() async throws -> [StoredKey]
    /// Revokes a key; false when there is no such key (or it was revoked already).
    func revokeKey(id: String, at: Date) async throws -> Bool
    /// The key whose secret hashes to this, revoked or not; its last use is recorded.
    func useKey(secretHash: String, at: Date) async throws -> StoredKey?
    /// Whether the key exists and is not revoked.
    func isKeyActive(id: String) async throws -> Bool
    func insertToken(_ token: StoredToken, secretHash: String, createdAt: Date) async throws
    func token(secretHash: String) async throws -> StoredToken?
}
