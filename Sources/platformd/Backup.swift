import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import PostgresStore
import SQLiteStore

/// `platformd backup`: a consistent copy of a SQLite database while `serve` keeps serving it.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a consistent copy of a SQLite database, while a server keeps serving it.",
        discussion: """
            The copy holds every write committed before the backup began (VACUUM INTO on a connection of its own: \
            the server's writers are not blocked), is compacted, and is checked with PRAGMA integrity_check before \
            the command reports it. --to must not exist. A PostgreSQL database is backed up with pg_dump instead. \
            Restore by stopping the server and putting the copy in place of the database file (and removing the \
            old file's -wal and -shm). See Docs/operations.md, "Backing up and restoring".
            """)

    @Option(name: .long, help: ArgumentHelp("The SQLite database to copy.", valueName: "path")) var db: String
    @Option(name: .long, help: ArgumentHelp("The file to write (must not exist).", valueName: "file")) var to: String

    /// EX_CANTCREAT: the copy cannot be written (it exists, or the directory is not writable).
    static let cannotWriteExitCode: Int32 = 73

    func run() async throws {
        if PostgresSessionStore.isURL(db) {
            throw CommandRefusal.exit("backup copies a SQLite database; back up PostgreSQL with pg_dump (pg_dump --format=custom DATABASE_URL > FILE)")
        }
        guard db != SQLiteSessionStore.memoryPath else { throw CommandRefusal.exit("--db :memory: holds nothing to back up") }
        guard FileManager.default.fileExists(atPath: db) else {
            FileHandle.standardError.write(Data("platformd: no database at \(db) (--db); only serve and mcp create one\n".utf8))
            throw ExitCode(StoreOptions.missingDatabaseExitCode)
        }
        // Said before SQLite is asked, in words: its own message for a missing folder is
        // "unable to open database file".
        let folder = URL(fileURLWithPath: to).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            FileHandle.standardError.write(Data("platformd: cannot write the copy \(to): the folder \(folder) does not exist (create it first)\n".utf8))
            throw ExitCode(Self.cannotWriteExitCode)
        }
        guard !FileManager.default.fileExists(atPath: to) else {
            FileHandle.standardError.write(Data("platformd: \(to) exists: --to must name a new file\n".utf8))
            throw ExitCode(Self.cannotWriteExitCode)
        }
        let (source, destination) = (db, to)
        FileHandle.standardError.write(Data("backup: copying \(source) to \(destination)\n".utf8))
        let started = ContinuousClock.now
        let copied: (integrity: String, bytes: Int)
        do {
            copied = try await SQLiteBackup.copy(from: source, to: destination)
        } catch let failure as SQLiteBackup.Failure {
            FileHandle.standardError.write(Data("platformd: \(failure)\n".utf8))
            throw ExitCode(Self.cannotWriteExitCode)
        } catch {
            FileHandle.standardError.write(Data("platformd: backup of \(source) to \(destination) failed: \(error)\n".utf8))
            throw ExitCode(Self.cannotWriteExitCode)
        }
        guard copied.integrity == "ok" else {
            FileHandle.standardError.write(Data("platformd: the copy \(destination) failed its integrity check: \(copied.integrity)\n".utf8))
            throw ExitCode.failure
        }
        let took = ContinuousClock.now - started
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        StandardOutput.writeLine(
            "backed up \(source) to \(destination): \(copied.bytes) bytes in \(String(format: "%.2f", seconds)) s, integrity_check ok")
    }
}
