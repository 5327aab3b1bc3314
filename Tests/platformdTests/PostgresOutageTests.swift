import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A serving host whose PostgreSQL goes away and comes back (a TCP proxy in between is cut and
/// restored): requests are refused with -32008 within a second while it is away, readiness says
/// 503, and the host serves again by itself once the database is back.
@Suite("platformd: PostgreSQL going away under a serving host")
struct PostgresOutageTests {
    /// `Scripts/tcp_proxy.py` in a process of its own.
    final class Proxy: @unchecked Sendable {
        let process: ChildProcess
        let output = Pipe()
        let input = Pipe()
        final class Lines: Sendable {
            let value = Mutex<[String]>([])
        }
        let lines = Lines()
        private(set) var port = 0

        init(targetHost: String, targetPort: Int) throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/tcp_proxy.py").path
            process = try ChildProcess(
                "/usr/bin/env", arguments: ["python3", script, targetHost, "\(targetPort)"],
                stdin: .descriptor(input.fileHandleForReading.fileDescriptor),
                stdout: .descriptor(output.fileHandleForWriting.fileDescriptor))
            try input.fileHandleForReading.close()
            try output.fileHandleForWriting.close()
            let handle = output.fileHandleForReading
            handle.readabilityHandler = { [lines] handle in
                let text = String(decoding: handle.availableData, as: UTF8.self)
                lines.value.withLock { $0 += text.split(separator: "\n").map(String.init) }
            }
        }

        func waitFor(_ prefix: String) async throws -> String {
            for _ in 0..<500 {
                if let line = lines.value.withLock({ $0.last { $0.hasPrefix(prefix) } }) { return line }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw PlatformdProcess.Failure(description: "the proxy never printed \(prefix)")
        }

        func start() async throws {
            let line = try await waitFor("port ")
            port = Int(line.dropFirst("port ".count)) ?? 0
        }

        func cut() async throws {
            lines.value.withLock { $0.removeAll() }
            input.fileHandleForWriting.write(Data("down\n".utf8))
            _ = try await waitFor("down")
        }

        func restore() async throws {
            lines.value.withLock { $0.removeAll() }
            input.fileHandleForWriting.write(Data("up\n".utf8))
            _ = try await waitFor("up")
        }

        func stop() {
            output.fileHandleForReading.readabilityHandler = nil
            try? input.fileHandleForWriting.close()
            process.terminate()
        }
    }

    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["PLATFORMD_TEST_POSTGRES_URL"]?.isEmpty == false,
            "needs PLATFORMD_TEST_POSTGRES_URL (.ci/run starts a PostgreSQL)"))
    func requestsAreRefusedBeforeTheOperationTimeoutWhileTheDatabaseIsAwayAndServedWhenItReturns() async throws {
        guard let url = PostgresHostsTests.url, var components = URLComponents(string: url),
            let host = components.host, let port = components.port ?? 5432 as Int?
        else { return }
        let proxy = try Proxy(targetHost: host, targetPort: port)
        defer { proxy.stop() }
        try await proxy.start()
        components.host = "127.0.0.1"
        components.port = proxy.port
        let proxied = try #require(components.string)
        // Reads only (a user with no session is -32002 while the database answers): other tests
        // compare whole funnels of this shared database.
        let tenant = Hosted.tenant
        let user = "outage-\(UUID().uuidString.prefix(8))"

        try await HTTPServing.with(["--db", proxied, "--http", "127.0.0.1:0", "--auth", "none", "--db-pool-size", "4"]) { http in
            let before = try await http.call("flow.get", ["tenant": .string(tenant), "userId": .string(user)])
            #expect(before["error"]?["code"] == -32002, "\(before.serialized())")
            #expect(try await http.request(.GET, "/health/ready").status == 200)

            try await proxy.cut()
            // Every request while it is away: -32008 within a second (the server waits 350 ms for a
            // pooled connection, then one refused probe ends the wait; the next ones are refused at
            // once), not after the 10 s operation timeout as before. Alone this test measures
            // 0.35 s for the first and under 3 ms for the rest; beside the whole suite on 2 cores
            // every HTTP request of every test has taken a second and more (5.5 s once, 2.7 s for
            // the fastest of five in a fresh-clone CI run; the slowest of five 9.07 s in another),
            // so it asserts only what tells the two apart: the fastest refusal comes well before
            // the 10 s operation timeout that every request waited for before. How fast is the
            // bench's business, not a timed test's.
            var took: [Duration] = []
            for _ in 0..<5 {
                let began = ContinuousClock.now
                let answer = try await http.call("flow.get", ["tenant": .string(tenant), "userId": .string(user)])
                took.append(ContinuousClock.now - began)
                #expect(answer["error"]?["code"] == -32008, "\(answer.serialized())")
            }
            took.sort()
            print("-32008 while the database was away, fastest to slowest, as the test saw them: \(took)")
            // Timed by the server (its `/metrics` histogram), not by the test: a starved test
            // process saw the fastest of five at 9.04 s in one fresh-clone CI run. The request
            // before the cut and at least one refusal took at most 5 s; before, every refusal
            // waited the 10 s operation timeout.
            let metrics = try await http.request(.GET, "/metrics").text
            let withinFiveSeconds = Self.flowGetsWithin(seconds: 5, metrics)
            #expect(withinFiveSeconds >= 2, "flow.get requests answered within 5 s: \(withinFiveSeconds); the test saw \(took)")
            let unready = try await http.request(.GET, "/health/ready")
            #expect(unready.status == 503)
            #expect(unready.json?["status"] == "unavailable")

            try await proxy.restore()
            var served: JSONValue?
            for _ in 0..<150 {
                let answer = try await http.call("flow.get", ["tenant": .string(tenant), "userId": .string(user)])
                if answer["error"]?["code"] != -32008 {
                    served = answer
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(served?["error"]?["code"] == -32002, "never served again after the database returned: \(served?.serialized() ?? "-32008 throughout")")
            #expect(try await http.request(.GET, "/health/ready").status == 200)
        }
    }

    /// How many `flow.get` requests the server answered within `seconds`, from its request
    /// duration histogram (`platformd_request_duration_seconds_bucket{method="flow.get",le=…}`).
    static func flowGetsWithin(seconds: Double, _ metrics: String) -> Int {
        for line in metrics.split(separator: "\n") where line.hasPrefix("platformd_request_duration_seconds_bucket{") {
            guard line.contains(#"method="flow.get""#), let le = line.range(of: #"le=""#) else { continue }
            let bound = line[le.upperBound...].prefix { $0 != "\"" }
            guard Double(bound) == seconds, let count = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            return Int(count)
        }
        return 0
    }
}
