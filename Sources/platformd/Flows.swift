import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore

/// `platformd flows`: what a deploy of this binary's flows does to the sessions in flight.
struct Flows: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check this binary's flows against the sessions in flight in a database, before a deploy.",
        subcommands: [Check.self])

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Dry run of a deploy: which sessions in flight would be moved onto the new flows, and what they would lose.",
            discussion: """
                Run the new binary against the live database before deploying it. For each tenant and flow it prints the \
                sessions in flight (active or deferred) by the version they run on and, for each version this binary no \
                longer serves, how many are moved by the flow's declared migration, how many would resume at an earlier \
                step (which step) and which answers would be dropped. Nothing is written.
                Exit 0 when no session in flight would resume at an earlier step or lose an answer without a declaration; \
                exit 65 otherwise, so a deploy pipeline can stop on it. `serve` logs the same summary when it starts.
                """)

        /// EX_DATAERR: the data in flight would be harmed by this deploy.
        static let unsafeExitCode: Int32 = 65

        @OptionGroup var store: StoreOptions
        @OptionGroup var tenantOptions: TenantOptions
        @Flag(help: "Print the report as one JSON object.") var json = false

        func run() async throws {
            let report = try await store.withPlatform(tenantOptions, access: .readOnly) { platform in
                // As serve will see them: sessions on versions a newer binary first served are left alone.
                try await platform.learnFlowVersions()
                return try await platform.checkFlows()
            }
            if json {
                StandardOutput.writeLine(report.json.serialized())
            } else {
                report.lines.forEach { StandardOutput.writeLine($0) }
            }
            if !report.isSafe { throw ExitCode(Self.unsafeExitCode) }
        }
    }
}
