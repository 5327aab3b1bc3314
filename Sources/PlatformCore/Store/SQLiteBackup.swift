import Foundation
import GRDB

/// A consistent copy of a SQLite database while a server keeps writing to it (`platformd
/// backup`): `VACUUM INTO` on a connection of its own reads one snapshot (every transaction
/// committed before it began, the WAL's included) and writes it as a new, compact file. A WAL
/// reader never blocks the server's writers. Synchronous: run it on a thread of its own.
public enum SQLiteBackup {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Copies `source` to `destination` (which must not exist) and checks the copy.
    /// - Returns: the copy's `PRAGMA integrity_check` ("ok" when sound) and its size in bytes.
    public static func copy(from source: String, to destination: String) throws -> (integrity: String, bytes: Int) {
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
        let integrity = try integrityCheck(destination)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
        return (integrity, bytes)
    }

    /// `PRAGMA integrity_check` of a database file: "ok", or the problems, one per line.
    public static func integrityCheck(_ path: String) throws -> String {
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? database.close() }
        return try database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n") }
    }
}
