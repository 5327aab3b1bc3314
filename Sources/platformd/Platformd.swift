import ArgumentParser
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
        subcommands: [Serve.self, Info.self, Describe.self, Funnel.self],
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

    func openPlatform(logger: Logger) throws -> Platform {
        let store = try SQLiteSessionStore(path: db)
        return Platform(plugins: RegisteredPlugins.all, store: store, logger: logger)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
