import Foundation
import PlatformProtocol
import PlatformTesting
import Testing

@testable import PlatformBench

/// `platformd bench` (which runs `platformd-bench`) walks users of a hosted tenant through a
/// child server: a short run answers every request without a failure, completes users (read back
/// with `platformd funnel` from the database it kept), and reports every figure. No figure is held
/// to a target here: speed is measured by the bench itself, never in a test.
@Suite("platformd bench")
struct BenchCommandTests {
    /// How long a bench may take to exit before the test calls it stalled: a guard against a hang,
    /// not a bound on speed. At the start of a whole `swift test` run some 80 `platformd`
    /// processes start at once on two cores; a 3-second bench there has taken 90-160 s.
    static let exitGuard: Duration = .seconds(300)
    /// The bench's own wait for each set-up reply, inside `exitGuard`: at such a start its server
    /// has gone more than the default 60 s without answering its first request.
    static let replyTimeout = ["--reply-timeout", "240"]

    /// Runs the bench through `platformd bench` (`arguments` after it) and returns its JSON report.
    static func report(_ arguments: [String], timeout: Duration = exitGuard) async throws -> JSONValue {
        try await PlatformdProcess.with(["bench"] + arguments + replyTimeout + ["--json"]) { process in
            let exit = try await process.waitForExit(timeout: timeout)
            #expect(exit.status == 0, "\(process.stderrText)")
            #expect(process.stderrText.contains("bench: "), "a progress line on stderr")
            return try JSONValue.parse(Array(process.stdoutBytes.prefix { $0 != 0x0A }))
        }
    }

    @Test func aShortRunWalksUsersToCompletionAndReportsEveryFigure() async throws {
        try await withTemporaryDirectory { directory in
            let report = try await Self.report(["--connections", "3", "--seconds", "3", "--directory", directory.path])
            for key in [
                "tenant", "requestsPerWalk", "connections", "seconds", "preloadedSessions", "requests", "failures", "requestsPerSecond",
                "p50Ms", "p99Ms", "p999Ms", "serverCpuMicrosecondsPerRequest", "serverResidentMiB", "rawCommitsPerSecond",
                "ackedToRawCommitRatio",
            ] {
                #expect(report[key] != nil, "\(key) missing from \(report.serialized())")
            }
            #expect(report["connections"] == 3)
            #expect(report["failures"] == 0)
            let perWalk = try #require(report["requestsPerWalk"]?.intValue)
            #expect(perWalk >= 2, "a start and at least one submit")
            let requests = try #require(report["requests"]?.intValue)
            #expect(requests > perWalk, "more than one user's walk in three seconds")
            #expect((report["serverCpuMicrosecondsPerRequest"]?.doubleValue ?? 0) > 0)

            let tenant = try #require(report["tenant"]?.stringValue)
            let funnel = try await PlatformdProcess.with(["funnel", tenant, "--db", directory.appendingPathComponent("bench.sqlite").path, "--json"]) {
                process in
                _ = try await process.waitForExit()
                return try JSONValue.parse(Array(process.stdoutBytes.prefix { $0 != 0x0A }))
            }
            let completed = try #require(funnel["completed"]?.intValue)
            // One of them is the planning walk's user, walked before the load and not counted.
            #expect(completed >= 2)
            // Each connection may have had its last submit committed (a completion) when the run
            // ended, with its reply not yet counted: one request each at most.
            let connections = try #require(report["connections"]?.intValue)
            #expect((completed - 1) * perWalk <= requests + connections, "every completed user took the whole walk")
        }
    }

