import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore
import ArgumentParser
import Foundation
import Logging
import NIOCore
import PlatformCore
import PostgresStore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `platformd bench`: runs this binary's server as a child on a temporary Unix socket and file
/// database, drives connections that walk StatLocker users to completion (one request in flight
/// each, like real clients), and measures in the same run the disk's raw durable commit rate.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure requests/s, latency, server CPU per request and memory against the raw SQLite commit rate.",
        discussion: """
            Starts `platformd serve --unix` (or `--http` with --transport http) as a child process on a temporary directory, opens --connections \
            connections, each walking StatLocker users to completion (12 requests a user, one in flight at \
            a time) for --seconds, then prints requests/s, p50/p99/p99.9 latency, the server's CPU time per \
            request (from its own accounting), its resident memory, and the ratio of acknowledged requests/s \
            to one-row durable SQLite commits/s measured in the same directory. A progress line goes to stderr.
            """)

    @Option(help: "Concurrent connections walking users.") var connections = 16
    @Option(help: "More connections that each start one session, then keep --depth flow.get requests of it in flight (pipelined reads beside the walks).")
    var pipelined = 0
    @Option(help: "Requests each pipelined connection keeps in flight.") var depth = 16
    @Option(help: "How long to drive load, in seconds.") var seconds = 10.0
    @Option(help: "Completed sessions to store first (in bulk), to compare costs at 1 k and 1 M.") var preload = 0
    @Option(help: "Where to put the temporary socket and database (default: a new directory under /tmp).") var directory: String?
    @Option(help: ArgumentHelp(
        "A postgres:// URL to measure the PostgreSQL store on (its database gets pgbench's tables and the bench's sessions); default: a SQLite file in --directory.",
        valueName: "url"))
    var db: String?
    @Option(help: "Servers to start on the --db database, the connections split among them (PostgreSQL only).") var hosts = 1
    @Option(help: "Pool size of each server's PostgreSQL connections (serve's --db-pool-size).") var dbPoolSize = 8
    @Option(help: ArgumentHelp(
        "Event-loop threads of each server (NIO_SINGLETON_GROUP_LOOP_COUNT in its environment); default with several --hosts: the machine's cores shared among them, at least one, unless that variable is already set.",
        valueName: "n"))
    var hostThreads: Int?
    @Option(help: ArgumentHelp(
        "unix: JSON lines on a Unix socket; http: POST /rpc over HTTP/1.1 keep-alive connections on loopback (the readers pipeline their requests).",
        valueName: "unix|http"))
    var transport: BenchTransport = .unix
    @Flag(help: "Print the results as one JSON object.") var json = false

    func validate() throws {
        guard (1...1024).contains(connections) else { throw ValidationError("--connections must be 1-1024") }
        guard (0...1024).contains(pipelined) else { throw ValidationError("--pipelined must be 0-1024") }
        guard (1...1024).contains(depth) else { throw ValidationError("--depth must be 1-1024") }
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
        guard preload >= 0 else { throw ValidationError("--preload must not be negative") }
        guard (1...16).contains(hosts) else { throw ValidationError("--hosts must be 1-16") }
        if let hostThreads, !(1...256).contains(hostThreads) { throw ValidationError("--host-threads must be 1-256") }
        if let db, !PostgresSessionStore.isURL(db) { throw ValidationError("--db takes a postgres:// URL (the SQLite bench makes its own file)") }
        if hosts > 1 && db == nil { throw ValidationError("--hosts needs --db postgres://… (one SQLite file has one host)") }
        if preload > 0 && db != nil { throw ValidationError("--preload is for the SQLite store") }
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
            let store = try await StoreOptions.parse(["--db", postgres, "--db-pool-size", "1"])
                .openStore(logger: Logger(label: "platformd.bench"), access: .createIfMissing)
            try await store.close()
            progress("measuring pgbench's simple updates (-N) with \(connections) clients, 10,000 transactions")
            rawCommits = try await PgBench.simpleUpdatesPerSecond(url: postgres, clients: connections, transactions: 10_000)
        } else {
            progress("measuring raw one-row commits (WAL, synchronous=FULL) for 2 s")
            rawCommits = try await SQLiteBench.rawCommitsPerSecond(in: base, seconds: 2)
        }

        if preload > 0 {
            progress("storing \(preload) completed sessions")
            let store = try await SQLiteSessionStore.open(path: database)
            try await store.preloadCompletedSessions(count: preload, tenant: "statlocker", flow: "onboarding", at: Date())
            try await store.close()
        }

        var endpoints: [BenchEndpoint] = []
        for host in 0..<hosts {
            switch transport {
            case .unix: endpoints.append(.unix(base.appendingPathComponent("bench\(host).sock").path))
            case .http: endpoints.append(.http(port: try BenchEndpoint.freePort()))
            }
        }
        let serveArguments = ["serve", "--db", database, "--log-level", "warning"] + (postgres == nil ? [] : ["--db-pool-size", "\(dbPoolSize)"])
        let listening = endpoints
        let environment = serverEnvironment
        let servers = try await BlockingWork.run {
            try listening.map { try ChildServer(arguments: serveArguments, environment: environment, endpoint: $0) }
        }
        // On a failure before the stop below: signalled, not waited for (no wait on the pool).
        defer { for server in servers { server.terminate() } }

        // One thread drives every connection (poll over their sockets), so the load generator
        // costs the 2-core machine little: 32 blocking client threads and full parses of every
        // reply took about as much CPU as the server itself and skewed what the server could do.
        let driver = try LoadDriver(endpoints: listening, connections: connections, pipelined: pipelined, depth: depth)
        // One untimed round trip per connection first: a server still settling after its start
        // (on a loaded machine, seconds) would otherwise eat the measured window.
        try await BlockingWork.run("platformd.bench.warmup") { try driver.warmUp(within: .seconds(60)) }
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
            ("transport", .string(transport.rawValue)),
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
            result.append(("hostCpuMicrosecondsPerRequest", .array(zip(cpus, answeredByHost).map { cpu, answered in
                .double((Double(cpu) / Double(max(answered, 1))).rounded(to: 1))
            })))
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
            StandardOutput.writeLine(JSONValue.object(Dictionary(uniqueKeysWithValues: result)).serialized())
        } else {
            for (name, value) in result { StandardOutput.writeLine("\(name)\t\(value.serialized())") }
        }
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

