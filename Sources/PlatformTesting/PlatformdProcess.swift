import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running `platformd` child process driven over its stdin/stdout, for integration tests.
///
/// stdout and stderr are read by background threads into buffers; every wait is bounded by a
/// timeout (30 s by default) and throws `PlatformdProcess.Failure` instead of hanging, with the
/// tail of the server's stderr in the message.
public final class PlatformdProcess: Sendable {
    /// How a wait ends when the server never answers.
    public static let defaultTimeout: Duration = .seconds(30)

    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    public typealias Exit = ChildProcess.Exit

    private struct State: Sendable {
        var stdout: [UInt8] = []
        /// Offset in `stdout` of the first byte not yet returned by `readLine`.
        var consumed = 0
        var stdoutClosed = false
        var stderr: [UInt8] = []
        var stderrClosed = false
        var exit: Exit?
        /// Bumped on every change, so a waiter never misses one.
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var timers: [Int: Task<Void, Never>] = [:]
    }

    private let process: ChildProcess
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let state = Mutex(State())
    public let arguments: [String]

    // MARK: - launching

    /// Launches `platformd` with `arguments` (e.g. `["serve", "--db", ":memory:"]`), or another
    /// `executable` (a receiver script), with `environment` added to the test's own.
    public init(
        _ arguments: [String], currentDirectory: URL? = nil, environment: [String: String] = [:], executable: URL? = nil
    ) throws {
        guard let binary = executable ?? Self.binaryURL else {
            throw Failure(description: "platformd binary not found next to the test bundle; set PLATFORMD_BINARY")
        }
        // A write to the stdin of a server that already exited must throw, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
        self.arguments = arguments
        let exited = ExitRelay()
        process = try ChildProcess(
            binary.path, arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            currentDirectory: currentDirectory?.path,
            stdin: .descriptor(stdinPipe.fileHandleForReading.fileDescriptor),
            stdout: .descriptor(stdoutPipe.fileHandleForWriting.fileDescriptor),
            stderr: .descriptor(stderrPipe.fileHandleForWriting.fileDescriptor),
            onExit: exited.exited)
        // The child holds its own copies; ours would keep its stdout open after it exits.
        try stdinPipe.fileHandleForReading.close()
        try stdoutPipe.fileHandleForWriting.close()
        try stderrPipe.fileHandleForWriting.close()
        // Recorded on the thread that collects the exit, as the readers record the output: a task
        // recording it waited for the cooperative pool, which the whole test run's busy tests can
        // hold for tens of seconds, and a wait's timer then came first ("timed out waiting for
        // the process to exit" with the process long gone).
        exited.deliver { [weak self] exit in self?.update { $0.exit = exit } }
        startReader(stdoutPipe.fileHandleForReading.fileDescriptor, stdout: true)
        startReader(stderrPipe.fileHandleForReading.fileDescriptor, stdout: false)
    }

    /// Runs `body` with a fresh server and kills the server afterwards if it is still running,
    /// whether `body` returned or threw.
    public static func with<T>(
        _ arguments: [String], currentDirectory: URL? = nil, environment: [String: String] = [:], executable: URL? = nil,
        _ body: (PlatformdProcess) async throws -> T
    ) async throws -> T {
        let server = try PlatformdProcess(arguments, currentDirectory: currentDirectory, environment: environment, executable: executable)
        defer { server.kill() }
        return try await body(server)
    }

    /// `platformd serve --db :memory:` plus `extra`.
    public static func withServer<T>(
        _ extra: [String] = [], _ body: (PlatformdProcess) async throws -> T
    ) async throws -> T {
        try await with(["serve", "--db", ":memory:"] + extra, body)
    }

    /// Creates and migrates a SQLite database at `path` the way an operator does: a `serve` that
    /// finds stdin closed and exits. (Only `serve` and `mcp` create a database; the other
    /// commands refuse a path that does not exist.)
    public static func createDatabase(_ path: String) async throws {
        try await with(["serve", "--db", path]) { server in
            try server.closeStdin()
            let exit = try await server.waitForExit()
            guard exit == Exit(status: 0, signaled: false) else {
                throw Failure(description: "serve --db \(path) to create the database: \(exit)\n\(server.stderrText)")
            }
        }
    }

    /// The executable built next to the test bundle (`.build/<triple>/debug/platformd`).
    public static let binaryURL: URL? = locateBinary()

