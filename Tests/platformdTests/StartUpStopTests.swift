import Foundation
import GRDB
import PlatformStorage
import PlatformTesting
import Testing

@testable import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// A stop signal while `serve` or `mcp` waits at start-up for the write lock another process holds (an
/// older server migrating, a backup writing) stops it within moments, exit 0, the file as it
/// was. It used to be acted on only once the store was open: after the lock came, or after the
/// two minutes the start waits for it, past a service manager's patience (systemd's is 90 s).
@Suite struct StartUpStopTests {
    /// `mcp` trapped the signals too but gave them to no one before the store was open.
    static let starts: [[String]] = [["serve"], ["mcp", "--tenant", Hosted.tenant, "--user-id", "u_1"]]

    @Test(arguments: starts, [Int32(SIGTERM), Int32(SIGINT)])
    func aStopSignalWhileWaitingForTheWriteLockEndsTheStart(command: [String], signal: Int32) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("behind.sqlite").path
            // A file one migration behind: the start must take the write lock to migrate it.
            // Synchronous GRDB work, off the cooperative pool the other tests share.
            let migrations = SQLiteSessionStore.migrator.migrations
            let holder = try await BlockingWork.run { () throws -> DatabaseQueue in
                let pool = try DatabasePool(path: path)
                try SQLiteSessionStore.migrator.migrate(pool, upTo: migrations[migrations.count - 2])
                var unsafe = Configuration()
                unsafe.allowsUnsafeTransactions = true  // the lock is held across two accesses
                let holder = try DatabaseQueue(path: path, configuration: unsafe)
                try pool.close()
                try holder.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
                return holder
            }
            defer {
                try? holder.inDatabase { db in try db.execute(sql: "ROLLBACK") }
                try? holder.close()
            }

            try await PlatformdProcess.with(command + ["--db", path]) { server in
                // Long: a whole test run on two cores can hold a start up for tens of seconds.
                try await server.waitForStderr(containing: "waiting for the database's write lock", timeout: .seconds(300))
                server.send(signal: signal)
                // Within the minute, where the wait alone would take two.
                let exit = try await server.waitForExit(timeout: .seconds(60))
                #expect(exit == PlatformdProcess.Exit(status: 0, signaled: false), "\(exit)\n\(server.stderrText)")
                #expect(server.stderrText.contains("stopped before serving"), "\(server.stderrText)")
            }
            // Nothing was migrated: the last migration is still to come.
            let applied = try holder.inDatabase { db in try SQLiteSessionStore.migrator.appliedIdentifiers(db) }
            #expect(!applied.contains(migrations[migrations.count - 1]))
        }
    }
}
