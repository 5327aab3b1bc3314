import Foundation
import PlatformTesting
import Testing

/// The command line a newcomer meets first: `--help` must say where the data goes
/// (contract, "Framing and transports": the default database file is "said in `--help`").
@Suite("platformd command line")
struct CommandLineTests {
    /// Runs `platformd ARGUMENTS`, expects exit status 0, and returns stdout and stderr together.
    static func helpText(_ arguments: [String]) async throws -> String {
        try await PlatformdProcess.with(arguments) { process in
            try process.closeStdin()
            let exit = try await process.waitForExit()
            #expect(exit == .init(status: 0, signaled: false), "platformd \(arguments.joined(separator: " "))")
            return String(decoding: process.stdoutBytes, as: UTF8.self) + process.stderrText
        }
    }

    @Test func serveHelpNamesTheDatabaseOptionAndItsDefaultFile() async throws {
        let help = try await Self.helpText(["serve", "--help"])
        #expect(help.contains("--db"), "platformd serve --help does not mention --db:\n\(help)")
        #expect(help.contains("platformd.sqlite"), "platformd serve --help does not name the default database file:\n\(help)")
    }

    @Test func topLevelHelpNamesTheDatabaseOptionAndItsDefaultFile() async throws {
        let help = try await Self.helpText(["--help"])
        // `serve` is the default subcommand, so `platformd --help` is the first help a newcomer
        // sees; ArgumentParser prints only the root's overview and the subcommand list there.
        #expect(help.contains("--db"), "platformd --help does not mention --db:\n\(help)")
        #expect(help.contains("platformd.sqlite"), "platformd --help does not name the default database file:\n\(help)")
    }
}