    private static func locateBinary() -> URL? {
        let files = FileManager.default
        func executable(_ url: URL) -> Bool {
            var isDirectory: ObjCBool = false
            return files.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && files.isExecutableFile(atPath: url.path)
        }
        if let override = ProcessInfo.processInfo.environment["PLATFORMD_BINARY"], !override.isEmpty {
            let url = URL(fileURLWithPath: override)
            return executable(url) ? url : nil
        }
        var starts: [URL] = []
        if let main = Bundle.main.executableURL { starts.append(main.deletingLastPathComponent()) }
        if let first = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            starts.append(bundle.bundleURL.deletingLastPathComponent())
        }
        for start in starts {
            var directory = start.standardizedFileURL
            // Up from e.g. `.build/x86_64-unknown-linux-gnu/debug/` (or a bundle's `Contents/MacOS`).
            for _ in 0..<4 {
                for candidate in ["platformd", "debug/platformd", "release/platformd"] {
                    let url = directory.appendingPathComponent(candidate)
                    if executable(url) { return url }
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        // Last resort: the package's own build directory, found from this source file.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root = root.deletingLastPathComponent() }  // PlatformTesting, Tests, root
        for candidate in [".build/debug/platformd", ".build/release/platformd"] {
            let url = root.appendingPathComponent(candidate)
            if executable(url) { return url }
        }
        return nil
    }

    // MARK: - writing

    /// Writes `line` followed by `terminator` to the server's stdin.
    public func send(_ line: String, terminator: String = "\n") throws {
        try write(Array((line + terminator).utf8))
    }

    public func write(_ bytes: [UInt8]) throws {
        do {
            try stdinPipe.fileHandleForWriting.write(contentsOf: Data(bytes))
        } catch {
            throw failure("writing to stdin failed: \(error)")
        }
    }

    /// Sends EOF to the server.
    public func closeStdin() throws {
        try stdinPipe.fileHandleForWriting.close()
    }

    public var pid: Int32 { process.pid }

    /// The server's resident memory in KiB (Linux), for tests that bound its growth.
    public var residentKiB: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first
    }

    /// Whether the server is still running.
    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (e.g. `SIGTERM`) to the server.
    public func send(signal number: Int32) {
        process.send(number)
    }

    /// SIGKILL when still running; used on every way out of `with`.
    public func kill() {
        if state.withLock({ $0.exit == nil }) { send(signal: SIGKILL) }
    }

    // MARK: - reading

    private enum LineOutcome: Sendable {
        case line([UInt8])
        case endOfOutput
    }

    /// The next line the server writes to stdout, without its newline. A last line without a
    /// newline before stdout closes is returned as is.
    public func readLine(timeout: Duration = PlatformdProcess.defaultTimeout) async throws -> String {
        let outcome = try await wait(for: "a line on stdout", timeout: timeout) { state -> LineOutcome? in
            let unread = state.stdout[state.consumed...]
            if let newline = unread.firstIndex(of: 0x0A) {
                state.consumed = newline + 1
                return .line(Array(state.stdout[unread.startIndex..<newline]))
            }
            guard state.stdoutClosed else { return nil }
            guard !unread.isEmpty else { return .endOfOutput }
            state.consumed = state.stdout.count
            return .line(Array(unread))
        }
        switch outcome {
        case .line(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .endOfOutput: throw failure("stdout closed while waiting for a line")
        }
    }

    /// The next stdout line, parsed as JSON.
    public func readReply(timeout: Duration = PlatformdProcess.defaultTimeout) async throws -> JSONValue {
        let line = try await readLine(timeout: timeout)
        do {
            return try JSONValue.parse(line)
        } catch {
            throw failure("stdout line is not JSON (\(error)): \(line)")
        }
    }

    /// Sends one line and reads the next reply line.
    public func request(_ line: String, terminator: String = "\n") async throws -> JSONValue {
        try send(line, terminator: terminator)
        return try await readReply()
    }

    /// Sends a JSON-RPC request built from `method`, `params` and `id`, and reads the reply.
    public func call(_ method: String, _ params: JSONValue = [:], id: JSONValue = 1) async throws -> JSONValue {
        let request: JSONValue = ["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params]
        let reply = try await self.request(request.serialized())
        let problems = SchemaValidator.served.problems(reply: reply, of: method)
        guard problems.isEmpty else {
            throw failure("\(method) reply breaks rpc.discover's schema: \(problems.joined(separator: "; ")) in \(reply.serialized())")
        }
        return reply
    }

    /// Waits until the process has exited and closed stdout and stderr.
    public func waitForExit(timeout: Duration = PlatformdProcess.defaultTimeout) async throws -> Exit {
        try await wait(for: "the process to exit", timeout: timeout) { state in
            state.stdoutClosed && state.stderrClosed ? state.exit : nil
        }
    }

    /// Waits until the server has written `text` to stderr (a log line it acts on).
    public func waitForStderr(containing text: String, timeout: Duration = PlatformdProcess.defaultTimeout) async throws {
        _ = try await wait(for: "\"\(text)\" on stderr", timeout: timeout) { state in
            String(decoding: state.stderr, as: UTF8.self).contains(text) ? true : nil
        }
    }

    /// Whether the process's exit has been recorded.
    public var hasExited: Bool { state.withLock { $0.exit != nil } }

    /// Everything the server wrote to stdout so far.
    public var stdoutBytes: [UInt8] { state.withLock { $0.stdout } }

    /// Everything the server wrote to stderr so far.
    public var stderrText: String { state.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    // MARK: - machinery

    private func startReader(_ descriptor: Int32, stdout: Bool) {
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                let bytes = Array(chunk[0..<count])
                update { state in
                    if stdout { state.stdout += bytes } else { state.stderr += bytes }
                }
            }
            update { state in
                if stdout { state.stdoutClosed = true } else { state.stderrClosed = true }
            }
        }
        thread.name = "platformd \(stdout ? "stdout" : "stderr") reader"
        thread.start()
    }

    /// Changes the state and wakes every waiter.
    private func update(_ change: (inout State) -> Void) {
        let (waiters, timers) = state.withLock { state in
            change(&state)
            state.generation += 1
            defer {
                state.waiters = [:]
                state.timers = [:]
            }
            return (Array(state.waiters.values), Array(state.timers.values))
        }
        timers.forEach { $0.cancel() }
        waiters.forEach { $0.resume() }
    }

    /// Re-evaluates `check` on every change until it gives a value, or throws after `timeout`.
    private func wait<T: Sendable>(
        for what: String, timeout: Duration, _ check: (inout State) -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let (value, generation) = state.withLock { state in (check(&state), state.generation) }
            if let value { return value }
            guard ContinuousClock.now < deadline else {
                let message = "timed out after \(timeout) waiting for \(what)"
                throw failure(message + (process.isRunning ? await Self.threads(of: process.pid) : ""))
            }
            await changed(since: generation, deadline: deadline)
        }
    }

    /// Returns after the next change to the state (or right away if one happened since
    /// `generation`), or at `deadline`.
    private func changed(since generation: Int, deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id: Int? = state.withLock { state in
                guard state.generation == generation else { return nil }
                let id = state.nextWaiter
                state.nextWaiter += 1
                state.waiters[id] = continuation
                return id
            }
            guard let id else { return continuation.resume() }
            let timer = Task { [self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled else { return }
                let waiter = state.withLock { state in
                    state.timers[id] = nil
                    return state.waiters.removeValue(forKey: id)
                }
                waiter?.resume()
            }
            let pending = state.withLock { state in
                guard state.waiters[id] != nil else { return false }
                state.timers[id] = timer
                return true
            }
            if !pending { timer.cancel() }
        }
    }

    /// The stack of every thread of a server that stopped answering (`gdb`, when installed):
    /// a stall seen once in a loaded run is then diagnosed from its report, not rerun for.
    static func threads(of pid: pid_t) async -> String {
        let gdb = "/usr/bin/gdb"
        guard FileManager.default.isExecutableFile(atPath: gdb),
            let (status, output) = try? await ChildProcess.run(gdb, ["-p", "\(pid)", "-batch", "-ex", "thread apply all bt"]),
            status == 0
        else { return "" }
        let stacks = output.split(separator: "\n").filter { $0.hasPrefix("Thread ") || $0.hasPrefix("#") }.joined(separator: "\n")
        return "\n--- the server's threads (gdb) ---\n" + (stacks.count > 16_000 ? stacks.prefix(16_000) + "…" : stacks)
    }

    private func failure(_ message: String) -> Failure {
        let stderr = stderrText
        let tail = stderr.count > 2000 ? "…" + stderr.suffix(2000) : stderr
        return Failure(description: "platformd \(arguments.joined(separator: " ")): \(message)\n--- stderr ---\n\(tail)")
    }
}

/// A fresh directory under the system's temporary directory, removed after `body`.
public func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory.make()
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Fresh directories under the system's temporary directory, for tests that keep them while
/// the test process runs (a store a suite opens once); they are removed when it exits, so test
/// runs do not pile them up in /tmp. `withTemporaryDirectory` removes its own at once.
public enum TemporaryDirectory {
    private static let made = Mutex<[URL]>([])
    private static let removedAtExit: Void = { atexit { TemporaryDirectory.removeAll() } }()

    public static func make() throws -> URL {
        _ = removedAtExit
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("PlatformTesting-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        made.withLock { $0.append(directory) }
        return directory
    }

    static func removeAll() {
        for directory in made.withLock({ $0 }) {
            try? FileManager.default.removeItem(at: directory)
        }
    }
}

/// Hands a child's exit, seen on its waiting thread, to a receiver set once the
/// `PlatformdProcess` holding it is made (a quick child can end before that): exactly once,
/// whichever comes first.
private final class ExitRelay: Sendable {
    private let state = Mutex<(exit: ChildProcess.Exit?, receiver: (@Sendable (ChildProcess.Exit) -> Void)?)>((nil, nil))

    func exited(_ exit: ChildProcess.Exit) {
        let receiver = state.withLock { state in
            state.exit = exit
            return state.receiver
        }
        receiver?(exit)
    }

    func deliver(to receiver: @escaping @Sendable (ChildProcess.Exit) -> Void) {
        let exit = state.withLock { state in
            state.receiver = receiver
            return state.exit
        }
        if let exit { receiver(exit) }
    }
}