/// Request latencies from every connection, in seconds.
final class LatencyRecorder: Sendable {
    private let state = Mutex<(samples: [Double], finished: Int, lastFinish: ContinuousClock.Instant?)>(([], 0, nil))

    func record(_ duration: Duration) {
        let value = duration.seconds
        state.withLock { $0.samples.append(value) }
    }

    func finish() {
        state.withLock {
            $0.finished += 1
            $0.lastFinish = ContinuousClock.now
        }
    }
    var lastFinish: ContinuousClock.Instant? { state.withLock { $0.lastFinish } }
    var finished: Int { state.withLock { $0.finished } }
    var count: Int { state.withLock { $0.samples.count } }
    func sorted() -> [Double] { state.withLock { $0.samples.sorted() } }
}

/// One StatLocker user after another, walked to completion: a start, then each step's answer.
struct StatLockerWalk {
    let prefix: String
    var user = 0
    /// The session being walked (nil: the next request starts a new user).
    var session: ReplySummary?
    var step = 0
    var requestID: Int64 = 0

    init(prefix: String) { self.prefix = prefix }

    static let answers: [JSONValue] = [
        ["sport": "lacrosse"], [:], ["teamGender": "girls"], ["gradYear": 2026, "level": "JV"], ["position": "Midfield"],
        ["hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": false],
        ["seasonGoals": ["g-mid-jv-dc-50", "g-mid-jv-goals-28", ["title": "Win 60% of draws", "targetValue": 60, "unit": "%"]]],
        [:], ["aiTone": "Analyst"], [:], [:],
    ]

    mutating func nextRequest() -> [UInt8] {
        requestID += 1
        let request: JSONValue
        if let session, step < Self.answers.count {
            request = [
                "jsonrpc": "2.0", "id": .int(requestID), "method": "flow.submit",
                "params": [
                    "tenant": "statlocker", "sessionId": .string(session.sessionId ?? ""), "stepId": .string(session.stepId ?? ""),
                    "revision": .int(session.revision ?? -1), "values": Self.answers[step],
                ],
            ]
        } else {
            user += 1
            step = 0
            session = nil
            request = [
                "jsonrpc": "2.0", "id": .int(requestID), "method": "flow.start",
                "params": ["tenant": "statlocker", "userId": .string("\(prefix)-u\(user)"), "user": ["firstName": "Bench"]],
            ]
        }
        return request.serializedBytes() + [0x0A]
    }

