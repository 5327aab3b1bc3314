import Foundation
import NIOCore
import PlatformTesting
import Testing

@testable import platformd

/// `serve --event-loops`: on SQLite the loops only move bytes (the requests run on Swift's pool),
/// so the default is half the cores; on PostgreSQL the requests run on the loops, one a core.
@Suite("platformd serve: event loops")
struct EventLoopsTests {
    /// The event-loop threads of a running process (NIO names its singleton group's threads
    /// `NIO-SGLTN-1-#N`; group 0 is its blocking pool).
    static func loopThreads(of pid: Int32) throws -> Int {
        try names(of: pid).filter { $0.hasPrefix("NIO-SGLTN-1-") }.count
    }

    /// Each thread's name, read through a handle: /proc files say they are empty to a read
    /// sized by stat.
    static func names(of pid: Int32) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").map { task in
            let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/task/\(task)/comm")
            defer { try? handle?.close() }
            return String(decoding: (try? handle?.readToEnd()) ?? Data(), as: UTF8.self)
        }
    }

    @Test(arguments: [(nil, max(1, System.coreCount / 2)), (3, 3)] as [(Int?, Int)])
    func theProcessRunsTheLoopsItSays(asked: Int?, expected: Int) async throws {
        try await withTemporaryDirectory { directory in
            let socket = directory.appendingPathComponent("s.sock").path
            let extra = asked.map { ["--event-loops", String($0)] } ?? []
            try await PlatformdProcess.withServer(["--unix", socket, "--auth", "none"] + extra) { server in
                try await server.waitForStderr(containing: expected == 1 ? ", 1 event loop" : ", \(expected) event loops")
                // The group is made when the listener binds.
                try await server.waitForStderr(containing: "listening on")
                let threads = try Self.loopThreads(of: server.pid)
                let names = try Self.names(of: server.pid)
                #expect(threads == expected, "\(names)")
            }
        }
    }

    @Test func theDefaultFollowsTheStore() throws {
        let sqlite = try Serve.parse(["--db", ":memory:"])
        #expect(sqlite.eventLoopCount(environment: [:], cores: 2) == 1)
        #expect(sqlite.eventLoopCount(environment: [:], cores: 8) == 4)
        #expect(sqlite.eventLoopCount(environment: [:], cores: 1) == 1)
        // NIO's own variable is the operator's: no default replaces it.
        #expect(sqlite.eventLoopCount(environment: ["NIO_SINGLETON_GROUP_LOOP_COUNT": "6"], cores: 8) == nil)
        let postgres = try Serve.parse(["--db", "postgres://u@127.0.0.1:5432/d"])
        #expect(postgres.eventLoopCount(environment: [:], cores: 8) == nil, "NIO's own: one a core")
        #expect(try Serve.parse(["--db", ":memory:", "--event-loops", "5"]).eventLoopCount(environment: [:], cores: 2) == 5)
    }

    @Test func aCountOutOfRangeIsRefused() async throws {
        try await PlatformdProcess.withServer(["--event-loops", "0"]) { server in
            let exit = try await server.waitForExit()
            #expect(exit.status == 64)
            #expect(server.stderrText.contains("--event-loops takes 1 to 256"))
        }
    }
}
