import Foundation
import GRDB
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

/// The credentials version of a SQLite file (`DB-credentials`, shared by every process that
/// opens it): it moves after a revocation by any of them, and only then; a process that cannot
/// share it refuses to revoke; and a logged-in connection's key or token is read again only
/// when it has moved.
@Suite("The credentials version")
struct CredentialsVersionTests {
    /// Two stores on one file stand for two processes (the server and `platformd keys revoke`):
    /// each maps the file beside the database on its own.
    @Test func aRevocationInAnotherStoreOnTheFileMovesTheVersionOnlyThen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("shared.sqlite").path
            let server = try await SQLiteSessionStore.open(path: path)
            let other = try await SQLiteSessionStore.open(path: path)
            let credentials = Credentials(store: server)
            let (key, secret) = try await credentials.createKey(tenant: "t1", name: "backend")
            let token = try await credentials.mintToken(tenant: "t1", userId: "ann", ttl: 600, keyID: key.id)
            let signIn = try await credentials.signIn(keyID: key.id)
            let start = try #require(server.credentialsVersion())

            // What ends nothing leaves it: a key's use, a mint, a session.
            _ = try await credentials.key(secret: secret)
            _ = try await credentials.mintToken(tenant: "t1", userId: "bob", ttl: 600)
            let (_, rpc) = IDBytesTests.server(server)
            let started = await IDBytesTests.call(rpc, "flow.start", ["tenant": "fixture", "userId": "ann"])
            #expect(started["result"] != nil, "\(started)")
            #expect(server.credentialsVersion() == start)
            #expect(other.credentialsVersion() == start)