    /// Takes the reply; false when it was an error (the walk starts a new user then).
    mutating func accept(_ reply: ReplySummary) -> Bool {
        guard !reply.isError, reply.sessionId != nil, reply.revision != nil else {
            step = Self.answers.count
            return false
        }
        if session != nil { step += 1 }
        session = reply.status == "completed" ? nil : reply
        if session == nil { step = Self.answers.count }
        return true
    }
}

/// What the walk needs of a reply line: whether it is an error, and the session's id, revision,
/// status and step id. Read by skimming the line (`JSONSkimmer`) instead of building the whole
/// view, which for StatLocker's state pickers is tens of kilobytes.
struct ReplySummary: Sendable {
    var isError = false
    var sessionId: String?
    var revision: Int64?
    var status: String?
    var stepId: String?

    init(line: ArraySlice<UInt8>) throws {
        var skimmer = JSONSkimmer(line)
        try skimmer.members { key, skimmer in
            switch key {
            case "error": isError = true; try skimmer.skipValue()
            case "result":
                try skimmer.members { key, skimmer in
                    switch key {
                    case "sessionId": sessionId = try skimmer.string()
                    case "revision": revision = try skimmer.integer()
                    case "status": status = try skimmer.string()
                    case "step" where !skimmer.atNull:
                        try skimmer.members { key, skimmer in
                            if key == "id" { stepId = try skimmer.string() } else { try skimmer.skipValue() }
                        }
                    default: try skimmer.skipValue()
                    }
                }
            default: try skimmer.skipValue()
            }
        }
    }
}

/// Walks JSON text without building it: objects' members are visited by key, everything else
/// is skipped. Enough for the bench's replies, which the server's own writer produced.
struct JSONSkimmer {
    struct Malformed: Error {}

    let bytes: ArraySlice<UInt8>
    var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var atNull: Bool {
        var probe = self
        probe.skipSpaces()
        return probe.index < bytes.endIndex && bytes[probe.index] == UInt8(ascii: "n")
    }

    mutating func skipSpaces() {
        while index < bytes.endIndex {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Past a string, without making it (most of a reply is skipped: the driver's own CPU is
    /// taken from the servers it measures).
    mutating func skipString() throws {
        try expect(UInt8(ascii: "\""))
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\") { index += 1 }
        }
        throw Malformed()
    }

    mutating func expect(_ byte: UInt8) throws {
        skipSpaces()
        guard index < bytes.endIndex, bytes[index] == byte else { throw Malformed() }
        index += 1
    }

    /// Calls `body` with each member's key; `body` must read or skip the value.
    mutating func members(_ body: (String, inout JSONSkimmer) throws -> Void) throws {
        skipSpaces()
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "{") else { throw Malformed() }
        try elements(closing: UInt8(ascii: "}")) { skimmer in
            let key = try skimmer.string()
            try skimmer.expect(UInt8(ascii: ":"))
            try body(key, &skimmer)
        }
    }

    mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        var text: [UInt8] = []
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.endIndex else { throw Malformed() }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): text.append(0x0A)
                case UInt8(ascii: "t"): text.append(0x09)
                case UInt8(ascii: "r"): text.append(0x0D)
                case UInt8(ascii: "b"): text.append(0x08)
                case UInt8(ascii: "f"): text.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.endIndex,
                          let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { throw Malformed() }
                    index += 4
                    text.append(contentsOf: Array(String(UnicodeScalar(code).map(Character.init) ?? "\u{FFFD}").utf8))
                default: text.append(escaped)
                }
            default: text.append(byte)
            }
        }
        throw Malformed()
    }

    mutating func integer() throws -> Int64 {
        skipSpaces()
        let start = index
        while index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || (0x30...0x39).contains(bytes[index]) { index += 1 }
        guard let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else { throw Malformed() }
        return value
    }

    /// Through an object's members or an array's elements, `each` taking one (the opening byte is
    /// at `index`).
    private mutating func elements(closing: UInt8, _ each: (inout JSONSkimmer) throws -> Void) throws {
        index += 1
        skipSpaces()
        if index < bytes.endIndex, bytes[index] == closing { index += 1; return }
        while true {
            try each(&self)
            skipSpaces()
            guard index < bytes.endIndex else { throw Malformed() }
            let separator = bytes[index]
            index += 1
            if separator == closing { return }
            guard separator == UInt8(ascii: ",") else { throw Malformed() }
        }
    }

    mutating func skipValue() throws {
        skipSpaces()
        guard index < bytes.endIndex else { throw Malformed() }
        switch bytes[index] {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"):
            try elements(closing: UInt8(ascii: "}")) { skimmer in
                try skimmer.skipString()
                try skimmer.expect(UInt8(ascii: ":"))
                try skimmer.skipValue()
            }
        case UInt8(ascii: "["):
            try elements(closing: UInt8(ascii: "]")) { skimmer in try skimmer.skipValue() }
        default:
            // A number or a literal: up to the next delimiter.
            scan: while index < bytes.endIndex {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: break scan
                default: index += 1
                }
            }
        }
    }
}

