import Crypto
import Foundation

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

    public func mintToken(tenant: String, userId: String, ttl: TimeInterval) async throws -> (token: String, expiresAt: Date) {
        let secret = "pdt_" + Self.randomToken()
        let now = clock()
        // Whole seconds, as the contract writes times.
        let expires = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + ttl).rounded(.down))
        try await store.insertToken(StoredToken(tenant: tenant, userId: userId, expiresAt: expires), secretHash: Self.hash(secret), createdAt: now)
        return (secret, expires)
    }

    public func token(_ secret: String) async throws -> Result<StoredToken, Refusal> {
        guard let token = try await store.token(secretHash: Self.hash(secret)) else { return .failure(.unknownSecret) }
        return token.expiresAt > clock() ? .success(token) : .failure(.expired)
    }

    public func isActive(keyID: String) async throws -> Bool {
        try await store.isKeyActive(id: keyID)
    }

    public func keys() async throws -> [StoredKey] { try await store.keys() }
    public func revoke(keyID: String) async throws -> Bool { try await store.revokeKey(id: keyID, at: clock()) }

    static func hash(_ secret: String) -> String {
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
