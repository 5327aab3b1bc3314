import ArgumentParser
import Foundation
import Logging
import PlatformCore

@main
struct Platformd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "platformd",
        abstract: "Serves the onboarding flows of the registered app plugins as JSON-RPC 2.0, one message per line.",
        discussion: """
            `platformd serve` (the default command) answers on stdio; add --unix PATH or --tcp [HOST:]PORT \
            for sockets. --db PATH chooses the SQLite database (default: ./\(StoreOptions.defaultPath) in the \
            directory the server starts in; --db :memory: keeps nothing). See `platformd serve --help`.
            """,
        version: Platform.version,
        subcommands: [Serve.self, MCP.self, Info.self, Describe.self, Funnel.self, Keys.self, Events.self, Bench.self],
        defaultSubcommand: Serve.self
    )
}

/// Options every subcommand that opens the database shares.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "SQLite database file, created and migrated on first use; ':memory:' for a throwaway run.",
            valueName: "path"))
    var db: String = StoreOptions.defaultPath

    /// Found where the server was started, so a newcomer sees it next to their checkout.
    static let defaultPath = "platformd.sqlite"

    @Option(name: .long, help: "Log level on stderr: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func bootstrapLogging() -> Logger {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "platformd")
    }

    func openPlatform(tenants: [HostedTenant], logger: Logger) throws -> (Platform, SQLiteSessionStore) {
        let store = try SQLiteSessionStore(path: db)
        return (Platform(tenants: tenants, store: store, logger: logger), store)
    }
}

/// `--tenants FILE`: the tenants to host instead of the four defaults.
struct TenantOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A tenants file (JSON) to host instead of the four default tenants; see Docs/operations.md.",
            valueName: "file"))
    var tenants: String?

    /// The configured tenants; a file that cannot be used ends the process with exit code 78
    /// (EX_CONFIG) and one stderr line naming the file, the tenant and the key.
    func load() -> [HostedTenant] {
        guard let tenants else { return RegisteredPlugins.defaultTenants }
        let environment = ProcessInfo.processInfo.environment
        do throws(ConfigurationError) {
            guard let data = FileManager.default.contents(atPath: tenants) else {
                throw ConfigurationError(file: tenants, tenant: nil, key: nil, reason: "cannot be read (missing, or not a readable file)")
            }
            if tenants.hasSuffix(".yaml") || tenants.hasSuffix(".yml") {
                throw ConfigurationError(file: tenants, tenant: nil, key: nil, reason: "YAML is not supported yet; write the file as JSON")
            }
            return try TenantsConfiguration.parse(
                Array(data), file: tenants, registrations: RegisteredPlugins.registrations, environment: environment)
        } catch {
            FileHandle.standardError.write(Data("platformd: \(error)\n".utf8))
            Foundation.exit(78)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