    /// The bench names no plugin: every tenant the server lists is walked to completion from the
    /// fields it serves, by the same binary.
    @Test func everyHostedTenantIsWalkedFromItsServedFields() async throws {
        let tenants = try await PlatformdProcess.withServer { server in
            try await server.call("platform.info")["result"]?["tenants"]?.arrayValue?.compactMap { $0["tenant"]?.stringValue } ?? []
        }
        #expect(!tenants.isEmpty)
        for tenant in tenants {
            let report = try await Self.report(["--tenant", tenant, "--connections", "1", "--seconds", "1"])
            #expect(report["tenant"] == .string(tenant))
            #expect(report["failures"] == 0, "\(tenant): \(report.serialized())")
            #expect((report["requests"]?.intValue ?? 0) >= (report["requestsPerWalk"]?.intValue ?? 1), "\(tenant): a whole walk in a second")
        }
    }

    /// `--experiment`: every walk's start enrols, stored people are counted, and the results are
    /// timed. (Figures at 1 M are Docs/performance.md's; here only that they are measured.)
    @Test func anExperimentRunEnrolsTheWalksAndTimesTheResults() async throws {
        let tenant = try await PlatformdProcess.withServer { server in
            try await server.call("platform.info")["result"]?["tenants"]?.arrayValue?.first?["tenant"]?.stringValue ?? ""
        }
        let report = try await Self.report(["--tenant", tenant, "--experiment", "--preload-exposed", "3000", "--connections", "2", "--seconds", "2"])
        #expect(report["failures"] == 0, "\(report.serialized())")
        let walks = (report["requests"]?.intValue ?? 0) / max(1, report["requestsPerWalk"]?.intValue ?? 1)
        #expect((report["experimentExposed"]?.intValue ?? 0) >= 3000 + walks, "\(report.serialized())")
        #expect((report["experimentResultsMs"]?.doubleValue ?? 0) > 0)
    }

    /// `--starts-only`: every request is a new person's `flow.start` (with `--experiment`, an
    /// enrolment), so the server's CPU a request is a start's, and every answered start exposed
    /// one more person; with `--scattered-users` too, each a random id.
    @Test(arguments: [[], ["--scattered-users"]])
    func startsOnlyMakesEveryRequestANewPersonsStart(users: [String]) async throws {
        let tenant = try await PlatformdProcess.withServer { server in
            try await server.call("platform.info")["result"]?["tenants"]?.arrayValue?.first?["tenant"]?.stringValue ?? ""
        }
        let report = try await Self.report(["--tenant", tenant, "--experiment", "--starts-only", "--connections", "2", "--seconds", "2"] + users)
        #expect(report["failures"] == 0, "\(report.serialized())")
        #expect(report["requestsPerWalk"] == 1)
        let requests = try #require(report["requests"]?.intValue)
        #expect(requests > 2)
        // Every answered start is counted (a connection ends only once its last reply is in),
        // and the planning walk's person and each connection's untimed first start are exposed
        // too: one and two more.
        let exposed = try #require(report["experimentExposed"]?.intValue)
        #expect(exposed == requests + 1 + 2, "\(report.serialized())")
    }

    /// A tenant the server does not host ends the bench with one line naming it, before any load.
    @Test func anUnknownTenantIsOneClearLine() async throws {
        try await PlatformdProcess.with(["bench", "--tenant", "nosuchtenant", "--seconds", "1"] + Self.replyTimeout) { process in
            let exit = try await process.waitForExit(timeout: Self.exitGuard)
            #expect(exit.status != 0)
            #expect(process.stderrText.contains("nosuchtenant"), "\(process.stderrText)")
            #expect(process.stdoutBytes.isEmpty)
        }
    }

    /// `platformd bench --help` is the bench's own help (every argument goes to platformd-bench).
    @Test func platformdBenchPassesEverythingOn() async throws {
        try await PlatformdProcess.with(["bench", "--help"]) { process in
            let exit = try await process.waitForExit()
            #expect(exit.status == 0)
            let help = String(decoding: process.stdoutBytes, as: UTF8.self)
            #expect(help.contains("platformd-bench"), "\(help)")
            #expect(help.contains("--tenant"), "\(help)")
        }
    }
}

