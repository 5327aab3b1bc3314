import ArgumentParser
import Foundation
import Logging
import NIOCore
import PlatformProtocol
import PlatformStorage
import PostgresStore
import SQLiteStore

#if canImport(Glibc)
    import Glibc
#endif

/// `platformd-bench` (also run as `platformd bench`): runs the `platformd` beside it as a child
/// server on a temporary Unix socket (or HTTP port) and file database, finds a walk to completion
/// of one of its tenants from the fields it serves, drives connections that walk users along it
/// (one request in flight each, like real clients), and measures in the same run the disk's raw
/// durable commit rate.
@main
struct PlatformBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "platformd-bench",
        abstract: "Measure requests/s, latency, server CPU per request and memory against the raw SQLite commit rate.",
        discussion: """
            Starts `platformd serve --unix` (or `--http` with --transport http) as a child process on a temporary directory, \
            walks one user of --tenant (default: the first tenant the server lists) to completion with answers made from \
            the fields it serves, then opens --connections connections, each walking new users along that path (a start \
            and a submit a step, one request in flight at a time) for --seconds, and prints requests/s, p50/p99/p99.9 \
            latency, the server's CPU time per request (from its own accounting), its resident memory, and the ratio of \
            acknowledged requests/s to one-row durable SQLite commits/s measured in the same directory. Progress goes to stderr.
            """)

    @Option(help: "Concurrent connections walking users.") var connections = 16
    @Option(help: "More connections that each start one session, then keep --depth flow.get requests of it in flight (pipelined reads beside the walks).")
    var pipelined = 0
    @Option(help: "Requests each pipelined connection keeps in flight.") var depth = 16
    @Option(help: "How long to drive load, in seconds.") var seconds = 10.0
    @Option(help: "Completed sessions to store first (in bulk), to compare costs at 1 k and 1 M.") var preload = 0
    @Option(help: "Where to put the temporary socket and database (default: a new directory under /tmp).") var directory: String?
    @Option(
        help: ArgumentHelp(
            "A postgres:// URL to measure the PostgreSQL store on (its database gets pgbench's tables and the bench's sessions); default: a SQLite file in --directory.",
            valueName: "url"))
    var db: String?
    @Option(help: "Servers to start on the --db database, the connections split among them (PostgreSQL only).") var hosts = 1
    @Option(help: "Pool size of each server's PostgreSQL connections (serve's --db-pool-size).") var dbPoolSize = 8
    @Option(
        help: ArgumentHelp(
            "Event-loop threads of each server (NIO_SINGLETON_GROUP_LOOP_COUNT in its environment); default with several --hosts: the machine's cores shared among them, at least one, unless that variable is already set.",
            valueName: "n"))
    var hostThreads: Int?
    @Option(
        help: ArgumentHelp(
            "unix: JSON lines on a Unix socket; http: POST /rpc over HTTP/1.1 keep-alive connections on loopback (the readers pipeline their requests); websocket: GET /rpc upgraded, one text frame a message.",
            valueName: "unix|http|websocket"))
    var transport: BenchTransport = .unix
    @Option(help: "The tenant whose users are walked (default: the first tenant the server lists).") var tenant: String?
    @Option(help: "The flow walked (default: the tenant's default flow).") var flow: String?
    @Option(
        help: ArgumentHelp(
            "The platformd binary run as the server (default: the one beside this binary).", valueName: "path"))
    var server: String?
    @Flag(
        help:
            "Declare an experiment on the walked flow (two variants on it, 50/50): every walk's start enrols, and analytics.experiment is timed after the load. Needs --tenant."
    )
    var experiment = false
    @Flag(
        help:
            "Each connection only starts new users (one flow.start a request, no submit): what a start costs, and with --experiment what an enrolment adds to it."
    )
    var startsOnly = false
    @Flag(
        help:
            "Give each walked user a random id, as an app's user ids are, instead of the connection's name and a counter (which sort together, so rows keyed by the person land on the same few pages)."
    )
    var scatteredUsers = false
    @Flag(
        help:
            "Serve with --auth required and log every connection in with a key of --tenant (made with platformd keys create): a bearer on each HTTP request and on a WebSocket's handshake, auth.login first on a socket, as an app's backend does. Needs --tenant."
    )
    var login = false
    @Option(help: "People exposed to that experiment to store first (in bulk; half complete), to time analytics.experiment at 1 M.")
    var preloadExposed = 0
    @Option(
        help:
            "Connections to open to the first server before the load and leave idle (each answered one platform.info first), to measure their resident memory."
    )
    var idle = 0
    @Option(
        help: ArgumentHelp(
            "How long the bench waits for any one reply while it sets up (the walk's planning, the idle connections, each connection's first request) before it calls the server stalled.",
            valueName: "seconds"))
    var replyTimeout = 60.0
    @Flag(help: "Print the results as one JSON object.") var json = false

    func validate() throws {
        guard (1...1024).contains(connections) else { throw ValidationError("--connections must be 1-1024") }
        guard (0...1024).contains(pipelined) else { throw ValidationError("--pipelined must be 0-1024") }
        guard (1...1024).contains(depth) else { throw ValidationError("--depth must be 1-1024") }
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
        guard replyTimeout > 0 else { throw ValidationError("--reply-timeout must be positive") }
        guard preload >= 0 else { throw ValidationError("--preload must not be negative") }
        guard (0...10_000).contains(idle) else { throw ValidationError("--idle must be 0-10000") }
        guard (1...16).contains(hosts) else { throw ValidationError("--hosts must be 1-16") }
        if let hostThreads, !(1...256).contains(hostThreads) { throw ValidationError("--host-threads must be 1-256") }
        if let db, !PostgresSessionStore.isURL(db) { throw ValidationError("--db takes a postgres:// URL (the SQLite bench makes its own file)") }
        if hosts > 1 && db == nil { throw ValidationError("--hosts needs --db postgres://… (one SQLite file has one host)") }
        if preload > 0 && db != nil { throw ValidationError("--preload is for the SQLite store") }
        if preload > 0 && tenant == nil { throw ValidationError("--preload needs --tenant: the sessions are stored before the server starts") }
        if login && tenant == nil { throw ValidationError("--login needs --tenant: the key is made for it") }
        if experiment && (tenant == nil || db != nil) { throw ValidationError("--experiment needs --tenant, on the SQLite store") }
        if preloadExposed < 0 || (preloadExposed > 0 && !experiment) { throw ValidationError("--preload-exposed needs --experiment") }
    }

    /// The servers' environment: this one, with their event-loop threads. Several hosts on one
    /// machine each sized for all its cores wake each other's threads for nothing: two hosts on 2
    /// cores with one loop each used ~9 % less CPU a request than with two each.
    var serverEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        if let hostThreads {
            environment[Self.loopCount] = "\(hostThreads)"
        } else if environment[Self.loopCount] == nil, hosts > 1 {
            environment[Self.loopCount] = "\(max(1, System.coreCount / hosts))"
        }
        return environment
    }

    /// NIO's event-loop threads of a process (its own default: one per core).
    static let loopCount = "NIO_SINGLETON_GROUP_LOOP_COUNT"

    /// Where the bench's database is: a SQLite file of its own, or the PostgreSQL URL given.
    var postgres: String? { db }

    func run() async throws {
        let base = URL(fileURLWithPath: directory ?? "/tmp/platformd-bench-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(at: base) } }
        let database = postgres ?? base.appendingPathComponent("bench.sqlite").path
        let rawCommits: Double
        if let postgres {
            // Opened as serve opens it, first: a server out of reach or a refused login is one line
            // and exit 69, as for serve, rather than pgbench's own messages.
            do {
                let store = try await PostgresSessionStore.connect(url: postgres, options: .init(poolSize: 1), logger: Logger(label: "platformd.bench"))
                try await store.close()
            } catch let error as PostgresSessionStore.Unreachable {
                FileHandle.standardError.write(Data("platformd-bench: \(error)\n".utf8))
                throw ExitCode(Self.unreachableExitCode)
            }
            progress("measuring pgbench's simple updates (-N) with \(connections) clients, 10,000 transactions")
            rawCommits = try await PgBench.simpleUpdatesPerSecond(url: postgres, clients: connections, transactions: 10_000)
        } else {
            progress("measuring raw one-row commits (WAL, synchronous=FULL) for 2 s")
            rawCommits = try await SQLiteBench.rawCommitsPerSecond(in: base, seconds: 2)
        }

        if preload > 0 {
            progress("storing \(preload) completed sessions")
            let store = try await SQLiteSessionStore.open(path: database)
            try await store.preloadCompletedSessions(count: preload, tenant: tenant ?? "", flow: flow ?? "onboarding", at: Date())
            try await store.close()
        }

        var tenantsFile: [String] = []
        if experiment, let tenant {
            let flow = self.flow ?? "onboarding"
            let file = base.appendingPathComponent("tenants.json")
            let plugin = try await BlockingWork.run { try Self.plugin(of: tenant, executable: try serverExecutable()) }
            try Data(BenchExperiment.tenantsFile(tenant: tenant, plugin: plugin, flow: flow).utf8).write(to: file)
            tenantsFile = ["--tenants", file.path]
            if preloadExposed > 0 {
                progress("storing \(preloadExposed) people exposed to the experiment")
                let served = try await BlockingWork.run {
                    try Self.served(of: tenant, flow: flow, executable: try serverExecutable(), tenants: file.path)
                }
                let store = try await SQLiteSessionStore.open(path: database)
                try await store.preloadExposures(
                    count: preloadExposed, tenant: tenant, experiment: BenchExperiment.id, seed: BenchExperiment.id,
                    variants: BenchExperiment.variants.map { (id: $0, flow: flow, firstStep: served.firstStep) },
                    version: served.version, fingerprint: served.fingerprint, at: Date())
                try await store.close()
            }
        }

        var bearer: String?
        if login, let tenant {
            progress("making a key of \(tenant) for the connections to log in with")
            if postgres == nil {
                // `keys create` opens only a database that exists (serve makes it).
                try await SQLiteSessionStore.open(path: database).close()
            }
            let arguments = ["keys", "create", "--tenant", tenant, "--db", database, "--log-level", "warning"] + tenantsFile
            let executable = try serverExecutable()
            let secret = try await BlockingWork.run { try Self.run(executable, arguments) }
            bearer = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        var endpoints: [BenchEndpoint] = []
        for host in 0..<hosts {
            switch transport {
            case .unix: endpoints.append(.unix(base.appendingPathComponent("bench\(host).sock").path, bearer: bearer))
            case .http: endpoints.append(.http(port: try BenchEndpoint.freePort(), bearer: bearer))
            case .websocket: endpoints.append(.websocket(port: try BenchEndpoint.freePort(), bearer: bearer))
            }
        }
        // Room for every connection the run opens (the default cap is 1,024).
        let maxConnections = max(1024, idle + connections + pipelined + 16)
        Self.raiseDescriptorLimit(to: maxConnections + 64)
        let serveArguments =
            ["serve", "--db", database, "--log-level", "warning", "--max-connections", "\(maxConnections)"]
            + (postgres == nil ? [] : ["--db-pool-size", "\(dbPoolSize)"]) + tenantsFile
        let listening = endpoints
        let environment = serverEnvironment
        let executable = try serverExecutable()
        let servers = try await BlockingWork.run {
            try listening.map { try ChildServer(executable: executable, arguments: serveArguments, environment: environment, endpoint: $0) }
        }
        // On a failure before the stop below: signalled, not waited for (no wait on the pool).
        defer { for server in servers { server.terminate() } }

        let setUpTimeout = Duration.milliseconds(Int64(replyTimeout * 1000))
        var idleGrowthKiB: Int?
        if idle > 0 {
            progress("opening \(idle) idle connections")
            let measure = IdleConnections(count: idle, endpoint: listening[0], server: servers[0], timeout: setUpTimeout)
            idleGrowthKiB = try await BlockingWork.run("platformd.bench.idle") { try measure.residentGrowthKiB() }
        }

        // One thread drives every connection (poll over their sockets), so the load generator
        // costs the 2-core machine little: 32 blocking client threads and full parses of every
        // reply took about as much CPU as the server itself and skewed what the server could do.
        let (tenant, flow) = (self.tenant, self.flow)
        let (startsOnly, scatteredUsers) = (self.startsOnly, self.scatteredUsers)
        let plan = try await BlockingWork.run("platformd.bench.plan") {
            var plan = try WalkPlanner(exchange: BlockingExchange(endpoint: listening[0], timeout: setUpTimeout)).plan(
                tenant: tenant, flow: flow, userId: "bench-plan-\(UInt32.random(in: .min ... .max))")
            if startsOnly { plan.startOnly() }
            plan.scatteredUsers = scatteredUsers
            return plan
        }
        progress("walking \(plan.tenant) users: \(plan.requestsPerWalk) requests each")
        let (walkers, readers, depth) = (connections, pipelined, self.depth)
        // Connecting (a WebSocket's handshake too) blocks: on a thread of its own.
        let driver = try await BlockingWork.run("platformd.bench.connect") {
            try LoadDriver(endpoints: listening, plan: plan, connections: walkers, pipelined: readers, depth: depth)
        }
        // One untimed round trip per connection first: a server still settling after its start
        // (on a loaded machine, seconds) would otherwise eat the measured window.
        try await BlockingWork.run("platformd.bench.warmup") { try driver.warmUp(within: setUpTimeout) }
        let cpuBefore = servers.map { $0.cpuMicroseconds() }
        let recorder = LatencyRecorder()
        let reads = LatencyRecorder()
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let started = ContinuousClock.now
        Thread {
            driver.run(until: deadline, recorder: recorder, reads: reads)
        }.start()
        while recorder.finished + reads.finished < connections + pipelined {
            try await Task.sleep(for: .milliseconds(recorder.finished > 0 || ContinuousClock.now >= deadline ? 20 : 1000))
            let elapsed = (ContinuousClock.now - started).seconds
            if recorder.finished == 0 {
                let count = recorder.count + reads.count
                progress(String(format: "%.0f s: %d requests, %.0f/s", elapsed, count, Double(count) / max(elapsed, 0.001)))
            }
        }
        let elapsed = ([recorder.lastFinish, reads.lastFinish].compactMap { $0 }.max() ?? ContinuousClock.now) - started
        let seconds = elapsed.seconds
        let cpus = zip(servers, cpuBefore).map { server, before in server.cpuMicroseconds() - before }
        let cpu = cpus.reduce(0, +)
        let rss = servers.map { $0.residentKiB() }.max() ?? 0
        var results: (milliseconds: Double, exposed: Int)?
        if experiment {
            progress("timing analytics.experiment")
            results = try await BlockingWork.run("platformd.bench.experiment") {
                try BenchExperiment.timeResults(tenant: plan.tenant, exchange: BlockingExchange(endpoint: listening[0], timeout: .seconds(600)))
            }
        }
        driver.disconnect()
        // Their exits are waited for on a thread of their own, never on the cooperative pool.
        await BlockingWork.run("platformd.bench.stop") { for server in servers { server.stop() } }
        let answeredByHost = driver.answeredByHost()
        let latencies = recorder.sorted()
        let readLatencies = reads.sorted()
        // Requests/s and the commit ratio count the walks (each a durable write but the start of
        // an existing user); CPU per request counts every request the server answered.
        let requests = latencies.count
        let rate = Double(requests) / seconds
        func percentile(_ fraction: Double, of latencies: [Double] = latencies) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int((Double(latencies.count) * fraction).rounded(.down)))] * 1000
        }
        var result: [(String, JSONValue)] = [
            ("transport", .string(transport.rawValue)), ("tenant", .string(plan.tenant)), ("login", .bool(login)),
            ("requestsPerWalk", .int(Int64(plan.requestsPerWalk))),
            ("connections", .int(Int64(connections))), ("seconds", .double(seconds.rounded(to: 2))),
            ("preloadedSessions", .int(Int64(preload))), ("requests", .int(Int64(requests))),
            ("failures", .int(Int64(driver.failures.load(ordering: .relaxed)))),
            ("requestsPerSecond", .double(rate.rounded(to: 1))),
            ("p50Ms", .double(percentile(0.5).rounded(to: 3))), ("p99Ms", .double(percentile(0.99).rounded(to: 3))),
            ("p999Ms", .double(percentile(0.999).rounded(to: 3))),
            ("serverCpuMicrosecondsPerRequest", .double((Double(cpu) / Double(max(requests + readLatencies.count, 1))).rounded(to: 1))),
            ("serverResidentMiB", .double((Double(rss) / 1024).rounded(to: 1))),
            ("rawCommitsPerSecond", .double(rawCommits.rounded(to: 1))),
            ("ackedToRawCommitRatio", .double((rate / max(rawCommits, 1)).rounded(to: 3))),
        ]
        if postgres != nil {
            result.insert(("store", "postgres"), at: 1)
            result.append(("hosts", .int(Int64(hosts))))
            result.append(("hostThreads", .int(Int64(environment[Self.loopCount].flatMap { Int($0) } ?? System.coreCount))))
            result.append(("pgbenchSimpleUpdatesPerSecond", .double(rawCommits.rounded(to: 1))))
            result.append(
                (
                    "hostCpuMicrosecondsPerRequest",
                    .array(
                        zip(cpus, answeredByHost).map { cpu, answered in
                            .double((Double(cpu) / Double(max(answered, 1))).rounded(to: 1))
                        })
                ))
        }
        if let idleGrowthKiB {
            result += [
                ("idleConnections", .int(Int64(idle))), ("idleResidentGrowthMiB", .double((Double(idleGrowthKiB) / 1024).rounded(to: 1))),
                ("idleKiBPerConnection", .double((Double(idleGrowthKiB) / Double(idle)).rounded(to: 1))),
            ]
        }
        if let results {
            result += [
                ("experimentExposed", .int(Int64(results.exposed))), ("experimentResultsMs", .double(results.milliseconds.rounded(to: 1))),
            ]
        }
        if pipelined > 0 {
            result += [
                ("pipelinedConnections", .int(Int64(pipelined))), ("depth", .int(Int64(depth))),
                ("reads", .int(Int64(readLatencies.count))),
                ("readsPerSecond", .double((Double(readLatencies.count) / seconds).rounded(to: 1))),
                ("readP50Ms", .double(percentile(0.5, of: readLatencies).rounded(to: 3))),
                ("readP99Ms", .double(percentile(0.99, of: readLatencies).rounded(to: 3))),
            ]
        }
        if json {
            FileHandle.standardOutput.write(Data((JSONValue.object(Dictionary(uniqueKeysWithValues: result)).serialized() + "\n").utf8))
        } else {
            FileHandle.standardOutput.write(Data(result.map { "\($0.0)\t\($0.1.serialized())\n" }.joined().utf8))
        }
    }

    /// This process's soft limit of open files raised towards `wanted` (at most the hard limit),
    /// for `--idle` connections by the thousand.
    static func raiseDescriptorLimit(to wanted: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Exit code when the database cannot be reached (EX_UNAVAILABLE), as `platformd serve` exits.
    static let unreachableExitCode: Int32 = 69

    /// `--server`, or the `platformd` in this binary's directory.
    func serverExecutable() throws -> String {
        if let server { return server }
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let beside = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("platformd").path
        guard FileManager.default.isExecutableFile(atPath: beside) else {
            throw BenchFailure("no platformd beside this binary (\(beside)); build it (swift build --product platformd) or name one with --server")
        }
        return beside
    }

    func progress(_ line: String) {
        FileHandle.standardError.write(Data("bench: \(line)\n".utf8))
    }
}

extension Double {
    func rounded(to places: Int) -> Double {
        let scale = Foundation.pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A failure that ends the bench with one line saying what went wrong.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
