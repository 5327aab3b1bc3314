import ArgumentParser
import Logging
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import PostgresStore
import SQLiteStore
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the JSON-RPC protocol on stdio (the default), a Unix socket, TCP and HTTP.",
        discussion: """
            One JSON-RPC 2.0 message per line on every transport. With --stdio (the default) requests \
            are read from stdin and replies written to stdout; logs always go to stderr. With --unix or \
            --tcp, stdin is not read and many clients may connect at once.
            --http HOST:PORT serves HTTP/1.1, alone or beside --unix or --tcp: POST /rpc (a request or \
            batch per HTTP request, acting for its Authorization: Bearer), GET /rpc upgraded to a \
            WebSocket (the line protocol, a message per text frame), POST /mcp (the MCP server over \
            Streamable HTTP, for a user token), GET /flow/TENANT/ (the hosted flow, for a person signed in with \
            /flow/TENANT/start?token=USER_TOKEN), GET /admin/ (the dashboard, for an admin key), GET /health/live, \
            /health/ready and /metrics (Prometheus).
            EOF on stdin, SIGTERM or SIGINT: the server stops accepting, finishes in-flight requests, \
            closes the database and exits 0. With --http, SIGTERM first drains for --drain-seconds \
            (default 5): /health/ready answers 503 while requests are still served.
            The default database is ./\(StoreOptions.defaultPath), in the directory the server starts in.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var tenantOptions: TenantOptions

    enum AuthMode: String, ExpressibleByArgument, CaseIterable {
        case required, none
    }

    @Option(
        name: .long,
        help: ArgumentHelp(
            "required: every method but auth.login and rpc.discover needs a login; none: connections start as admin. Default: none on stdio and Unix sockets (mode 0600), required on TCP and HTTP.",
            valueName: "required|none"))
    var auth: AuthMode?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Most connections open at once per listener. On a socket more are closed at once; on HTTP the oldest connections that have not logged in are closed to make room.",
            valueName: "count"))
    var maxConnections: Int = 1024

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A socket connection that sends nothing, or an HTTP connection without a whole request, for this long is closed.", valueName: "seconds"))
    var idleTimeout: Int = 300

    @Option(
        name: .long,
        help: ArgumentHelp("An HTTP request head must arrive within this long of its first byte, else the connection is closed.", valueName: "seconds"))
    var headerTimeout: Int = 10

    @Option(name: .long, help: ArgumentHelp("A socket connection still sending one line after this long is closed.", valueName: "seconds"))
    var lineTimeout: Int = 60

    @Flag(name: .long, help: "Serve on stdin/stdout (the default).")
    var stdio = false

    @Option(name: .long, help: ArgumentHelp("Serve on a Unix domain socket at this path.", valueName: "path"))
    var unix: String?

    @Option(name: .long, help: ArgumentHelp("Serve on TCP; HOST defaults to 127.0.0.1, port 0 picks a free one.", valueName: "[host:]port"))
    var tcp: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve HTTP on HOST:PORT (HOST defaults to 127.0.0.1, port 0 picks a free one), alone or beside --unix or --tcp.",
            valueName: "[host:]port"))
    var http: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An origin (scheme://host[:port]) whose browser pages may call POST /mcp, as the public name a proxy serves this under; repeatable. The listener's own address is always allowed; Origin: null never.",
            valueName: "origin"))
    var allowedOrigin: [String] = []

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "With --http on a loopback address: /preview/TENANT/ opens the tenant's flow in the browser for a new throwaway user, no token to mint; for plugin authors looking at a flow."
        ))
    var preview = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --http, on SIGTERM: seconds /health/ready answers 503 while every request is still served, so a load balancer stops routing here before the listeners close; a second signal ends it. 0: no drain. SIGINT never drains.",
            valueName: "seconds"))
    var drainSeconds: Int = 5

    @Option(name: .long, help: "Longest accepted line in bytes; a longer line gets error -32006 and is skipped.")
    var maxLineBytes: Int = 1 << 20

    @Option(
        help: ArgumentHelp(
            "Most bytes held for lines not yet whole and HTTP bodies being read, over all connections together; past it the connections holding the most are closed first. 67108864 is 64 MiB.",
            valueName: "bytes"))
    var maxBufferedBytes: Int = PartialLineBudget.defaultLimit

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Event-loop threads, which move the connections' bytes. Default on SQLite: half the cores, at least one (the requests run on Swift's own pool, one thread a core); on PostgreSQL one a core (the requests run on the loops). NIO_SINGLETON_GROUP_LOOP_COUNT, when set, replaces the default.",
            valueName: "n"))
    var eventLoops: Int?

    /// The event loops this serve asks NIO for, or nil to leave NIO's own choice (the
    /// environment variable, else one a core). On SQLite the loops only read, frame and write:
    /// on the 2-core VM one loop instead of two cost ~5 % less CPU a request on the Unix socket
    /// and WebSocket (Docs/performance.md), fewer threads waking each other for the same work.
    func eventLoopCount(environment: [String: String], cores: Int) -> Int? {
        if let eventLoops { return eventLoops }
        guard environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil, !PostgresSessionStore.isURL(store.db) else { return nil }
        return max(1, cores / 2)
    }

    /// The event loops NIO runs, for the start's log line.
    var loopsSaid: String {
        let count = NIOSingletons.groupLoopCountSuggestion
        return count == 1 ? "1 event loop" : "\(count) event loops"
    }

    func validate() throws {
        if let eventLoops, !(1...256).contains(eventLoops) { throw ValidationError("--event-loops takes 1 to 256") }
        guard maxLineBytes > 0 else { throw ValidationError("--max-line-bytes must be positive") }
        guard maxBufferedBytes > 0 else { throw ValidationError("--max-buffered-bytes must be positive") }
        guard (0...3600).contains(drainSeconds) else { throw ValidationError("--drain-seconds takes 0 to 3600") }
        guard [stdio, unix != nil, tcp != nil].filter({ $0 }).count <= 1 else {
            throw ValidationError("choose one line transport: --stdio, --unix or --tcp (--http may go beside --unix or --tcp)")
        }
        if stdio && http != nil {
            throw ValidationError("--http goes beside --unix or --tcp, not --stdio (stdio is one client's pipe)")
        }
        if let tcp, SocketEndpoint.tcp(tcp) == nil {
            throw ValidationError("--tcp takes [HOST:]PORT, e.g. 127.0.0.1:7070 or 7070")
        }
        if let http, SocketEndpoint.tcp(http) == nil {
            throw ValidationError("--http takes [HOST:]PORT, e.g. 127.0.0.1:8080 or 8080")
        }
        if let unix, unix.isEmpty { throw ValidationError("--unix needs a path") }
        if preview {
            guard let http, case .tcp(let host, _)? = SocketEndpoint.tcp(http), LoopbackHost.contains(host) else {
                throw ValidationError("--preview needs --http on a loopback address (it lets anyone who reaches the port start a session)")
            }
        }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive") }
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout must be positive") }
        guard headerTimeout > 0 else { throw ValidationError("--header-timeout must be positive") }
        guard lineTimeout > 0 else { throw ValidationError("--line-timeout must be positive") }
        for (flag, value) in [("--tcp", tcp), ("--http", http)] {
            if auth == AuthMode.none, let value, case .tcp(let host, _)? = SocketEndpoint.tcp(value), !LoopbackHost.contains(host) {
                throw ValidationError(
                    "--auth none with \(flag) on \(host) would let anyone who reaches the port act as admin; use a loopback address or --auth required")
            }
        }
    }

    /// The auth mode in force on the line transport: the flag, else the transport's default.
    var authMode: AuthMode {
        auth ?? (tcp != nil ? .required : AuthMode.none)
    }

    /// The auth mode in force on HTTP: the flag, else required (as on TCP).
    var httpAuthMode: AuthMode { auth ?? .required }

    func run() async throws {
        // A client that goes away must not kill the server: writes fail with EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        #if canImport(Glibc)
            // Line buffers above 256 KiB (a partial line of up to --max-line-bytes) are mapped and
            // given back to the system when freed. glibc's default threshold moves up after the first
            // such free, after which freed buffers of closed connections stayed in the heap and the
            // resident size kept them.
            GlibcMalloc.mallopt(GlibcMalloc.mmapThreshold, 256 * 1024)
        #endif
        // The service group traps SIGTERM and SIGINT only once `run()` starts. Trapped here first
        // thing, a signal during start-up (opening and migrating the database) neither kills the
        // process with the default action nor is lost (as it would be were it set to SIG_IGN):
        // it asks the group to shut down, which a group not yet running remembers and does as
        // soon as it has started its services. Later signals reach both this sequence and the
        // group's own; asking a group that is already stopping again changes nothing.
        let stopSignals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let stopWhileStarting = StopWhileStarting()
        let logger = store.bootstrapLogging()
        // Metrics are read only over HTTP: without --http they stay on the no-op backend.
        let registry = http == nil ? nil : ServerMetrics.bootstrap()
        let tracer = ServerTracing.bootstrap(logger: logger)
        let hosted = tenantOptions.load()
        guard let opened = try await store.openPlatform(tenants: hosted, logger: logger, unlessStopped: stopWhileStarting) else { return }
        let (platform, database) = opened
        try await platform.startServingFlows(logger: logger)
        let server = platform.rpcServer(credentials: Credentials(store: database))
        let tenants = platform.tenantIDs.joined(separator: ", ")
        var transports: [(any Service, String)] = []
        let mode = authMode
        let readiness = Readiness()
        // Partial lines and HTTP bodies being read hold bytes for clients that may never have
        // logged in: one budget over every transport.
        let budget = PartialLineBudget(limit: maxBufferedBytes, logger: logger)
        if let registry, let http, case .tcp(let host, let port)? = SocketEndpoint.tcp(http) {
            logger.info("serving \(tenants) over http, database \(store.databaseName), auth \(httpAuthMode.rawValue), \(loopsSaid)")
            let connections = HTTPConnectionTable(limit: FileDescriptorBudget.connections(wanted: maxConnections, logger: logger), logger: logger)
            let mcpSessions = MCPHTTPSessions(
                platform: platform, server: server, maxBodyBytes: maxLineBytes, allowedOrigins: Set(allowedOrigin.map(MCPHTTPSessions.origin)),
                connections: connections, logger: logger)
            transports.append(
                (
                    HTTPTransport(
                        server: server, mcp: mcpSessions, platform: platform, store: database, preview: preview,
                        readiness: readiness, metrics: registry, host: host, port: port,
                        requireLogin: httpAuthMode == .required, maxBodyBytes: maxLineBytes, idleTimeout: .seconds(Int64(idleTimeout)),
                        headerTimeout: .seconds(Int64(headerTimeout)),
                        connections: connections,
                        budget: budget, tracing: tracer != nil, logger: logger),
                    "http \(host):\(port)"
                ))
            ServerMetrics.prepare(
                platform: platform, server: server,
                lineTransports: ["http", "websocket"] + (unix != nil ? ["unix"] : []) + (tcp != nil ? ["tcp"] : []), logger: logger)
        }
        if let endpoint = unix.map({ SocketEndpoint.unix(path: $0) }) ?? tcp.flatMap(SocketEndpoint.tcp) {
            logger.info("serving \(tenants), database \(store.databaseName), auth \(mode.rawValue), \(loopsSaid)")
            let limits = SocketTransport.Limits(
                maxLineBytes: maxLineBytes, maxConnections: FileDescriptorBudget.connections(wanted: maxConnections, logger: logger),
                idleTimeout: .seconds(Int64(idleTimeout)), lineTimeout: .seconds(Int64(lineTimeout)))
            transports.append(
                (
                    SocketTransport(
                        server: server, endpoint: endpoint, limits: limits, requireLogin: mode == .required, budget: budget, logger: logger),
                    endpoint.description
                ))
        } else if http == nil {
            logger.info("serving \(tenants) on stdio, database \(store.databaseName), auth \(mode.rawValue)")
            transports.append((StdioTransport(server: server, maxLineBytes: maxLineBytes, requireLogin: mode == .required, logger: logger), "stdio"))
        }
        // Completion events go out from a worker beside the transport: it wakes on each commit
        // that wrote one, and never runs inside a request.
        let webhooks = HTTPWebhookTransport()
        let delivery = DeliveryService(
            worker: DeliveryWorker(
                store: database, tenants: hosted, transport: webhooks, signal: platform.outboxSignal, logger: logger),
            transport: webhooks)
        var before: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: delivery, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "webhook delivery")
        ]
        if let tracer {
            before.append(.init(service: tracer, successTerminationBehavior: .ignore, serviceName: "trace export"))
        }
        if hosted.contains(where: { $0.experiments.contains { $0.autoStop && $0.status == .running } }) {
            before.append(
                .init(service: ExperimentWatch(platform: platform, logger: logger), successTerminationBehavior: .ignore, serviceName: "experiment watch"))
        }
        if hosted.contains(where: { !$0.dataPolicy.isEmpty }) {
            before.append(.init(service: SweepService(platform: platform, logger: logger), successTerminationBehavior: .ignore, serviceName: "sweeper"))
        }
        // Only HTTP has a readiness check for a load balancer to read; a pipe or socket client
        // gains nothing from waiting.
        let drain: Duration? = http != nil && drainSeconds > 0 ? .seconds(Int64(drainSeconds)) : nil
        try await Self.run(
            transports, platform: platform, stopSignals: stopSignals, logger: logger, before: before, readiness: readiness, drain: drain)
    }

    /// Runs the transports until one ends (EOF on stdin) or a signal stops them gracefully, then
    /// closes the store. SIGTERM or SIGINT shuts the transports down gracefully (each answers what
    /// was sent, then returns; readiness answers 503 from the signal on); a transport returning
    /// by itself (EOF on stdin) ends the group the same way. Services stop in reverse order: the
    /// transports first (HTTP, given first, last of them), then the services `before` them (the
    /// delivery worker), so the events of the last requests still get their chance.
    ///
    /// With `drain`, SIGTERM first drains: readiness answers 503 while every transport still
    /// serves, for `drain`, then the graceful stop begins; a second signal (or SIGINT) begins it
    /// at once.
    static func run(
        _ transports: [(any Service, String)], platform: Platform, stopSignals: UnixSignalsSequence, logger: Logger,
        before: [ServiceGroupConfiguration.ServiceConfiguration] = [], readiness: Readiness? = nil, drain: Duration? = nil
    ) async throws {
        // The signals are this function's to handle (the group's own handling would stop at once).
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: before
                    + transports.map { transport, name in
                        .init(service: transport, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: name)
                    },
                gracefulShutdownSignals: [],
                logger: logger))
        do {
            try await withThrowingDiscardingTaskGroup { tasks in
                tasks.addTask {
                    var drained: Task<Void, Never>?
                    defer { drained?.cancel() }
                    for await signal in stopSignals {
                        readiness?.stop()
                        if let drain, signal == .sigterm, drained == nil {
                            logger.notice(
                                "received \(signal): draining for \(drain.components.seconds) s (/health/ready answers 503, requests are still served), then stopping; a second signal stops at once"
                            )
                            drained = Task {
                                try? await Task.sleep(for: drain)
                                guard !Task.isCancelled else { return }
                                logger.info("drained: stopping")
                                await group.triggerGracefulShutdown()
                            }
                            continue
                        }
                        logger.info("received \(signal): stopping")
                        await group.triggerGracefulShutdown()
                    }
                }
                try await group.run()
                tasks.cancelAll()
            }
        } catch {
            try? await platform.close()
            logger.critical("\(error)")
            throw ExitCode.failure
        }
        // The store is closed here, after the group, rather than by a service of the group: run()
        // returns only once every service has returned, whether it stopped gracefully, ended or
        // was cancelled, so no request can still reach the database. (A store service registered
        // first would be shut down last on a graceful stop, but a cancelled group cancels all its
        // services at once, and the database could close under a request still being answered.)
        try await platform.close()
        logger.info("stopped")
    }
}

/// Running out of file descriptors makes a listener unable to accept (and, in SwiftNIO, spin on
/// a readable socket it cannot accept from). The server raises its soft limit to the hard one
/// and keeps its connection cap below what is left, so it never reaches the limit: a connection
/// over the cap is accepted and closed at once, and the server stays responsive.
enum FileDescriptorBudget {
    /// Descriptors kept for the database, its WAL, the listener, logs and the runtime.
    static let reserve = 64

    static func connections(wanted: Int, logger: Logger) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, rlim_t(1 << 20))
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let available = Int(clamping: limit.rlim_cur) - reserve
        guard available < wanted else { return wanted }
        let cap = max(1, available)
        logger.notice("the file descriptor limit is \(limit.rlim_cur): serving at most \(cap) connections instead of \(wanted) (raise it with ulimit -n)")
        return cap
    }
}

#if canImport(Glibc)
    /// glibc's `mallopt`, which Swift's Glibc module does not export (malloc.h is not in it): looked
    /// up once and called with the C calling convention.
    enum GlibcMalloc {
        /// `M_MMAP_THRESHOLD` in malloc.h.
        static let mmapThreshold: Int32 = -3

        @discardableResult
        static func mallopt(_ parameter: Int32, _ value: Int32) -> Int32 {
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return 0 }
            return unsafeBitCast(symbol, to: Mallopt.self)(parameter, value)
        }
    }
#endif
