import Foundation
import GRDB
import PlatformCore
import PlatformStorage

/// A consistent copy of a SQLite database while a server keeps writing to it (`platformd
/// backup`): `VACUUM INTO` on a connection of its own reads one snapshot (every transaction
/// committed before it began, the WAL's included) and writes it as a new, compact file. A WAL
/// reader never blocks the server's writers. The work is synchronous (GRDB) and runs on a thread
/// of its own (`BlockingWork`), never on the caller's cooperative thread.
public enum SQLiteBackup {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Copies `source` to `destination` (which must not exist) and checks the copy.
    /// - Returns: the copy's `PRAGMA integrity_check` ("ok" when sound) and its size in bytes.
    public static func copy(from source: String, to destination: String) async throws -> (integrity: String, bytes: Int) {
        try await BlockingWork.run("platformd.backup") { try copying(from: source, to: destination) }
    }

    /// `PRAGMA integrity_check` of a database file: "ok", or the problems, one per line.
    public static func integrityCheck(_ path: String) async throws -> String {
        try await BlockingWork.run("platformd.integrity-check") { try checking(path) }
    }

    static func copying(from source: String, to destination: String) throws -> (integrity: String, bytes: Int) {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw Failure(description: "\(destination) exists; not overwriting it")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let database = try DatabaseQueue(path: source, configuration: configuration)
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [destination])
        }
        try database.close()
        let integrity = try checking(destination)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        return (integrity, bytes)
    }

    static func checking(_ path: String) throws -> String {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n") }
    }
}
