import Atomics
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A counter that every process with one SQLite database open moves after it commits a change
/// that can end a credential (a key revoked, tokens revoked, a sign-in ended): `platformd keys
/// revoke` is a process of its own, and the server must refuse the revoked key from its next
/// request on. While the counter stands still, a key or token the server has confirmed need not
/// be read again: a request of a logged-in connection then costs no read of the database (a hop
/// to a reader thread and back, ~110 µs of CPU a request on the 2-core VM, Docs/performance.md).
///
/// The counter lives in a small file beside the database (`DB-credentials`), mapped into each
/// process's memory and changed atomically, so reading it is a load, not a call to the file
/// system. An in-memory database has one process, and a counter in it. A read-only opening,
/// or a process whose file cannot be mapped, keeps a counter of its own that other processes'
/// changes do not move (`seesEveryChange` is false): there every check reads, as before.
final class CredentialsVersion: @unchecked Sendable {
    private let counter: UnsafeAtomic<UInt64>
    /// The mapping, unmapped at deinit; nil for a counter of this process's own.
    private let mapping: UnsafeMutableRawPointer?
    /// Whether every change by any process on the database moves this counter.
    let seesEveryChange: Bool

    static let length = 4096

    /// The counter of this process alone: for an in-memory database, every change there is
    /// this process's own; a read-only opening is not told of other processes' changes.
    init(seesEveryChange: Bool) {
        counter = .create(0)
        mapping = nil
        self.seesEveryChange = seesEveryChange
    }

    private init(mapping: UnsafeMutableRawPointer) {
        self.mapping = mapping
        counter = UnsafeAtomic(at: mapping.bindMemory(to: UInt64.AtomicRepresentation.self, capacity: 1))
        seesEveryChange = true
    }

    /// The counter shared through the file beside `databasePath`, made if missing; a counter of
    /// this process's own (said in the log) when the file cannot be made or mapped.
    static func beside(_ databasePath: String, logger: Logger) -> CredentialsVersion {
        let path = databasePath + "-credentials"
        // Made as SQLite makes `-wal` and `-shm`: with the database's permissions and, by root,
        // for the database's owner, so whoever may revoke in the database may move the counter.
        var database = stat()
        let known = stat(databasePath, &database) == 0
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, known ? database.st_mode & 0o666 : 0o600)
        guard descriptor >= 0 else { return unshared(path, errno, logger) }
        defer { close(descriptor) }
        if known, geteuid() == 0 { _ = fchown(descriptor, database.st_uid, database.st_gid) }
        var status = stat()
        // Grown, never shrunk: another process may have counted already (growing keeps its bytes).
        guard fstat(descriptor, &status) == 0, status.st_size >= length || ftruncate(descriptor, off_t(length)) == 0 else {
            return unshared(path, errno, logger)
        }
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let mapped, mapped != MAP_FAILED else { return unshared(path, errno, logger) }
        return CredentialsVersion(mapping: mapped)
    }

    private static func unshared(_ path: String, _ error: Int32, _ logger: Logger) -> CredentialsVersion {
        logger.warning(
            """
            cannot map \(path) (\(String(cString: strerror(error)))): a server in this process reads a logged-in \
            request's key or token from the database every time, and a revocation made by this process is not \
            announced to servers running on the database
            """)
        return CredentialsVersion(seesEveryChange: false)
    }

    deinit {
        if let mapping { munmap(mapping, Self.length) } else { counter.destroy() }
    }

    var value: UInt64 { counter.load(ordering: .acquiring) }

    /// Called after the commit of a change that can end a credential, never before: a reader that
    /// sees the new value then reads the committed change.
    func advance() {
        counter.wrappingIncrement(ordering: .releasing)
    }
}