            // Each revocation in the other store moves it for the server, after its commit.
            #expect(try await Credentials(store: other).revokeTokens(tenant: "t1", token: token.token, userId: nil) == 1)
            let afterTokens = try #require(server.credentialsVersion())
            #expect(afterTokens != start)
            try await Credentials(store: other).endSignIn(secret: signIn)
            let afterSignIn = try #require(server.credentialsVersion())
            #expect(afterSignIn != afterTokens)
            #expect(try await Credentials(store: other).revoke(keyID: key.id))
            #expect(server.credentialsVersion() != afterSignIn)
            #expect(try await !server.isKeyActive(id: key.id))
            try await other.close()
            try await server.close()
        }
    }

    @Test func aStoreThatCannotSeeEveryChangeHasNoVersion() async throws {
        try await withTemporaryDirectory { directory in
            // An in-memory database has one process: its own counter sees every change.
            let memory = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
            #expect(memory.credentialsVersion() != nil)
            try await memory.close()

            let path = directory.appendingPathComponent("store.sqlite").path
            try await SQLiteSessionStore.open(path: path).close()
            // A read-only opening is not told of other processes' changes.
            let readOnly = try await SQLiteSessionStore.open(path: path, readOnly: true)
            #expect(readOnly.credentialsVersion() == nil)
            try await readOnly.close()

            // Nor is a process that cannot map the file (here a directory stands in its place):
            // it says so when it opens, and again, as an error, when it revokes.
            let blocked = directory.appendingPathComponent("blocked.sqlite").path
            try FileManager.default.createDirectory(atPath: blocked + "-credentials", withIntermediateDirectories: false)
            let lines = Mutex<[LoggedLine]>([])
            let logger = Logger(label: "test") { label in RecordingLogHandler(label: label) { line in lines.withLock { $0.append(line) } } }
            let unmapped = try await SQLiteSessionStore.open(path: blocked, logger: logger)
            #expect(unmapped.credentialsVersion() == nil)
            let (key, _) = try await Credentials(store: unmapped).createKey(tenant: "t1", name: "backend")
            // Its revocation would reach no server running on the file: refused, nothing written.
            await #expect(throws: (any Error).self) { try await Credentials(store: unmapped).revoke(keyID: key.id) }
            await #expect(throws: (any Error).self) {
                try await Credentials(store: unmapped).revokeTokens(tenant: "t1", token: nil, userId: "ann")
            }
            #expect(try await unmapped.isKeyActive(id: key.id))
            let said = lines.withLock { $0 }
            #expect(said.contains { $0.level == .warning && $0.message.contains("blocked.sqlite-credentials") }, "\(said.map(\.message))")
            try await unmapped.close()
        }
    }

    /// The file is found as SQLite finds `-wal`: a database opened through a symlink shares the
    /// counter of its real path. A symlink planted in the file's place is not followed (it is
    /// left as it is, and the process keeps a counter of its own). A database put in the place
    /// of another (a restore) takes the file over with a new counter.
    @Test func theFileIsTheDatabasesOwnWhateverPathLeadsToIt() async throws {
        try await withTemporaryDirectory { directory in
            let real = directory.appendingPathComponent("real.sqlite").path
            let link = directory.appendingPathComponent("link.sqlite").path
            let server = try await SQLiteSessionStore.open(path: real)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
            let revoker = try await SQLiteSessionStore.open(path: link)
            let (key, _) = try await Credentials(store: server).createKey(tenant: "t1", name: "backend")
            let before = try #require(server.credentialsVersion())
            #expect(try await Credentials(store: revoker).revoke(keyID: key.id))
            #expect(server.credentialsVersion() != before, "a revocation through the symlink reached the server")
            #expect(!FileManager.default.fileExists(atPath: link + "-credentials"))
            try await revoker.close()
            try await server.close()

            // A planted symlink: not followed, its target untouched.
            let victim = directory.appendingPathComponent("victim.txt").path
            try Data("untouched".utf8).write(to: URL(fileURLWithPath: victim))
            let planted = directory.appendingPathComponent("planted.sqlite").path
            try FileManager.default.createSymbolicLink(atPath: planted + "-credentials", withDestinationPath: victim)
            let refused = try await SQLiteSessionStore.open(path: planted)
            #expect(refused.credentialsVersion() == nil)
            try await refused.close()
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched")

            // A restore: another database file under the same name.
            let first = try await SQLiteSessionStore.open(path: real)
            let old = try #require(first.credentialsVersion())
            try await first.close()
            // Moved aside, as Docs/operations.md says to restore (so its inode is not reused).
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.moveItem(atPath: real + suffix, toPath: real + ".old" + suffix) }
            let restored = try await SQLiteSessionStore.open(path: real)
            let new = try #require(restored.credentialsVersion())
            #expect(new != old && new != old &+ 1, "the file was taken over with a new counter")
            try await restored.close()
        }
    }

    /// A key-logged connection's requests read the key once while nothing changes; a revocation
    /// in another process is refused at the next request, which reads it again.
    @Test func aLoggedInKeyIsReadAgainOnlyAfterACredentialChanges() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("server.sqlite").path
            // A lifetime no test run outlasts: this test counts reads, not time.
            let (store, counted, key, rpc, connection) = try await Self.loggedIn(path: path, confirmationLifetime: .seconds(3_600))

            for index in 0..<5 {
                let reply = await IDBytesTests.call(rpc, "flow.start", ["tenant": "fixture", "userId": .string("u\(index)")], as: connection)
                #expect(reply["result"] != nil, "\(reply)")
            }
            #expect(counted.keyReads.load(ordering: .relaxed) == 1, "the key was read once, not on every request")

            // `platformd keys revoke` is another process: a store of its own on the file.
            let revoker = try await SQLiteSessionStore.open(path: path)
            #expect(try await Credentials(store: revoker).revoke(keyID: key.id))
            try await revoker.close()
            let refused = await IDBytesTests.call(rpc, "flow.start", ["tenant": "fixture", "userId": "u9"], as: connection)
            #expect(refused["error"]?["code"] == -32001, "\(refused)")
            #expect(counted.keyReads.load(ordering: .relaxed) == 2)
            try await store.close()
        }
    }
}

