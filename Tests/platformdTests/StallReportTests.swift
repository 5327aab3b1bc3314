import Foundation
import PlatformTesting
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
        let busyUntil = Date().addingTimeInterval(3)
        for _ in 0..<ProcessInfo.processInfo.activeProcessorCount {
            Task.detached {
                // Holds a cooperative thread on purpose, for a bounded moment: the condition
                // this test is about.
                while Date() < busyUntil {}
            }
        }
        let recordedWhileBusy = await withCheckedContinuation { (seen: CheckedContinuation<Bool, Never>) in
            let watcher = Thread {
                while !process.hasExited && Date() < busyUntil.addingTimeInterval(-0.5) { usleep(10_000) }
                seen.resume(returning: process.hasExited)
            }
            watcher.start()
        }
        #expect(recordedWhileBusy)
        #expect(try await process.waitForExit() == PlatformdProcess.Exit(status: 0, signaled: false))
    }
}