/// Drives every connection from one thread: each has one request in flight, as a real client
/// would; `poll` says which replies arrived.
final class LoadDriver: @unchecked Sendable {
    final class Connection {
        let descriptor: Int32
        let framing: BenchEndpoint.Framing
        /// Which server it talks to, and the replies it has had.
        var host = 0
        var answered = 0
        var walk: StatLockerWalk
        var buffer: [UInt8] = []
        var sentAt = ContinuousClock.now
        var done = false
        /// A pipelined reader's depth (nil for a walker), the session it reads, and when each
        /// request in flight was sent, oldest first.
        let depth: Int?
        var readSession: String?
        var inFlight: [ContinuousClock.Instant] = []

        init(descriptor: Int32, framing: BenchEndpoint.Framing, walk: StatLockerWalk, depth: Int? = nil) {
            self.descriptor = descriptor
            self.framing = framing
            self.walk = walk
            self.depth = depth
            buffer.reserveCapacity(1 << 17)
        }

        deinit { close(descriptor) }

        func send() throws {
            try write(framing.request(walk.nextRequest()))
            sentAt = ContinuousClock.now
        }

        /// Tops a pipelined reader up to its depth: the start of its session first, alone.
        func sendReads() throws {
            guard let depth else { return }
            guard let session = readSession else {
                if inFlight.isEmpty {
                    try write(framing.request(walk.nextRequest()))
                    inFlight.append(ContinuousClock.now)
                }
                return
            }
            var batch: [UInt8] = []
            while inFlight.count < depth {
                walk.requestID += 1
                let request: JSONValue = [
                    "jsonrpc": "2.0", "id": .int(walk.requestID), "method": "flow.get",
                    "params": ["tenant": "statlocker", "sessionId": .string(session)],
                ]
                batch += framing.request(request.serializedBytes())
                inFlight.append(ContinuousClock.now)
            }
            if !batch.isEmpty { try write(batch) }
        }

        /// Appends what arrived to `buffer`, read through `chunk` (one scratch buffer for every
        /// connection); false when the server closed the connection.
        func receive(using chunk: inout [UInt8]) -> Bool {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }

        func write(_ request: [UInt8]) throws {
            var offset = 0
            while offset < request.count {
                let written = request[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { throw CommandFailure("send failed: errno \(errno)") }
                offset += written
            }
        }
    }

    let connections: [Connection]
    /// Error replies and lost connections.
    let failures = Atomic<Int>(0)

    /// The connections, split round-robin among `endpoints` (one server each). Users are named
    /// after this run, so a database kept from an earlier run is walked by new users.
    init(endpoints: [BenchEndpoint], connections count: Int, pipelined: Int = 0, depth: Int = 16) throws {
        let run = String(UInt32.random(in: .min ... .max), radix: 36)
        func connection(_ number: Int, prefix: String, depth: Int?) throws -> Connection {
            let endpoint = endpoints[number % endpoints.count]
            let made = Connection(descriptor: try endpoint.connect(), framing: endpoint.framing, walk: StatLockerWalk(prefix: "\(run)-\(prefix)\(number)"), depth: depth)
            made.host = number % endpoints.count
            return made
        }
        connections = try (0..<count).map { try connection($0, prefix: "c", depth: nil) }
            + (0..<pipelined).map { try connection($0, prefix: "r", depth: depth) }
        hostCount = endpoints.count
    }

