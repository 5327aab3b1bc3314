import Foundation
import PlatformStorage

/// pgbench's simple-update transactions per second (`pgbench -N`: one UPDATE, one INSERT and two
/// SELECTs per transaction, each a durable commit) on the bench's PostgreSQL database: the raw
/// rate a PostgreSQL store's requests are compared with. Its tables are made first (`pgbench -i`,
/// scale 1) and dropped after.
enum PgBench {
    static func simpleUpdatesPerSecond(url: String, clients: Int, transactions: Int) async throws -> Double {
        guard let pgbench = locate() else {
            throw BenchFailure(
                "pgbench is not installed (Debian: the postgresql package's /usr/lib/postgresql/N/bin/pgbench, or postgresql-contrib); the PostgreSQL bench compares with it"
            )
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
            else { throw BenchFailure("pgbench printed no rate:\n\(output)") }
            return value
        }
    }

    static func locate() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates =
            path.split(separator: ":").map { "\($0)/pgbench" }
            + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted().reversed().map {
                "/usr/lib/postgresql/\($0)/bin/pgbench"
            }
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
            throw BenchFailure("pgbench \(arguments.first ?? "") failed (exit \(process.terminationStatus)):\n\(text)")
        }
        return text
    }
}
