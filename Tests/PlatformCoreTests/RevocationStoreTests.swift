import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Revocable tokens, one-use start links and dashboard sign-ins on every store: what each host
/// of a shared database reads back.
@Suite("Tokens, start links and sign-ins in the store")
struct RevocationStoreTests {
    @Test(.postgres) func tokensAreRevokedByTokenByUserAndWithTheirKeyOnPostgres() async throws {
        try await tokensAreRevokedByTokenByUserAndWithTheirKey(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func tokensAreRevokedByTokenByUserAndWithTheirKey(kind: StoreKind) async throws {
        let store = try await kind.open()
        let credentials = Credentials(store: store)
        let (key, _) = try await credentials.createKey(tenant: "t1", name: "backend")
        let first = try await credentials.mintToken(tenant: "t1", userId: "ann", ttl: 600, keyID: key.id)
        let second = try await credentials.mintToken(tenant: "t1", userId: "ann", ttl: 600)
        let other = try await credentials.mintToken(tenant: "t1", userId: "bob", ttl: 600)
        #expect(try await credentials.token(first.token).map(\.keyID) == .success(key.id))

        // Another tenant's revocation touches nothing; by token, one; by user, the rest of hers.
        #expect(try await credentials.revokeTokens(tenant: "t2", token: first.token, userId: nil) == 0)
        #expect(try await credentials.revokeTokens(tenant: "t1", token: first.token, userId: nil) == 1)
        #expect(try await credentials.token(first.token) == .failure(.revoked))
        #expect(try await credentials.revokeTokens(tenant: "t1", token: first.token, userId: nil) == 0, "already revoked")
        #expect(try await credentials.revokeTokens(tenant: "t1", token: nil, userId: "ann") == 1)
        #expect(try await credentials.token(second.token) == .failure(.revoked))
        #expect(try await credentials.token(other.token).map(\.userId) == .success("bob"))

        // A token dies with the key that minted it.
        let third = try await credentials.mintToken(tenant: "t1", userId: "cat", ttl: 600, keyID: key.id)
        #expect(try await credentials.token(third.token).map(\.userId) == .success("cat"))
        #expect(try await credentials.revoke(keyID: key.id))
        #expect(try await credentials.token(third.token) == .failure(.revoked))
        try await store.close()
    }

    @Test(.postgres) func aStartLinkIsUsedOnceAndASignInEndsWithSignOutOrItsKeyOnPostgres() async throws {
        try await aStartLinkIsUsedOnceAndASignInEndsWithSignOutOrItsKey(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func aStartLinkIsUsedOnceAndASignInEndsWithSignOutOrItsKey(kind: StoreKind) async throws {
        let store = try await kind.open()
        let credentials = Credentials(store: store)
        let token = try await credentials.mintToken(tenant: "t1", userId: "ann", ttl: 600)
        #expect(try await credentials.useStartLink(token: token.token))
        #expect(try await !credentials.useStartLink(token: token.token))

        let (admin, _) = try await credentials.createKey(tenant: nil, name: "ops")
        let kept = try await credentials.signIn(keyID: admin.id)
        #expect(try await credentials.signIn(secret: kept)?.keyID == admin.id)
        try await credentials.endSignIn(secret: kept)
        #expect(try await credentials.signIn(secret: kept) == nil)
        let again = try await credentials.signIn(keyID: admin.id)
        #expect(try await credentials.signIn(secret: again) != nil)
        #expect(try await credentials.revoke(keyID: admin.id))
        #expect(try await credentials.signIn(secret: again) == nil, "a sign-in outlived its key")
        #expect(try await credentials.signIn(secret: "pds_unknown") == nil)
        try await store.close()
    }
}
