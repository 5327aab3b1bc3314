import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process started with `posix_spawn`, for the tests' servers, scripts and tools.
///
/// Why not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close inherited
/// descriptors and copies each entry's whole 256-byte `d_name`, reading past glibc's buffer when
/// many descriptors are open; the test process, with hundreds of connections and pipes open at
/// once, crashed in it (swift-corelibs-foundation's fix, PR 5472, is not in the Swift release the
/// project builds with). Here the child closes every descriptor from 3 up with glibc's
/// `posix_spawn_file_actions_addclosefrom_np`, reading no directory at all.
///
/// The exit is collected by a thread of its own blocked in `waitpid`, never on the cooperative pool.
public final class ChildProcess: Sendable {
    /// How the child ended: its exit status, or the signal that ended it.
    public struct Exit: Sendable, Equatable, CustomStringConvertible {
        public var status: Int32
        /// True when a signal the child did not handle ended it (`status` is the signal).
        public var signaled: Bool

        public init(status: Int32, signaled: Bool) {
            self.status = status
            self.signaled = signaled
        }

        public var description: String { signaled ? "killed by signal \(status)" : "exit status \(status)" }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// The test process's own.
        case inherit
        /// `/dev/null`.
        case null
        /// This descriptor (a pipe's end, an open file); the caller keeps and closes its copy.
        case descriptor(Int32)
    }

    private struct State {
        var exit: Exit?
        var waiters: [CheckedContinuation<Exit, Never>] = []
    }

    public let pid: pid_t
    private let state = Mutex(State())

    /// Starts `executable` (a path) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; nil: the test process's.
    ///   - currentDirectory: where the child starts; nil: the test process's.
    ///   - onExit: called once, on the waiting thread, when the child has ended.
    public init(
        _ executable: String, arguments: [String] = [], environment: [String: String]? = nil, currentDirectory: String? = nil,
        stdin: Stream = .inherit, stdout: Stream = .inherit, stderr: Stream = .inherit,
        onExit: (@Sendable (Exit) -> Void)? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit: break
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            }
        }
        if let currentDirectory {
            guard let addChdir = SpawnExtensions.addChdir else {
                throw Failure(description: "posix_spawn cannot set the child's directory on this C library")
            }
            let status = addChdir(&actions, currentDirectory)
            guard status == 0 else { throw Failure(description: "posix_spawn chdir \(currentDirectory): \(String(cString: strerror(status)))") }
        }
        try Self.closeInherited(&actions)
        // The tests ignore SIGPIPE, and an ignored signal survives exec: the child gets every
        // signal's default and an empty mask, as if started from a shell.
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        // Its own process group, so a signal for the test runner's group does not reach it.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) }
        let environment = environment ?? ProcessInfo.processInfo.environment
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child = pid_t()
        let status = (argv + [nil]).withUnsafeBufferPointer { arguments in
            (envp + [nil]).withUnsafeBufferPointer { environment in
                posix_spawn(
                    &child, executable, &actions, &attributes,
                    UnsafeMutablePointer(mutating: arguments.baseAddress!), UnsafeMutablePointer(mutating: environment.baseAddress!))
            }
        }
        guard status == 0 else {
            throw Failure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        let waiting = Thread { [self] in collectExit(onExit) }
        waiting.name = "wait \(child)"
        waiting.start()
    }

    /// On the waiting thread: blocks in `waitpid` until the child ends, then tells everyone.
    private func collectExit(_ onExit: (@Sendable (Exit) -> Void)?) {
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        // WIFSIGNALED/WTERMSIG/WEXITSTATUS are macros Swift does not import.
        let signal = raw & 0x7f
        let exit =
            signal != 0 && signal != 0x7f
            ? Exit(status: signal, signaled: true) : Exit(status: (raw >> 8) & 0xff, signaled: false)
        let waiters = state.withLock { state in
            state.exit = exit
            defer { state.waiters = [] }
            return state.waiters
        }
        onExit?(exit)
        waiters.forEach { $0.resume(returning: exit) }
    }

    /// Closes every descriptor from 3 up in the child: with glibc's `closefrom` action (2.34 and
    /// later), else one close action per descriptor listed in `/proc/self/fd` (read by
    /// FileManager, which copies only each name's own bytes).
    private static func closeInherited(_ actions: inout posix_spawn_file_actions_t) throws {
        if let closeFrom = SpawnExtensions.addCloseFrom {
            let status = closeFrom(&actions, 3)
            guard status == 0 else { throw Failure(description: "posix_spawn closefrom: \(String(cString: strerror(status)))") }
            return
        }
        // A descriptor closed meanwhile is harmless: glibc ignores EBADF for a close action.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
    }

    /// The exit, once the child has ended.
    public var exit: Exit? { state.withLock { $0.exit } }

    public var isRunning: Bool { exit == nil }

    /// Waits for the child to end, without holding a thread.
    public func waitForExit() async -> Exit {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> Exit? in
                if let exit = state.exit { return exit }
                state.waiters.append(continuation)
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    /// Blocks the calling thread until the child ends: only from a thread of the caller's own
    /// (a one-shot command's), never from async code.
    public func waitUntilExit() -> Exit {
        while true {
            if let exit { return exit }
            usleep(5_000)
        }
    }

    /// Sends `signal` unless the child has ended (its pid could be reused then).
    public func send(_ signal: Int32) {
        state.withLock { state in
            if state.exit == nil { _ = kill(pid, signal) }
        }
    }

    /// SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// Runs `executable` to completion; its exit status and its stdout and stderr together. The
    /// output is read on a thread of its own, never on the tests' cooperative pool, so a program
    /// that runs for seconds holds up no other test.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil
    ) async throws -> (status: Int32, output: String) {
        let pipe = Pipe()
        let child = try ChildProcess(
            executable, arguments: arguments, environment: environment, stdin: .null,
            stdout: .descriptor(pipe.fileHandleForWriting.fileDescriptor),
            stderr: .descriptor(pipe.fileHandleForWriting.fileDescriptor))
        try pipe.fileHandleForWriting.close()
        let output = await withCheckedContinuation { continuation in
            let reader = Thread {
                continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile())
            }
            reader.name = "output of \(child.pid)"
            reader.start()
        }
        let exit = await child.waitForExit()
        return (exit.signaled ? 128 + exit.status : exit.status, String(decoding: output, as: UTF8.self))
    }
}

/// glibc's `posix_spawn` extensions, which Swift's Glibc module does not import (they need
/// `_GNU_SOURCE`): looked up once by name.
private enum SpawnExtensions {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<T>(_ name: String) -> T? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: T.self)
    }
}
