import Foundation
import PlatformClient
import PlatformProtocol
import PlatformTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `platformd serve --db :memory:` child process on a Unix socket or on TCP, for driving through
/// `PlatformClient` (PlatformClientTests, and each plugin's walk through the client). Its stderr
/// goes to a file in its own temporary directory, read for the "listening on" line; every wait is
/// bounded. (PlatformTesting's `PlatformdProcess` drives the binary over stdio instead.)
public final class PlatformdServer {
    public enum Transport: String, CaseIterable, Sendable {
        case unix, tcp
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// How long a test waits for the server to listen, and the client for any reply: a bound for
    /// a server that stopped answering, not a speed target. At the start of a whole run on two
    /// cores some 80 `platformd` processes start at once and the test process itself is starved:
    /// traced servers answered every line within a second while the client's next line came 2-4 s
    /// later, and 40 pipelined calls took more than 30 s.
    public static let timeout: Duration = .seconds(120)

    /// What the tests give every client: bounded calls.
    public static let configuration = PlatformClient.Configuration(requestTimeout: timeout, connectTimeout: .seconds(10))

    public let endpoint: PlatformClient.Endpoint
    private let process: ChildProcess
    private let directory: URL
    private let exit: Exit

    /// Set by the process's termination handler: whether it has exited.
    private final class Exit: Sendable {
        private let exited = Mutex(false)
        var hasExited: Bool { exited.withLock { $0 } }
        func record() { exited.withLock { $0 = true } }
    }

    private init(process: ChildProcess, directory: URL, endpoint: PlatformClient.Endpoint, exit: Exit) {
        self.process = process
        self.directory = directory
        self.endpoint = endpoint
        self.exit = exit
    }

    /// Runs `body` with a fresh server, which is killed (and its directory removed) afterwards.
    public static func with<T>(
        _ transport: Transport = .unix, arguments: [String] = ["--db", ":memory:"], _ body: (PlatformdServer) async throws -> T
    ) async throws -> T {
        let server = try await start(transport, arguments: arguments)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// `command`, waited for on a thread of its own rather than on the tests' cooperative pool.
    public static func command(_ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try commandBlocking(arguments) })
            }
            thread.name = "platformd \(arguments.first ?? "")"
            thread.start()
        }
    }

    /// Runs a one-shot `platformd` command (`keys create …`) to completion; returns its stdout.
    /// It blocks its thread: from async code, use `command(_:)`. (Named apart: as an overload,
    /// the blocking one was chosen inside a `Task`'s closure, blocking a pool thread.)
    public static func commandBlocking(_ arguments: [String]) throws -> String {
        guard let binary = binaryURL else { throw Failure(description: "platformd binary not found") }
        let output = Pipe()
        let process = try ChildProcess(
            binary.path, arguments: arguments, stdin: .null,
            stdout: .descriptor(output.fileHandleForWriting.fileDescriptor), stderr: .null)
        try output.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let exit = process.waitUntilExit()
        guard exit == ChildProcess.Exit(status: 0, signaled: false) else {
            throw Failure(description: "platformd \(arguments.joined(separator: " ")) ended with \(exit)")
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A client connected to this server, with the tests' timeouts.
    public func connect() async throws -> PlatformClient {
        try await PlatformClient.connect(endpoint, configuration: Self.configuration)
    }

    /// SIGKILL, unless it has exited already. (`stop` waits for the exit.)
    public func kill() {
        if !exit.hasExited {
            process.send(SIGKILL)
        }
    }

    public var stderrText: String {
        (try? String(contentsOf: directory.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
    }

    /// Kills the server and waits (at most ten seconds, never blocking a thread) for its exit,
    /// then removes its directory.
    private func stop() async {
        kill()
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while !exit.hasExited, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func start(_ transport: Transport, arguments: [String]) async throws -> PlatformdServer {
        guard let binary = binaryURL else {
            throw Failure(description: "platformd binary not found next to the test bundle; set PLATFORMD_BINARY")
        }
        // Short, so the socket path stays within sun_path on every platform.
        let directory = URL(fileURLWithPath: "/tmp/pc-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socketPath = directory.appendingPathComponent("p.sock").path
        let stderrURL = directory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)

        let exit = Exit()
        let stderr = try FileHandle(forWritingTo: stderrURL)
        let process = try ChildProcess(
            binary.path, arguments: ["serve"] + arguments + (transport == .unix ? ["--unix", socketPath] : ["--tcp", "127.0.0.1:0"]),
            stdin: .null, stdout: .null, stderr: .descriptor(stderr.fileDescriptor), onExit: { _ in exit.record() })
        try stderr.close()

        // Port 0 makes the server pick a free port; its "listening on tcp 127.0.0.1:PORT" line says which.
        let started = PlatformdServer(process: process, directory: directory, endpoint: .unix(path: socketPath), exit: exit)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let line = started.stderrText.split(separator: "\n").first(where: { $0.contains("listening on") }) {
                switch transport {
                case .unix:
                    return started
                case .tcp:
                    guard let port = line.split(separator: ":").last.flatMap({ Int($0) }) else {
                        await started.stop()
                        throw Failure(description: "no port in \(line)")
                    }
                    return PlatformdServer(process: process, directory: directory, endpoint: .tcp(host: "127.0.0.1", port: port), exit: exit)
                }
            }
            guard !exit.hasExited else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let log = started.stderrText
        await started.stop()
        throw Failure(description: "platformd did not start listening within \(timeout):\n\(log)")
    }

    /// The executable the other binary-driving tests use (PlatformTesting's locator: next to the
    /// test bundle, or `PLATFORMD_BINARY`).
    public static var binaryURL: URL? { PlatformdProcess.binaryURL }
}

/// A step's saved answers (each field's `value`), as a submit sends them back.
public func savedValues(_ view: SessionView) -> [String: JSONValue] {
    Dictionary(uniqueKeysWithValues: (view.step?.fields ?? []).map { ($0.id, $0.value ?? .null) })
}
