import ArgumentParser
import Logging
import PlatformCore

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the JSON-RPC protocol on stdio (the default), a Unix socket or TCP.",
        discussion: """
            One JSON-RPC 2.0 message per line on every transport. With --stdio (the default) requests \
            are read from stdin and replies written to stdout; logs always go to stderr. With --unix or \
            --tcp, stdin is not read and many clients may connect at once.
            EOF on stdin, SIGTERM or SIGINT: the server stops accepting, finishes in-flight requests, \
            closes the database and exits 0.
            The default database is ./\(StoreOptions.defaultPath), in the directory the server starts in.
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(name: .long, help: "Serve on stdin/stdout (the default).")
    var stdio = false

    @Option(name: .long, help: ArgumentHelp("Serve on a Unix domain socket at this path.", valueName: "path"))
    var unix: String?

    @Option(name: .long, help: ArgumentHelp("Serve on TCP; HOST defaults to 127.0.0.1, port 0 picks a free one.", valueName: "[host:]port"))
    var tcp: String?

    @Option(name: .long, help: "Longest accepted line in bytes; a longer line gets error -32006 and is skipped.")
    var maxLineBytes: Int = 1 << 20

    func validate() throws {
        guard maxLineBytes > 0 else { throw ValidationError("--max-line-bytes must be positive") }
        guard [stdio, unix != nil, tcp != nil].filter({ $0 }).count <= 1 else {
            throw ValidationError("choose one transport: --stdio, --unix or --tcp")
        }
        if let tcp, SocketEndpoint.tcp(tcp) == nil {
            throw ValidationError("--tcp takes [HOST:]PORT, e.g. 127.0.0.1:7070 or 7070")
        }
        if let unix, unix.isEmpty { throw ValidationError("--unix needs a path") }
    }

    func run() async throws {
        ShutdownSignals.install()
        let logger = store.bootstrapLogging()
        let platform = try store.openPlatform(logger: logger)
        let server = platform.rpcServer()
        let tenants = platform.plugins.map(\.id).joined(separator: ", ")
        do {
            if let endpoint = unix.map({ SocketEndpoint.unix(path: $0) }) ?? tcp.flatMap(SocketEndpoint.tcp) {
                logger.info("serving \(tenants), database \(store.db)")
                try await SocketTransport(server: server, endpoint: endpoint, maxLineBytes: maxLineBytes, logger: logger).run()
            } else {
                logger.info("serving \(tenants) on stdio, database \(store.db)")
                await StdioTransport(server: server, maxLineBytes: maxLineBytes, logger: logger).run()
            }
        } catch {
            try? await platform.close()
            logger.critical("\(error)")
            throw ExitCode.failure
        }
        try await platform.close()
        logger.info("stopped")
    }
}
