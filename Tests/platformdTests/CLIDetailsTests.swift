import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import PlatformTransports
@testable import platformd

/// The command line and HTTP details a new user and an operator met: each one says what it is
/// and does what it says.
@Suite("CLI and HTTP details")
struct CLIDetailsTests {
    static func run(_ arguments: [String], stdin: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await PlatformdProcess.with(arguments) { process in
            if let stdin { try process.send(stdin, terminator: "") }
            try process.closeStdin()
            let exit = try await process.waitForExit()
            return (exit.status, String(decoding: process.stdoutBytes, as: UTF8.self), process.stderrText)
        }
    }

    @Test func keysCreateRefusesATenantThatIsNotHosted() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("k.sqlite").path
            try await PlatformdProcess.createDatabase(db)
            let refused = try await Self.run(["keys", "create", "--tenant", "nosuch", "--db", db])
            #expect(refused.status != 0, "\(refused.stdout)")
            #expect(refused.stdout.isEmpty, "no secret printed")
            #expect(refused.stderr.contains("tenant nosuch is not hosted"), "\(refused.stderr)")
            let listed = try await Self.run(["keys", "list", "--db", db])
            #expect(!listed.stdout.contains("nosuch"), "no key was made")
            let hosted = try #require(RegisteredPlugins.defaultTenants.first?.id)
            #expect(try await Self.run(["keys", "create", "--tenant", hosted, "--db", db]).status == 0)
        }
    }

    @Test func helpSaysWhatEachCommandDoesOnceAndMentionsTheWebSide() async throws {
        let top = try await Self.run(["--help"])
        for word in ["HTTP", "/flow/", "/admin/"] { #expect(top.stdout.contains(word), "platformd --help: \(word)") }
        let serve = try await Self.run(["serve", "--help"])
        for word in ["/flow/", "/admin/", "--drain-seconds"] { #expect(serve.stdout.contains(word), "serve --help: \(word)") }
        #expect(!serve.stdout.contains("64 MiB). (default"), "a default said twice")
        let levels = serve.stdout.components(separatedBy: "trace, debug").count - 1
        #expect(levels == 1, "the log levels listed \(levels) times")
        // A command that reads a database does not promise to create one.
        let funnel = try await Self.run(["funnel", "--help"])
        #expect(funnel.stdout.contains("serve and mcp create"), "\(funnel.stdout)")
    }

    @Test func backupToAMissingFolderSaysSoInWords() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("b.sqlite").path
            try await PlatformdProcess.createDatabase(db)
            let missing = directory.appendingPathComponent("no/such/folder/copy.sqlite").path
            let refused = try await Self.run(["backup", "--db", db, "--to", missing])
            #expect(refused.status == Backup.cannotWriteExitCode)
            #expect(refused.stderr.contains("the folder") && refused.stderr.contains("does not exist"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("unable to open database file"), "\(refused.stderr)")
        }
    }

    @Test func aOneLineStdioSessionLogsOneLineAboutItsFlows() async throws {
        let session = try await Self.run(["serve", "--db", ":memory:"], stdin: #"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"# + "\n")
        #expect(session.status == 0)
        #expect(session.stdout.contains("\"result\""))
        let notices = session.stderr.split(separator: "\n").filter { $0.contains(" notice ") }
        #expect(notices.count == 1, "\(notices.joined(separator: "\n"))")
    }

    @Test func metricsHaveHelpAndCountRequestsRefusedAtTheDoor() async throws {
        try await HTTPTests.withKeys { http, _, _ in
            let scraped = try await http.request(.GET, "/metrics").text
            for family in [PlatformMetrics.requests, PlatformMetrics.sessions, PlatformMetrics.connections] {
                #expect(scraped.contains("# HELP \(family) "), "\(family) has no # HELP")
            }
            let refused = #"platformd_requests_total{transport="http",method="other",outcome="-32001"}"#
            let before = try await http.metrics()[refused] ?? 0
            let wrong = try await http.request(
                .POST, "/rpc", body: Array(#"{"jsonrpc":"2.0","id":1,"method":"platform.info"}"#.utf8), headers: [("Authorization", "Bearer pdk_wrong")])
            #expect(wrong.status == 401)
            let after = try await http.metrics()[refused] ?? 0
            #expect(after == before + 1, "a 401 is counted")
        }
    }
}
