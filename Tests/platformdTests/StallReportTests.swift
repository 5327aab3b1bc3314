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
