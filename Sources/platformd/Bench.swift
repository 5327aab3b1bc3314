import ArgumentParser
import Foundation
import PlatformCore
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
            Starts `platformd serve --unix` as a child process on a temporary directory, opens --connections \
            connections, each walking StatLocker users to completion (13 requests a user, one in flight at \
            a time) for --seconds, then prints requests/s, p50/p99/p99.9 latency, the server's CPU time per \
            request (from its own accounting), its resident memory, and the ratio of acknowledged requests/s \
            to one-row durable SQLite commits/s measured in the same directory. A progress line goes to stderr.
            """)

    @Option(help: "Concurrent connections.") var connections = 16
    @Option(help: "How long to drive load, in seconds.") var seconds = 10.0
    @Option(help: "Completed sessions to store first (in bulk), to compare costs at 1 k and 1 M.") var preload = 0
    @Option(help: "Where to put the temporary socket and database (default: a new directory under /tmp).") var directory: String?
    @Flag(help: "Print the results as one JSON object.") var json = false

    func validate() throws {
        guard (1...1024).contains(connections) else { throw ValidationError("--connections must be 1-1024") }
        guard seconds > 0 else { throw ValidationError("--seconds must be positive") }
        guard preload >= 0 else { throw ValidationError("--preload must not be negative") }
    }

    func run() async throws {
        let base = URL(fileURLWithPath: directory ?? "/tmp/platformd-bench-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(at: base) } }
        let db = base.appendingPathComponent("bench.sqlite").path
        let socket = base.appendingPathComponent("bench.sock").path

        progress("measuring raw one-row commits (WAL, synchronous=FULL) for 2 s")
        let rawCommits = try SQLiteBench.rawCommitsPerSecond(in: base, seconds: 2)

        if preload > 0 {
            progress("storing \(preload) completed sessions")
            let store = try SQLiteSessionStore(path: db)
            try await store.preloadCompletedSessions(count: preload, tenant: "statlocker", flow: "onboarding", at: Date())
            try await store.close()
        }

        let server = try ChildServer(arguments: ["serve", "--db", db, "--unix", socket, "--log-level", "warning"], socket: socket)
        defer { server.stop() }
        let cpuBefore = server.cpuMicroseconds()

        let recorder = LatencyRecorder()
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let started = ContinuousClock.now
        let failures = Atomic<Int>(0)
        let threads = (0..<connections).map { number in
            Thread {
                do {
                    let client = try LineClient(unixPath: socket)
                    var walk = StatLockerWalk(prefix: "c\(number)")
                    while ContinuousClock.now < deadline {
                        let request = walk.nextRequest()
                        let sent = ContinuousClock.now
                        let reply = try client.call(request)
                        recorder.record(ContinuousClock.now - sent)
                        if !walk.accept(reply) { failures.add(1, ordering: .relaxed) }
                    }
                } catch {
                    failures.add(1, ordering: .relaxed)
                }
                recorder.finish()
            }
        }
        threads.forEach { $0.start() }
        while recorder.finished < connections {
            try await Task.sleep(for: .milliseconds(recorder.finished > 0 || ContinuousClock.now >= deadline ? 20 : 1000))
            let elapsed = (ContinuousClock.now - started).seconds
            if recorder.finished == 0 {
                progress(String(format: "%.0f s: %d requests, %.0f/s", elapsed, recorder.count, Double(recorder.count) / max(elapsed, 0.001)))
            }
        }
        let elapsed = ((recorder.lastFinish ?? ContinuousClock.now) - started).seconds
        let cpu = server.cpuMicroseconds() - cpuBefore
        let rss = server.residentKiB()
        let latencies = recorder.sorted()
        let requests = latencies.count
        let rate = Double(requests) / elapsed
        func percentile(_ fraction: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int((Double(latencies.count) * fraction).rounded(.down)))] * 1000
        }
        let result: [(String, JSONValue)] = [
            ("connections", .int(Int64(connections))), ("seconds", .double(elapsed.rounded(to: 2))),
            ("preloadedSessions", .int(Int64(preload))), ("requests", .int(Int64(requests))),
            ("failures", .int(Int64(failures.load(ordering: .relaxed)))),
            ("requestsPerSecond", .double(rate.rounded(to: 1))),
            ("p50Ms", .double(percentile(0.5).rounded(to: 3))), ("p99Ms", .double(percentile(0.99).rounded(to: 3))),
            ("p999Ms", .double(percentile(0.999).rounded(to: 3))),
            ("serverCpuMicrosecondsPerRequest", .double((Double(cpu) / Double(max(requests, 1))).rounded(to: 1))),
            ("serverResidentMiB", .double((Double(rss) / 1024).rounded(to: 1))),
            ("rawCommitsPerSecond", .double(rawCommits.rounded(to: 1))),
            ("ackedToRawCommitRatio", .double((rate / max(rawCommits, 1)).rounded(to: 3))),
        ]
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
    var view: JSONValue?
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
        if let view, step < Self.answers.count {
            request = [
                "jsonrpc": "2.0", "id": .int(requestID), "method": "flow.submit",
                "params": [
                    "tenant": "statlocker", "sessionId": view["sessionId"] ?? .null, "stepId": view["step"]?["id"] ?? .null,
                    "revision": view["revision"] ?? .null, "values": Self.answers[step],
                ],
            ]
        } else {
            user += 1
            step = 0
            view = nil
            request = [
                "jsonrpc": "2.0", "id": .int(requestID), "method": "flow.start",
                "params": ["tenant": "statlocker", "userId": .string("\(prefix)-u\(user)"), "user": ["firstName": "Bench"]],
            ]
        }
        return request.serializedBytes() + [0x0A]
    }

    /// Takes the reply; false when it was an error (the walk starts a new user then).
    mutating func accept(_ reply: JSONValue) -> Bool {
        guard let result = reply["result"] else {
            step = Self.answers.count
            return false
        }
        if view != nil { step += 1 }
        view = result["status"] == "completed" ? nil : result
        if view == nil { step = Self.answers.count }
        return true
    }
}

/// A blocking line client over a Unix socket.
final class LineClient {
    let descriptor: Int32
    var buffer: [UInt8] = []

    init(unixPath: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in Array(unixPath.utf8).prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw ValidationError("cannot connect to \(unixPath): errno \(errno)") }
    }

    deinit { close(descriptor) }

    func call(_ request: [UInt8]) throws -> JSONValue {
        var offset = 0
        while offset < request.count {
            let written = request[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw ValidationError("send failed: errno \(errno)") }
            offset += written
        }
        var scanned = 0
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return try JSONValue.parse(line)
            }
            scanned = buffer.count
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw ValidationError("the server closed the connection") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

/// This binary's server, started as a child process.
final class ChildServer {
    let process = Process()

    init(arguments: [String], socket: String) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0].hasPrefix("/")
            ? CommandLine.arguments[0] : (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<1000 where !FileManager.default.fileExists(atPath: socket) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        guard FileManager.default.fileExists(atPath: socket) else { throw ValidationError("the server did not start") }
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
