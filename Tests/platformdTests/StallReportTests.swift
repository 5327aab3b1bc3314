import Foundation
import PlatformTesting
import Synchronization
import Testing

/// A server that stops answering is reported with its threads' stacks, so a stall seen once in
/// a loaded run can be diagnosed from the report.
@Suite struct StallReportTests {
    static let hasGDB = FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb")

    @Test(.enabled(if: hasGDB, "gdb is not installed"))
    func aServerThatDoesNotExitInTimeIsReportedWithItsThreads() async throws {
        try await PlatformdProcess.withServer { server in
            let failure = await #expect(throws: PlatformdProcess.Failure.self) {
                try await server.waitForExit(timeout: .seconds(1))
            }
            let report = failure?.description ?? ""
            #expect(report.contains("timed out after 1.0 seconds waiting for the process to exit"))
            #expect(report.contains("--- the server's threads (gdb) ---"))
            #expect(report.contains("NIO-SGLTN"), "an event loop's thread is among them")
        }
    }
}

/// A server's exit is recorded while every thread of the cooperative pool is busy: a loaded
/// run's tests can hold the pool for tens of seconds, and an exit recorded by a task waited
/// for it, so a wait's timer came first ("timed out waiting for the process to exit" with the
/// process long gone).
@Suite struct ExitRecordingTests {
    @Test func anExitIsRecordedWhileThePoolIsBusy() async throws {
        let process = try PlatformdProcess(["--version"])
        let watched = WatchedFlag()
        let spinUntil = Date().addingTimeInterval(20)
        for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
            Task.detached {
                // Holds a cooperative thread on purpose, until the watcher has looked (bounded):
                // the condition this test is about.
                while !watched.isSet && Date() < spinUntil {}
            }
        }
        let recorded = await withCheckedContinuation { (seen: CheckedContinuation<Bool, Never>) in
            let watcher = Thread {
                // Timed from here, not from the test's start: in a whole run the test itself
                // may wait long for a thread.
                let until = Date().addingTimeInterval(10)
                while !process.hasExited && Date() < until { usleep(10_000) }
                let recorded = process.hasExited
                watched.set()
                seen.resume(returning: recorded)
            }
            watcher.start()
        }
        #expect(recorded)
        #expect(try await process.waitForExit() == PlatformdProcess.Exit(status: 0, signaled: false))
    }
}

/// Set once by the watcher thread, read by the spinning tasks.
private final class WatchedFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
