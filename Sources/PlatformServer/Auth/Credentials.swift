import Crypto
import Foundation
import PlatformCore
import PlatformStorage

/// Makes and checks secrets: keys (`pdk_…`) and user tokens (`pdt_…`) are 32 random bytes,
/// stored only as their SHA-256 (a secret that long needs no slow hash: it cannot be guessed).
public struct Credentials: Sendable {
    let store: any CredentialStore
    let clock: @Sendable () -> Date

    public init(store: any CredentialStore, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.clock = clock
    }

    /// Why a login or a check failed; the reply never says which.
    public enum Refusal: Error, Sendable, Hashable {
        case unknownSecret, revoked, expired
        public var reason: String {
            switch self {
            case .unknownSecret: "unknown secret"
            case .revoked: "revoked key"
            case .expired: "expired token"
            }
        }
    }

    /// A new key; its secret is returned once and never stored.
    public func createKey(tenant: String?, name: String) async throws -> (key: StoredKey, secret: String) {
        let secret = "pdk_" + Self.randomToken()
        let key = StoredKey(id: "key_" + Self.randomHex(6), tenant: tenant, name: name, createdAt: clock())
        try await store.insertKey(key, secretHash: Self.hash(secret))
        return (key, secret)
    }

    /// The key a secret belongs to, if it is active.
    public func key(secret: String) async throws -> Result<StoredKey, Refusal> {
        guard let key = try await store.useKey(secretHash: Self.hash(secret), at: clock()) else { return .failure(.unknownSecret) }
        return key.revokedAt == nil ? .success(key) : .failure(.revoked)
    }

    /// A user token; `keyID` is the key whose login minted it, which the token dies with.
    public func mintToken(tenant: String, userId: String, ttl: TimeInterval, keyID: String? = nil) async throws -> (token: String, expiresAt: Date) {
        let secret = "pdt_" + Self.randomToken()
        let now = clock()
        // Whole seconds, as the contract writes times.
        let expires = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + ttl).rounded(.down))
        try await store.insertToken(
            StoredToken(tenant: tenant, userId: userId, expiresAt: expires, keyID: keyID), secretHash: Self.hash(secret), createdAt: now)
        return (secret, expires)
    }

    public func token(_ secret: String) async throws -> Result<StoredToken, Refusal> {
        try await token(hash: Self.hash(secret))
    }

    /// A token by its secret's hash: refused when unknown, revoked (or its key was) or expired.
    public func token(hash: String) async throws -> Result<StoredToken, Refusal> {
        guard let token = try await store.token(secretHash: hash) else { return .failure(.unknownSecret) }
        if token.revoked { return .failure(.revoked) }
        return token.expiresAt > clock() ? .success(token) : .failure(.expired)
    }

    /// Revokes one token of `tenant` or every token of one of its users; how many were live.
    public func revokeTokens(tenant: String, token: String?, userId: String?) async throws -> Int {
        try await store.revokeTokens(tenant: tenant, secretHash: token.map(Self.hash), userId: userId, at: clock())
    }

    /// True the first time a token's start link is used, false after.
    public func useStartLink(token: String) async throws -> Bool {
        try await store.useStartLink(secretHash: Self.hash(token), at: clock())
    }

    /// A dashboard sign-in for an admin key: the secret its cookie holds.
    public func signIn(keyID: String, lasting: TimeInterval = 12 * 3600) async throws -> String {
        let secret = "pds_" + Self.randomToken()
        let now = clock()
        try await store.insertSignIn(StoredSignIn(keyID: keyID, expiresAt: now.addingTimeInterval(lasting)), secretHash: Self.hash(secret), createdAt: now)
        return secret
    }

    /// The sign-in a cookie names, if it holds: not ended, not expired, its key not revoked.
    public func signIn(secret: String) async throws -> StoredSignIn? {
        guard let signIn = try await store.signIn(secretHash: Self.hash(secret)), !signIn.revoked, signIn.expiresAt > clock() else { return nil }
        return signIn
    }

    public func endSignIn(secret: String) async throws {
        try await store.endSignIn(secretHash: Self.hash(secret), at: clock())
    }

    public func isActive(keyID: String) async throws -> Bool {
        try await store.isKeyActive(id: keyID)
    }

    /// The store's credentials version (`CredentialStore.credentialsVersion()`).
    public func version() -> UInt64? { store.credentialsVersion() }

    public func keys() async throws -> [StoredKey] { try await store.keys() }
    public func revoke(keyID: String) async throws -> Bool { try await store.revokeKey(id: keyID, at: clock()) }

    public static func hash(_ secret: String) -> String {
        Hex.string(SHA256.hash(data: Array(secret.utf8)))
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func randomHex(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.string((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
