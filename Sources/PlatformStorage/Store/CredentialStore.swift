import Foundation
import PlatformCore

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

/// A user token as stored: its hash, whom it is for, when it ends, which key minted it.
public struct StoredToken: Sendable, Hashable {
    public var tenant: String
    public var userId: String
    public var expiresAt: Date
    /// The key whose login minted it (nil when minted without one: stdio, a Unix socket, the
    /// server itself); the token dies with that key.
    public var keyID: String?
    /// Revoked itself (`auth.revokeToken`), or its key was.
    public var revoked: Bool

    public init(tenant: String, userId: String, expiresAt: Date, keyID: String? = nil, revoked: Bool = false) {
        self.tenant = tenant
        self.userId = userId
        self.expiresAt = expiresAt
        self.keyID = keyID
        self.revoked = revoked
    }
}

/// A dashboard sign-in the server keeps: the cookie names it by a secret of its own, never the
/// admin key it was made with.
public struct StoredSignIn: Sendable, Hashable {
    public var keyID: String
    public var expiresAt: Date
    /// Ended by sign-out, or its key was revoked.
    public var revoked: Bool

    public init(keyID: String, expiresAt: Date, revoked: Bool = false) {
        self.keyID = keyID
        self.expiresAt = expiresAt
        self.revoked = revoked
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
    /// The token, with `revoked` true when it or the key that minted it was revoked.
    func token(secretHash: String) async throws -> StoredToken?
    /// Revokes one token of `tenant` (by its hash) or every token of one of its users; how many.
    func revokeTokens(tenant: String, secretHash: String?, userId: String?, at: Date) async throws -> Int
    /// Records the first use of a token's start link: true for the first, false ever after.
    func useStartLink(secretHash: String, at: Date) async throws -> Bool
    func insertSignIn(_ signIn: StoredSignIn, secretHash: String, createdAt: Date) async throws
    /// The sign-in, with `revoked` true when it ended or its key was revoked.
    func signIn(secretHash: String) async throws -> StoredSignIn?
    func endSignIn(secretHash: String, at: Date) async throws
    /// A number that moves after every committed revocation of a key or of tokens, and every
    /// sign-out, made through this store by any process on this database (a process that could
    /// not share the number refuses to revoke), so that a check confirmed at one value need not
    /// be read again while it stands. A change made around the store (SQL by hand) does not
    /// move it. Nil when the store has no such number shared by everyone who revokes through it
    /// (PostgreSQL's hosts share no memory): every check reads.
    func credentialsVersion() -> UInt64?
}

extension CredentialStore {
    public func credentialsVersion() -> UInt64? { nil }
}
