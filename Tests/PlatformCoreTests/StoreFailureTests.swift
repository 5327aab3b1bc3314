import Foundation
import GRDB
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// A store that cannot take a write answers -32008 (retryable), never -32603, and keeps nothing.
@Suite struct StoreFailureTests {
    @Test func aDatabaseLockedByAnotherProcessIsUnavailableThenRecovers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locked-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let store = try await SQLiteSessionStore.open(path: path, busyTimeout: 0.2)
        let platform = Platform(plugins: [FixturePlugin()], store: store)
        let methods = platform.rpcServer()

        // Another process's writer (here another connection) holds the write lock for a while.
        let other = try DatabaseQueue(path: path)
        let holding = AsyncStream<Void>.makeStream()
        // Held until the test lets go (bounded, so a failing test cannot hang). The bound is
        // long: early in a whole run this test's next step has waited more than 30 s for a pool
        // thread, and a lock let go by then made the write it checks succeed.
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await other.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    holding.continuation.yield()
                    _ = release.wait(timeout: .now() + 600)
                    return .rollback
                }
            }
        }
        var locked = holding.stream.makeAsyncIterator()
        _ = await locked.next()
        let refused = await methods.reply(to: Array(#"{"jsonrpc":"2.0","id":1,"method":"flow.start","params":{"tenant":"fixture","userId":"u1"}}"#.utf8))
        #expect(refused?["error"]?["code"] == -32008)
        #expect(refused?["error"]?["message"]?.stringValue?.hasPrefix("Unavailable") == true)
        release.signal()
        try await holder.value

        // Nothing was saved, and the same request succeeds once the lock is gone.
        let after = await methods.reply(to: Array(#"{"jsonrpc":"2.0","id":2,"method":"flow.get","params":{"tenant":"fixture","userId":"u1"}}"#.utf8))
        #expect(after?["error"]?["code"] == -32002)
        let retried = await methods.reply(to: Array(#"{"jsonrpc":"2.0","id":3,"method":"flow.start","params":{"tenant":"fixture","userId":"u1"}}"#.utf8))
        #expect(retried?["result"]?["userId"] == "u1")
        try await store.close()
    }

    @Test func onlyPassingConditionsAreUnavailable() async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        #expect(store.unavailability(of: DatabaseError(resultCode: .SQLITE_FULL)) != nil)
        #expect(store.unavailability(of: DatabaseError(resultCode: .SQLITE_BUSY)) != nil)
        #expect(store.unavailability(of: DatabaseError(resultCode: .SQLITE_CONSTRAINT)) == nil)
        #expect(store.unavailability(of: CocoaError(.fileReadUnknown)) == nil)
    }
}