extension BenchCommandTests {
    /// `--pipelined`: readers that keep `--depth` flow.get requests in flight beside the walkers
    /// (the mix that once stalled the server) are all answered, and reported on their own.
    @Test func pipelinedReadersRunBesideTheWalks() async throws {
        try await withTemporaryDirectory { directory in
            let report = try await Self.report(["--connections", "2", "--pipelined", "2", "--depth", "8", "--seconds", "3", "--directory", directory.path])
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
            let tenant = try #require(try await server.call("platform.info")["result"]?["tenants"]?.arrayValue?.first?["tenant"])
            let started = try await server.call("flow.start", ["tenant": tenant, "userId": "u1"])
            let line = Array(started.serialized().utf8)
            let summary = try ReplySummary(line: line[...])
            #expect(!summary.isError)
            #expect(summary.sessionId == started["result"]?["sessionId"]?.stringValue)
            #expect(summary.revision == started["result"]?["revision"]?.intValue.map(Int64.init))
            #expect(summary.status == started["result"]?["status"]?.stringValue)
            #expect(summary.stepId != nil)
            #expect(summary.stepId == started["result"]?["step"]?["id"]?.stringValue)
        }
        let escaped = try ReplySummary(
            line: Array(
                #"{"id":1,"jsonrpc":"2.0","result":{"step":{"content":{"id":"x"},"id":"a\"b\u00e9"},"revision":3,"sessionId":"s\\1","status":"active"}}"#.utf8)[
                    ...])
        #expect(escaped.stepId == "a\"bé")
        #expect(escaped.sessionId == "s\\1")
        #expect(escaped.revision == 3)
        // What is skipped may hold escaped quotes and brackets, nesting, numbers and literals.
        let skipped = try ReplySummary(
            line: Array(
                #"{"id":1,"jsonrpc":"2.0","result":{"other":{"x":["a\"]",{"y":"}\\"}],"n":-1.5e3,"t":true,"z":null},"step":{"content":{"id":"x"},"id":"s"},"revision":3,"sessionId":"abc","status":"active"}}"#
                    .utf8)[...])
        #expect(skipped.stepId == "s")
        #expect(skipped.sessionId == "abc")
        #expect(skipped.revision == 3)
        #expect(skipped.status == "active")
        let error = try ReplySummary(
            line: Array(#"{"error":{"code":-32003,"message":"stale","data":{"session":{"revision":2}}},"id":2,"jsonrpc":"2.0"}"#.utf8)[...])
        #expect(error.isError)
        #expect(error.revision == nil)
        #expect(throws: (any Error).self) { try ReplySummary(line: Array(#"{"result":{"revision":"#.utf8)[...]) }
    }
}

/// `platformd bench --db postgres://… --hosts 2`: pgbench measured on the cluster first, then two
/// servers driven together on a database of the test's own (the bench adds pgbench's tables and
/// its users' sessions, which must not meet the other tests'). Needs PLATFORMD_TEST_POSTGRES_URL
/// (a user that may create databases, PostgreSQL 13 or later), pgbench and psql; reported skipped without them.
@Suite("platformd bench on PostgreSQL")
struct PostgresBenchCommandTests {
    /// A server out of reach ends the bench as it ends serve: one line naming it, exit 69, before
    /// pgbench is run. Needs no database.
    @Test func anUnreachableDatabaseEndsTheBenchWithExitCode69() async throws {
        try await PlatformdProcess.with([
            "bench", "--db", "postgres://bench:secret@127.0.0.1:1/nowhere", "--hosts", "2", "--seconds", "1",
        ]) { process in
            let exit = try await process.waitForExit(timeout: BenchCommandTests.exitGuard)
            #expect(exit.status == 69, "\(process.stderrText)")
            #expect(process.stderrText.contains("cannot reach PostgreSQL at 127.0.0.1:1/nowhere"), "\(process.stderrText)")
            #expect(!process.stderrText.contains("pgbench"), "\(process.stderrText)")
            #expect(!process.stderrText.contains("secret"))
        }
    }

    static let url = ProcessInfo.processInfo.environment["PLATFORMD_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    @Test(
        .enabled(if: url != nil, "PLATFORMD_TEST_POSTGRES_URL is not set"),
        .enabled(if: PgBench.locate() != nil, "pgbench is not installed"),
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/psql"), "/usr/bin/psql is not installed"),
        .enabled("the test database's user may not create databases") { await mayCreateDatabases() })
    func twoHostsAreDrivenTogetherAndComparedWithPgbench() async throws {
        let url = try #require(Self.url)
        let name = "platformd_bench_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try await Self.psql(url, "CREATE DATABASE \(name)")
        do {
            try await Self.drive(on: url, database: name)
        } catch {
            _ = try? await Self.psql(url, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
        try await Self.psql(url, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    static func drive(on url: String, database name: String) async throws {
        var components = try #require(URLComponents(string: url))
        components.path = "/" + name
        let benchURL = try #require(components.string)

        let report = try await PlatformdProcess.with(
            [
                "bench", "--db", benchURL, "--hosts", "2", "--connections", "4", "--seconds", "3", "--json",
            ] + BenchCommandTests.replyTimeout
        ) { process in
            let exit = try await process.waitForExit(timeout: BenchCommandTests.exitGuard)
            #expect(exit.status == 0, "\(process.stderrText)")
            #expect(process.stderrText.contains("measuring pgbench"), "\(process.stderrText)")
            return try JSONValue.parse(Array(process.stdoutBytes.prefix { $0 != 0x0A }))
        }
        #expect(report["store"] == "postgres", "\(report.serialized())")
        #expect(report["hosts"] == 2)
        #expect(report["failures"] == 0, "\(report.serialized())")
        #expect((report["hostThreads"]?.intValue ?? 0) >= 1)
        let pgbench = try #require(report["pgbenchSimpleUpdatesPerSecond"]?.doubleValue)
        #expect(pgbench > 0)
        let rate = try #require(report["requestsPerSecond"]?.doubleValue)
        let ratio = try #require(report["ackedToRawCommitRatio"]?.doubleValue)
        // Both figures are printed rounded to 0.1: the ratio agrees with them to that rounding.
        #expect(abs(ratio - rate / pgbench) <= 0.001 + 0.002 * ratio, "the ratio is requests/s over pgbench's rate: \(report.serialized())")
        // The load was split: each host answered and spent CPU on it.
        let perHost = try #require(report["hostCpuMicrosecondsPerRequest"]?.arrayValue)
        #expect(perHost.count == 2)
        #expect(perHost.allSatisfy { ($0.doubleValue ?? 0) > 0 }, "\(report.serialized())")
        #expect((report["p99Ms"]?.doubleValue ?? 0) >= (report["p50Ms"]?.doubleValue ?? 0))
        // pgbench's tables were dropped after its run; the bench's users were stored.
        #expect(try await Self.psql(benchURL, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pgbench%'") == "0")
        let tenant = try #require(report["tenant"]?.stringValue)
        let completed = Int(try await Self.psql(benchURL, "SELECT count(*) FROM profiles WHERE tenant = '\(tenant)'")) ?? 0
        #expect(completed >= 2, "users completed on the hosts")
    }

    /// Whether the test database's user may create the bench's database of its own.
    static func mayCreateDatabases() async -> Bool {
        guard let url else { return false }
        let answer = try? await psql(url, "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user")
        return answer == "t"
    }

    /// Runs one statement through psql (waited for off the cooperative pool); its output, trimmed.
    @discardableResult
    static func psql(_ url: String, _ sql: String) async throws -> String {
        let (status, output) = try await ChildProcess.run("/usr/bin/psql", [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        let text = output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else { throw PsqlFailed(output: text) }
        return text
    }

    struct PsqlFailed: Error, CustomStringConvertible {
        var output: String
        var description: String { "psql failed: \(output)" }
    }
}
