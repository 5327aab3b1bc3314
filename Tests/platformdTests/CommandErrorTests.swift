import Foundation
import PlatformTesting
import Testing

/// How the one-shot commands say no: a bad flag shows that command's usage; a command that
/// cannot do what it was given says why in one line, exit 64, with no usage text (which was the
/// top-level command's, saying nothing useful).
@Suite("platformd: command errors")
struct CommandErrorTests {
    @Test func revokingAKeyThatDoesNotExistIsOneLineWithoutUsage() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("keys.sqlite").path
            let result = try await AuthTests.command(["keys", "revoke", "key_nope", "--db", db])
            #expect(result.status == 64)
            #expect(result.stderr.contains("Error: no active key has the id key_nope"), "\(result.stderr)")
            #expect(!result.stderr.contains("Usage:"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func aFlowTheTenantDoesNotHaveIsOneLineWithoutUsage() async throws {
        let result = try await AuthTests.command(["describe", Hosted.tenant, "--flow", "no-such-flow"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("Error: "), "\(result.stderr)")
        #expect(result.stderr.contains("no-such-flow"), "\(result.stderr)")
        #expect(!result.stderr.contains("Usage:"), "\(result.stderr)")
    }

    @Test func aBadTimeFlagShowsTheFunnelCommandsOwnUsage() async throws {
        let result = try await AuthTests.command(["funnel", Hosted.tenant, "--since", "yesterday", "--db", ":memory:"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--since must be an ISO 8601 time"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage: platformd funnel"), "\(result.stderr)")
    }
}
