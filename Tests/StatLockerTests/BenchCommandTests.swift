import Foundation
import PlatformCore
import PlatformTesting
import Testing
@testable import platformd

/// `platformd bench` walks StatLocker users through a child server: a short run answers every
/// request without a failure, completes users (read back with `platformd funnel` from the
/// database it kept), and reports every figure. No figure is held to a target here: speed is
/// measured by the bench itself, never in a test.
@Suite("platformd bench")
struct BenchCommandTests {
    @Test func aShortRunWalksUsersToCompletionAndReportsEveryFigure() async throws {
        try await withTemporaryDirectory { directory in
            let report = try await PlatformdProcess.with(["bench", "--connections", "3", "--seconds", "3", "--json", "--directory", directory.path]) { process in
                let exit = try await process.waitForExit(timeout: .seconds(120))
                #expect(exit.status == 0, "\(process.stderrText)")
                #expect(process.stderrText.contains("bench: "), "a progress line on stderr")
                return try JSONValue.parse(Array(process.stdoutBytes.prefix { $0 != 0x0A }))
            }
            for key in [
                "connections", "seconds", "preloadedSessions", "requests", "failures", "requestsPerSecond", "p50Ms", "p99Ms",
                "p999Ms", "serverCpuMicrosecondsPerRequest", "serverResidentMiB", "rawCommitsPerSecond", "ackedToRawCommitRatio",
            ] {
                #expect(report[key] != nil, "\(key) missing from \(report.serialized())")
            }
            #expect(report["connections"] == 3)
            #expect(report["failures"] == 0)
            let requests = try #require(report["requests"]?.intValue)
            #expect(requests > 12, "more than one user's walk (12 requests) in a second")
            #expect((report["serverCpuMicrosecondsPerRequest"]?.doubleValue ?? 0) > 0)

            let funnel = try await PlatformdProcess.with(["funnel", "statlocker", "--db", directory.appendingPathComponent("bench.sqlite").path, "--json"]) { process in
                _ = try await process.waitForExit()
                return try JSONValue.parse(Array(process.stdoutBytes.prefix { $0 != 0x0A }))
            }
            let completed = try #require(funnel["completed"]?.intValue)
            #expect(completed >= 1)
            #expect(completed * 12 <= requests, "every completed user took a start and eleven submits")
        }
    }
}

extension BenchCommandTests {
    /// `--pipelined`: readers that keep `--depth` flow.get requests in flight beside the walkers
    /// (the mix that once stalled the server) are all answered, and reported on their own.
    @Test func pipelinedReadersRunBesideTheWalks() async throws {
        try await withTemporaryDirectory { directory in
            let report = try await PlatformdProcess.with([
                "bench", "--connections", "2", "--pipelined", "2", "--depth", "8", "--seconds", "3", "--json", "--directory", directory.path,
            ]) { process in
                let exit = try await process.waitForExit(timeout: .seconds(120))
                #expect(exit.status == 0, "\(process.stderrText)")
                return try JSONValue.parse(Array(process.stdoutBytes.prefix { $0 != 0x0A }))
            }
            #expect(report["failures"] == 0, "\(report.serialized())")
            #expect(report["pipelinedConnections"] == 2)
            #expect(report["depth"] == 8)
            #expect((report["reads"]?.intValue ?? 0) > 16, "\(report.serialized())")
            #expect((report["requests"]?.intValue ?? 0) > 0, "the walks went on beside the reads")
            #expect((report["readP99Ms"]?.doubleValue ?? 0) > 0)
        }
    }
}

/// The bench reads only what its walk needs of each reply; what it reads must be what the reply
/// says, escapes included, and an error reply must count as one.
@Suite("platformd bench reply skimming")
struct ReplySkimmingTests {
    @Test func theSummaryReadsTheSessionFieldsOfARealReply() async throws {
        try await PlatformdProcess.withServer { server in
            let started = try await server.call("flow.start", ["tenant": "statlocker", "userId": "u1"])
            let line = Array(started.serialized().utf8)
            let summary = try ReplySummary(line: line[...])
            #expect(!summary.isError)
            #expect(summary.sessionId == started["result"]?["sessionId"]?.stringValue)
            #expect(summary.revision == started["result"]?["revision"]?.intValue.map(Int64.init))
            #expect(summary.status == "active")
            #expect(summary.stepId == "sport")
        }
        let escaped = try ReplySummary(line: Array(#"{"id":1,"jsonrpc":"2.0","result":{"step":{"content":{"id":"x"},"id":"a\"b\u00e9"},"revision":3,"sessionId":"s\\1","status":"active"}}"#.utf8)[...])
        #expect(escaped.stepId == "a\"bé")
        #expect(escaped.sessionId == "s\\1")
        #expect(escaped.revision == 3)
        let error = try ReplySummary(line: Array(#"{"error":{"code":-32003,"message":"stale","data":{"session":{"revision":2}}},"id":2,"jsonrpc":"2.0"}"#.utf8)[...])
        #expect(error.isError)
        #expect(error.revision == nil)
        #expect(throws: (any Error).self) { try ReplySummary(line: Array(#"{"result":{"revision":"#.utf8)[...]) }
    }
}
