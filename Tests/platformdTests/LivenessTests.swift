import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// No mix of requests makes the server stop answering, and a stop under load answers everything
/// it read (contract version 3, "Limits and operations, continued"). The server runs with Swift's
/// cooperative pool as narrow as the runtime allows, one thread, so one thread parked in a
/// synchronous wait stalls it on any machine, whatever its core count.
@Suite("The server keeps answering under any mix of load")
struct LivenessTests {
    /// How the server is started with a cooperative pool of one thread. On Linux, libdispatch
    /// sizes the pool by the CPUs the process may run on (its affinity), so the server runs
    /// under `taskset` on one CPU; on Darwin, libdispatch's own switch does it.
    static func narrowPool(_ arguments: [String]) throws -> (executable: URL?, arguments: [String], environment: [String: String]) {
        let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
        guard FileManager.default.isExecutableFile(atPath: taskset.path), let cpu = firstAllowedCPU() else {
            return (nil, arguments, ["LIBDISPATCH_COOPERATIVE_POOL_STRICT": "1"])
        }
        let binary = try #require(PlatformdProcess.binaryURL)
        return (taskset, ["-c", "\(cpu)", binary.path] + arguments, [:])
    }

    /// The first CPU this process may run on (Linux: `/proc/self/status`, "Cpus_allowed_list: 0-1").
    static func firstAllowedCPU() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        return Int(line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces).prefix { $0.isNumber })
    }

    /// The mix that stalled the server for good (issue 22): walkers writing, pipelined readers,
    /// searches where a step has a search field, and funnels, all on one Unix socket.
    static let mix: [LoadMix.Role] =
        Array(repeating: .walker, count: 8) + Array(repeating: .reader(depth: 16), count: 6) + [.funnel, .funnel]

    static func withServer<T>(
        _ body: (PlatformdProcess, String) async throws -> T
    ) async throws -> T {
        try await withTemporaryDirectory { directory in
            let socket = directory.appendingPathComponent("p.sock").path
            let db = directory.appendingPathComponent("p.sqlite").path
            let narrow = try narrowPool(["serve", "--db", db, "--unix", socket])
            return try await PlatformdProcess.with(narrow.arguments, environment: narrow.environment, executable: narrow.executable) { server in
                _ = try await SocketTests.listeningLine(server)
                return try await body(server, socket)
            }
        }
    }

    @Test("pipelined reads, writes, searches and funnels together: replies every second")
    func mixedLoadNeverStalls() async throws {
        try await Self.withServer { server, socket in
            let load = try LoadMix(socketPath: socket, tenants: Hosted.tenants, roles: Self.mix)
            load.start(label: "mix")
            defer { load.stop() }
            var last = load.snapshot
            for second in 1...5 {
                try await Task.sleep(for: .seconds(1))
                let now = load.snapshot
                let progressed = now.totalAnswered > last.totalAnswered
                #expect(
                    progressed,
                    "no reply during second \(second): \(now.totalAnswered) answered of \(now.totalSent) sent\n\(server.stderrText.suffix(1500))")
                last = now
                if !progressed { break }
            }
            #expect(!last.closed.contains(true), "the server closed a connection: \(last.closed)")
            // Every connection was served, not only some of them.
            for (index, role) in Self.mix.enumerated() {
                #expect(last.answered[index] > 0, "connection \(index) (\(role)) got no reply")
            }
            #expect(last.errors[-32603] == nil, "internal errors: \(last.errors)")
        }
    }

    @Test("SIGTERM under mixed load: every request sent before it is answered, exit 0")
    func stopUnderLoadAnswersEverything() async throws {
        try await Self.withServer { server, socket in
            let load = try LoadMix(socketPath: socket, tenants: Hosted.tenants, roles: Self.mix)
            load.start(label: "stop")
            defer { load.stop() }
            try await Task.sleep(for: .seconds(2))
            load.stopSending()
            // The driving thread sees the flag within one poll round.
            try await Task.sleep(for: .milliseconds(100))
            let sent = load.snapshot.sent
            server.send(signal: SIGTERM)
            let exit = try await server.waitForExit(timeout: .seconds(20))
            #expect(exit == PlatformdProcess.Exit(status: 0, signaled: false), "\(server.stderrText.suffix(1500))")
            #expect(await eventually(5) { load.isFinished }, "a connection was never closed")
            let tally = load.snapshot
            #expect(tally.sent == sent, "requests were sent after the signal")
            #expect(tally.answered == tally.sent, "sent \(tally.sent), answered \(tally.answered)")
            #expect(tally.totalAnswered > 0)
        }
    }
}