extension CredentialsVersionTests {
    /// A server on a new file at `path` whose credential checks are counted, and a connection
    /// logged in with a key of the fixture tenant.
    static func loggedIn(
        path: String, confirmationLifetime: Duration
    ) async throws -> (SQLiteSessionStore, CountedCredentialStore, StoredKey, RPCServer, ConnectionState) {
        let store = try await SQLiteSessionStore.open(path: path)
        let counted = CountedCredentialStore(store)
        let (key, secret) = try await Credentials(store: store).createKey(tenant: "fixture", name: "backend")
        let (platform, _) = IDBytesTests.server(store)
        let rpc = platform.rpcServer(credentials: Credentials(store: counted), confirmationLifetime: confirmationLifetime)
        let connection = ConnectionState(nil, label: "test", transport: "test")
        let login = await IDBytesTests.call(rpc, "auth.login", ["key": .string(secret)], as: connection)
        #expect(login["result"] != nil, "\(login)")
        return (store, counted, key, rpc, connection)
    }

    /// A key revoked by SQL by hand moves no counter: the connection's confirmation of it lasts
    /// at most its lifetime, then the key is read again and refused.
    @Test func aKeyRevokedByHandIsRefusedOnceItsConfirmationEnds() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("server.sqlite").path
            let lifetime = Duration.milliseconds(200)
            let (store, counted, key, rpc, connection) = try await Self.loggedIn(path: path, confirmationLifetime: lifetime)
            let confirmed = await IDBytesTests.call(rpc, "flow.start", ["tenant": "fixture", "userId": "u0"], as: connection)
            #expect(confirmed["result"] != nil, "\(confirmed)")
            let before = counted.keyReads.load(ordering: .relaxed)

            let byHand = try DatabaseQueue(path: path)
            try await byHand.write { db in
                try db.execute(sql: "UPDATE api_keys SET revoked_at = 0 WHERE id = ?", arguments: [key.id])
            }
            try byHand.close()
            #expect(store.credentialsVersion() != nil, "the counter is in use, and did not move")

            try await Task.sleep(for: lifetime + .milliseconds(100))
            let refused = await IDBytesTests.call(rpc, "flow.start", ["tenant": "fixture", "userId": "u1"], as: connection)
            #expect(refused["error"]?["code"] == -32001, "\(refused)")
            #expect(counted.keyReads.load(ordering: .relaxed) == before + 1, "read again once its confirmation ended")
            try await store.close()
        }
    }
}

/// A store's credentials, with the reads a request's check makes counted.
final class CountedCredentialStore: CredentialStore {
    let store: any CredentialStore
    let keyReads = Atomic<Int>(0)

    init(_ store: any CredentialStore) { self.store = store }

    func insertKey(_ key: StoredKey, secretHash: String) async throws { try await store.insertKey(key, secretHash: secretHash) }
    func keys() async throws -> [StoredKey] { try await store.keys() }
    func revokeKey(id: String, at date: Date) async throws -> Bool { try await store.revokeKey(id: id, at: date) }
    func useKey(secretHash: String, at date: Date) async throws -> StoredKey? { try await store.useKey(secretHash: secretHash, at: date) }
    func isKeyActive(id: String) async throws -> Bool {
        keyReads.add(1, ordering: .relaxed)
        return try await store.isKeyActive(id: id)
    }
    func insertToken(_ token: StoredToken, secretHash: String, createdAt: Date) async throws {
        try await store.insertToken(token, secretHash: secretHash, createdAt: createdAt)
    }
    func token(secretHash: String) async throws -> StoredToken? { try await store.token(secretHash: secretHash) }
    func revokeTokens(tenant: String, secretHash: String?, userId: String?, at date: Date) async throws -> Int {
        try await store.revokeTokens(tenant: tenant, secretHash: secretHash, userId: userId, at: date)
    }
    func useStartLink(secretHash: String, at date: Date) async throws -> Bool { try await store.useStartLink(secretHash: secretHash, at: date) }
    func insertSignIn(_ signIn: StoredSignIn, secretHash: String, createdAt: Date) async throws {
        try await store.insertSignIn(signIn, secretHash: secretHash, createdAt: createdAt)
    }
    func signIn(secretHash: String) async throws -> StoredSignIn? { try await store.signIn(secretHash: secretHash) }
    func endSignIn(secretHash: String, at date: Date) async throws { try await store.endSignIn(secretHash: secretHash, at: date) }
    func credentialsVersion() -> UInt64? { store.credentialsVersion() }
}
