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
/// to a reader thread and back, ~100 µs of CPU a request on the 2-core VM, Docs/performance.md).
///
/// The counter lives in a small file beside the database (`DB-credentials`, the database's path
/// with symlinks resolved, as SQLite names `-wal` and `-shm`), mapped into each process's memory
/// and changed atomically, so reading it is a load, not a call to the file system. The file also
/// names the database it counts for (device and inode): one found naming another (a restore put
/// a new database in its place) is taken over, and its counter starts again at a random value,
/// as it does when the file is first made, so no value a process confirmed checks at comes back.
///
/// An in-memory database has one process, and a counter in it. A read-only opening, or a process
/// whose file cannot be made or mapped, keeps a counter of its own that other processes' changes
/// do not move (`seesEveryChange` is false): there every check reads, and such a process refuses
/// to revoke (its revocation would reach no server).
final class CredentialsVersion: @unchecked Sendable {
    private let counter: UnsafeAtomic<UInt64>
    /// The database the mapped file counts for.
    private let device: UnsafeAtomic<UInt64>?
    private let inode: UnsafeAtomic<UInt64>?
    /// The mapping, unmapped at deinit; nil for a counter of this process's own.
    private let mapping: UnsafeMutableRawPointer?
    /// Whether every change by any process on the database moves this counter.
    let seesEveryChange: Bool
    /// The file, for what is said when it could not be used.
    let path: String

    static let length = 4096

    /// The counter of this process alone: for an in-memory database, every change there is
    /// this process's own; a read-only opening is not told of other processes' changes.
    init(seesEveryChange: Bool, path: String = SQLiteSessionStore.memoryPath) {
        counter = .create(0)
        device = nil
        inode = nil
        mapping = nil
        self.seesEveryChange = seesEveryChange
        self.path = path
    }

    private init(mapping: UnsafeMutableRawPointer, path: String) {
        self.mapping = mapping
        let words = mapping.bindMemory(to: UnsafeAtomic<UInt64>.Storage.self, capacity: 3)
        counter = UnsafeAtomic(at: words)
        device = UnsafeAtomic(at: words + 1)
        inode = UnsafeAtomic(at: words + 2)
        seesEveryChange = true
        self.path = path
    }

    /// The counter shared through the file beside the database at `databasePath` (which must
    /// exist: called once it is open), made if missing; a counter of this process's own, said in
    /// the log, when the file cannot be made or mapped.
    static func beside(_ databasePath: String, logger: Logger) -> CredentialsVersion {
        guard let resolved = realpath(databasePath, nil) else { return unshared(databasePath + "-credentials", errno, logger) }
        let real = String(cString: resolved)
        free(resolved)
        let path = real + "-credentials"
        var database = stat()
        guard stat(real, &database) == 0 else { return unshared(path, errno, logger) }
        let mode = database.st_mode & 0o666
        // Never through a symlink, and never someone else's file: one planted in its place
        // could otherwise have root chown or write what it points to.
        var created = true
        var descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        if descriptor < 0, errno == EEXIST {
            created = false
            descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        }
        guard descriptor >= 0 else { return unshared(path, errno, logger) }
        defer { close(descriptor) }
        if created {
            // As SQLite makes `-wal` and `-shm`: the database's permissions whatever the umask,
            // and by root for the database's owner, so whoever may revoke may move the counter.
            _ = fchmod(descriptor, mode)
            if geteuid() == 0 { _ = fchown(descriptor, database.st_uid, database.st_gid) }
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return unshared(path, errno, logger) }
        guard status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1 else { return unshared(path, EINVAL, logger) }
        // Its blocks allocated, not a sparse file: a store through the mapping cannot fault on a
        // full disk. (Existing bytes are kept: another process may have counted already.)
        let allocated = posix_fallocate(descriptor, 0, off_t(length))
        guard allocated == 0 else { return unshared(path, allocated, logger) }
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let mapped, mapped != MAP_FAILED else { return unshared(path, errno, logger) }
        let version = CredentialsVersion(mapping: mapped, path: path)
        version.claim(device: UInt64(database.st_dev), inode: UInt64(database.st_ino))
        return version
    }

    /// Takes the file for this database when it names none (new) or another.
    private func claim(device: UInt64, inode: UInt64) {
        guard let deviceWord = self.device, let inodeWord = self.inode,
            deviceWord.load(ordering: .acquiring) != device || inodeWord.load(ordering: .acquiring) != inode
        else { return }
        counter.store(UInt64.random(in: 1 ... .max), ordering: .releasing)
        deviceWord.store(device, ordering: .releasing)
        inodeWord.store(inode, ordering: .releasing)
    }

    private static func unshared(_ path: String, _ error: Int32, _ logger: Logger) -> CredentialsVersion {
        logger.warning(
            """
            cannot use \(path) (\(String(cString: strerror(error)))): a server in this process reads a logged-in \
            request's key or token from the database every time, and this process cannot revoke keys or tokens
            """)
        return CredentialsVersion(seesEveryChange: false, path: path)
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

/// A revocation refused by a process whose credentials counter no server would see: committing
/// it would leave running servers accepting what it revoked.
struct RevocationNotAnnounced: Error, CustomStringConvertible {
    let path: String
    var description: String {
        "cannot revoke: \(path) could not be used (see the warning above), so servers running on this database would not see the revocation; fix the file's permissions (it is made with the database's) and run the command again"
    }
}