    let hostCount: Int

    /// Replies each server gave (every request it answered, walks and reads). Read after `run`.
    func answeredByHost() -> [Int] {
        var counts = Array(repeating: 0, count: hostCount)
        for connection in connections { counts[connection.host] += connection.answered }
        return counts
    }

    static func connect(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in Array(path.utf8).prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw CommandFailure("cannot connect to \(path): errno \(errno)")
        }
        return descriptor
    }

    /// Sends each connection's first request (a walker's `flow.start`, a reader's start of its
    /// session) and takes its reply, untimed; throws when one fails or none comes `within`.
    func warmUp(within limit: Duration) throws {
        let deadline = ContinuousClock.now + limit
        for connection in connections {
            try connection.write(connection.framing.request(connection.walk.nextRequest()))
        }
        var pending = Set(connections.indices)
        var polled = connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !pending.isEmpty {
            guard ContinuousClock.now < deadline else {
                throw CommandFailure("\(pending.count) of \(connections.count) connections had no answer to their first request within \(limit)")
            }
            guard Self.poll(&polled) else { throw CommandFailure("poll failed: errno \(errno)") }
            for index in pending where polled[index].revents != 0 {
                let connection = connections[index]
                guard connection.receive(using: &chunk) else { throw CommandFailure("the server closed a connection before its first answer") }
                guard let message = connection.framing.message(in: connection.buffer, from: connection.buffer.startIndex) else { continue }
                let reply = try? ReplySummary(line: connection.buffer[message.body])
                connection.buffer.removeSubrange(..<message.end)
                guard let reply, let session = reply.sessionId, connection.walk.accept(reply) else {
                    throw CommandFailure("the first request of a connection was refused")
                }
                if connection.depth != nil { connection.readSession = session }
                connection.answered += 1
                pending.remove(index)
            }
        }
    }

    /// Waits up to 100 ms for replies; false when `poll` itself failed.
    static func poll(_ polled: inout [pollfd]) -> Bool {
        for index in polled.indices { polled[index].revents = 0 }
        return Glibc.poll(&polled, nfds_t(polled.count), 100) >= 0 || errno == EINTR
    }

    /// Drives the connections (after ``warmUp(within:)``) until `deadline`, each request timed.
    func run(until deadline: ContinuousClock.Instant, recorder: LatencyRecorder, reads: LatencyRecorder = LatencyRecorder()) {
        func fail(_ connection: Connection) {
            failures.add(1, ordering: .relaxed)
            connection.done = true
            (connection.depth == nil ? recorder : reads).finish()
        }
        for connection in connections {
            do {
                if connection.depth == nil { try connection.send() } else { try connection.sendReads() }
            } catch { fail(connection) }
        }
        var polled = connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while connections.contains(where: { !$0.done }) {
            guard Self.poll(&polled) else { break }
            for (index, connection) in connections.enumerated() where !connection.done && polled[index].revents != 0 {
                guard connection.receive(using: &chunk) else { fail(connection); continue }
                if connection.depth != nil {
                    takeReads(connection, until: deadline, reads: reads, fail: fail)
                    continue
                }
                // One request in flight: a whole reply is the first message of the buffer.
                guard let message = connection.framing.message(in: connection.buffer, from: connection.buffer.startIndex) else { continue }
                let latency = ContinuousClock.now - connection.sentAt
                connection.answered += 1
                let reply = try? ReplySummary(line: connection.buffer[message.body])
                connection.buffer.removeAll(keepingCapacity: true)
                // Only what was acknowledged counts as a request (and in the latencies): an error
                // reply is a failure, however fast (-32008 while the database is away takes 1 ms).
                if reply.map({ !connection.walk.accept($0) }) ?? true {
                    failures.add(1, ordering: .relaxed)
                    if reply == nil { connection.walk.session = nil }
                } else {
                    recorder.record(latency)
                }
                if ContinuousClock.now >= deadline {
                    connection.done = true
                    recorder.finish()
                } else {
                    do { try connection.send() } catch { fail(connection) }
                }
            }
        }
        for connection in connections where !connection.done { fail(connection) }
    }

