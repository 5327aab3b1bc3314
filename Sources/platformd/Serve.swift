import ArgumentParser
import Logging
import PlatformCore

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the JSON-RPC protocol (stdio by default).",
        discussion: """
            With --stdio (the default) requests are read from stdin and replies written to stdout, one \
            JSON message per line; logs go to stderr. EOF or SIGTERM/SIGINT: in-flight work finishes, \
            the database is closed, and the server exits 0.
            The default database is ./\(StoreOptions.defaultPath), in the directory the server starts in.
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(name: .long, help: "Serve on stdin/stdout (the default).")
    var stdio = false

    @Option(name: .long, help: "Longest accepted line in bytes; longer lines get error -32006.")
    var maxLineBytes: Int = 1 << 20

    func validate() throws {
        guard maxLineBytes > 0 else { throw ValidationError("--max-line-bytes must be positive") }
    }

    func run() async throws {
        let logger = store.bootstrapLogging()
        let platform = try store.openPlatform(logger: logger)
        logger.info("serving \(platform.plugins.map(\.id).joined(separator: ", ")) on stdio, database \(store.db)")
        await StdioTransport(server: platform.rpcServer(), maxLineBytes: maxLineBytes, logger: logger).run()
        try await platform.close()
        logger.info("stopped")
    }
}