    /// A pipelined reader's replies: every whole line is one answered read; past the deadline it
    /// sends no more and is done once its last reply is in.
    func takeReads(
        _ connection: Connection, until deadline: ContinuousClock.Instant, reads: LatencyRecorder, fail: (Connection) -> Void
    ) {
        var start = connection.buffer.startIndex
        while let message = connection.framing.message(in: connection.buffer, from: start) {
            let line = connection.buffer[message.body]
            start = message.end
            connection.answered += 1
            guard !connection.inFlight.isEmpty else { continue }
            let sentAt = connection.inFlight.removeFirst()
            if connection.readSession == nil {
                // The start of its session: not a read.
                guard let reply = try? ReplySummary(line: line), let id = reply.sessionId else {
                    fail(connection)
                    return
                }
                connection.readSession = id
                continue
            }
            if line.starts(with: Array(#"{"error""#.utf8)) {
                failures.add(1, ordering: .relaxed)
            } else {
                reads.record(ContinuousClock.now - sentAt)
            }
        }
        connection.buffer.removeSubrange(..<start)
        if ContinuousClock.now >= deadline {
            if connection.inFlight.isEmpty {
                connection.done = true
                reads.finish()
            }
        } else {
            do { try connection.sendReads() } catch { fail(connection) }
        }
    }
}

/// This binary's server, started as a child process. Unchecked: it is made on a thread of its own
/// (its start waits for the socket) and then used by the bench's one task.
final class ChildServer: @unchecked Sendable {
    let process = Process()

    init(arguments: [String], environment: [String: String], endpoint: BenchEndpoint) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0].hasPrefix("/")
            ? CommandLine.arguments[0] : (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        process.arguments = arguments + endpoint.serveArguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<1000 where !endpoint.isListening() {
            Thread.sleep(forTimeInterval: 0.01)
        }
        guard endpoint.isListening() else { throw CommandFailure("the server did not start") }
    }

    /// Asks the child to stop without waiting for it.
    func terminate() {
        if process.isRunning { process.terminate() }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// User plus system CPU time the child has used, in microseconds.
    func cpuMicroseconds() -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, utime 14 and stime 15 (1-based, of the whole line).
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return 0 }
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return (user + system) * 1_000_000 / max(ticks, 1)
    }

    func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return line.split(separator: " ").compactMap { Int($0) }.first ?? 0
    }
}

enum BenchTransport: String, ExpressibleByArgument, CaseIterable, Sendable {
    case unix, http
}

/// Where the bench's server listens, and how its messages are framed there.
enum BenchEndpoint: Sendable {
    case unix(String)
    case http(port: Int)

    enum Framing: Sendable {
        /// One JSON-RPC message per line.
        case lines
        /// One POST /rpc per message on a keep-alive connection, its reply the response's body.
        case http

        /// The bytes that send one request, given its JSON text (a trailing newline is dropped).
        func request(_ json: [UInt8]) -> [UInt8] {
            switch self {
            case .lines:
                return json.last == 0x0A ? json : json + [0x0A]
            case .http:
                let body = json.last == 0x0A ? json.dropLast() : json[...]
                let head = "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                return Array(head.utf8) + body
            }
        }

        /// The first whole reply in `buffer` from `start`: its JSON's range and where it ends.
        func message(in buffer: [UInt8], from start: Int) -> (body: Range<Int>, end: Int)? {
            switch self {
            case .lines:
                guard let newline = buffer[start...].firstIndex(of: 0x0A) else { return nil }
                return (start..<newline, newline + 1)
            case .http:
                // The head ends at the first CRLF CRLF; its Content-Length says where the body
                // ends. Read from the bytes: the driver's CPU is taken from the server's machine.
                guard let headEnd = Self.headEnd(in: buffer, from: start),
                      let length = Self.contentLength(in: buffer[start..<headEnd])
                else { return nil }
                let bodyStart = headEnd + 4
                guard buffer.count >= bodyStart + length else { return nil }
                return (bodyStart..<(bodyStart + length), bodyStart + length)
            }
        }

        static func headEnd(in buffer: [UInt8], from start: Int) -> Int? {
            var index = start
            while index + 3 < buffer.count {
                if buffer[index] == 0x0D && buffer[index + 1] == 0x0A && buffer[index + 2] == 0x0D && buffer[index + 3] == 0x0A {
                    return index
                }
                index += 1
            }
            return nil
        }

        static let contentLengthName = Array("content-length:".utf8)

        static func contentLength(in head: ArraySlice<UInt8>) -> Int? {
            let name = contentLengthName
            var index = head.startIndex
            while index + name.count <= head.endIndex {
                // At a line start, a case-insensitive match of the header's name.
                if index == head.startIndex || head[index - 1] == 0x0A {
                    var matched = true
                    for offset in 0..<name.count where head[index + offset] | 0x20 != name[offset] {
                        matched = false
                        break
                    }
                    if matched {
                        var value = 0
                        var cursor = index + name.count
                        while cursor < head.endIndex, head[cursor] == 0x20 { cursor += 1 }
                        while cursor < head.endIndex, (0x30...0x39).contains(head[cursor]) {
                            value = value * 10 + Int(head[cursor] - 0x30)
                            cursor += 1
                        }
                        return value
                    }
                }
                index += 1
            }
            return nil
        }
    }

    var framing: Framing {
        switch self {
        case .unix: .lines
        case .http: .http
        }
    }

    var serveArguments: [String] {
        switch self {
        case .unix(let path): ["--unix", path]
        case .http(let port): ["--http", "127.0.0.1:\(port)", "--auth", "none"]
        }
    }

    func connect() throws -> Int32 {
        switch self {
        case .unix(let path): return try LoadDriver.connect(path)
        case .http(let port): return try Self.connectTCP(port: port)
        }
    }

    func isListening() -> Bool {
        switch self {
        case .unix(let path):
            // The file exists from bind on, a moment before the server listens: connect to know.
            guard FileManager.default.fileExists(atPath: path), let descriptor = try? LoadDriver.connect(path) else { return false }
            close(descriptor)
            return true
        case .http(let port):
            guard let descriptor = try? Self.connectTCP(port: port) else { return false }
            close(descriptor)
            return true
        }
    }

    static func connectTCP(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw CommandFailure("cannot connect to 127.0.0.1:\(port): errno \(errno)")
        }
        var yes: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        return descriptor
    }

    /// A port nothing listens on now (bound to 0 and released), for the child server.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw CommandFailure("cannot find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// pgbench's simple-update transactions per second (`pgbench -N`: one UPDATE, one INSERT and two
/// SELECTs per transaction, each a durable commit) on the bench's PostgreSQL database: the raw
/// rate a PostgreSQL store's requests are compared with. Its tables are made first (`pgbench -i`,
/// scale 1) and dropped after.
enum PgBench {
    static func simpleUpdatesPerSecond(url: String, clients: Int, transactions: Int) async throws -> Double {
        guard let pgbench = locate() else {
            throw CommandFailure("pgbench is not installed (Debian: the postgresql package's /usr/lib/postgresql/N/bin/pgbench, or postgresql-contrib); the PostgreSQL bench compares with it")
        }
        return try await BlockingWork.run("platformd.bench.pgbench") {
            _ = try run(pgbench, ["-i", "-s", "1", "-q", url])
            defer { _ = try? run(pgbench, ["-i", "-I", "d", url]) }
            // A count of transactions, not -T: pgbench ends a timed run on SIGALRM, which a child of
            // this process may inherit blocked (it then never stops).
            let perClient = max(100, transactions / clients)
            let output = try run(pgbench, ["-N", "-n", "-c", "\(clients)", "-j", "\(min(clients, 4))", "-t", "\(perClient)", url])
            // "tps = 1234.567890 (without initial connection time)"
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
                  let value = Double(line.dropFirst("tps = ".count).prefix { $0 != " " })
            else { throw CommandFailure("pgbench printed no rate:\n\(output)") }
            return value
        }
    }

    static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/pgbench" }
            + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin/pgbench" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs pgbench to its end (on the caller's thread, one of its own); its output, or why it failed.
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CommandFailure("pgbench \(arguments.first ?? "") failed (exit \(process.terminationStatus)):\n\(text)")
        }
        return text
    }
}
