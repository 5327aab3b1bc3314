import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes held for lines not yet whole are bounded over all connections together
/// (`--max-buffered-bytes`, contract version 3, "Limits and operations, continued").
@Suite("Partial lines are bounded over all connections")
struct PartialLineBudgetTests {
    /// Opens `count` connections and sends each `bytes` bytes of one line that never ends, from a
    /// thread of its own; returns how many the server closed before they had sent it all.
    static func holdPartialLines(socket: String, count: Int, bytes: Int) async throws -> (closed: Int, holding: [Int32]) {
        try await BlockingWork.run("partial-lines") {
            var descriptors: [Int32] = []
            for _ in 0..<count { descriptors.append(try SocketClient.connectedDescriptor(unixPath: socket)) }
            let prefix = Array(#"{"jsonrpc":"2.0","id":1,"method":"platform.info","params":{"pad":""#.utf8)
            let line = prefix + [UInt8](repeating: UInt8(ascii: "x"), count: bytes - prefix.count)
            var sent = Array(repeating: 0, count: count)
            var closed = Array(repeating: false, count: count)
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                let pending = (0..<count).filter { !closed[$0] && sent[$0] < bytes }
                guard !pending.isEmpty else { break }
                var watched = pending.map { pollfd(fd: descriptors[$0], events: Int16(POLLOUT), revents: 0) }
                guard poll(&watched, nfds_t(watched.count), 200) > 0 else { continue }
                for (index, entry) in zip(pending, watched) where entry.revents != 0 {
                    let written = line[sent[index]...].withUnsafeBytes {
                        send(descriptors[index], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                    }
                    if written > 0 {
                        sent[index] += written
                    } else if errno != EAGAIN && errno != EINTR {
                        closed[index] = true
                    }
                }
            }
            // A connection whose whole line went out before the server chose it is closed too
            // when the server reads on: look for its EOF.
            for index in 0..<count where !closed[index] {
                var watched = [pollfd(fd: descriptors[index], events: Int16(POLLIN), revents: 0)]
                if poll(&watched, 1, 0) > 0 && watched[0].revents & Int16(POLLHUP | POLLIN | POLLERR) != 0 {
                    closed[index] = true
                }
            }
            for index in 0..<count where closed[index] { close(descriptors[index]) }
            return (closed.filter { $0 }.count, (0..<count).filter { !closed[$0] }.map { descriptors[$0] })
        }
    }

    /// A blocking client's calls, on a thread of their own (never on the test's cooperative pool).
    static func off<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingWork.run("test-client", body)
    }

    static func withServer<T>(_ extra: [String] = [], _ body: (PlatformdProcess, String) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { directory in
            let socket = directory.appendingPathComponent("p.sock").path
            return try await PlatformdProcess.with(["serve", "--db", ":memory:", "--unix", socket] + extra) { server in
                _ = try await SocketTests.listeningLine(server)
                return try await body(server, socket)
            }
        }
    }

    @Test("300 connections holding a 1 MB partial line each: the server grows less than 100 MB and keeps answering")
    func manyPartialLinesStayWithinTheBudget() async throws {
        try #require(await Python.has("select"), "python3 holds the 300 connections in a process of its own")
        try await Self.withServer { server, socket in
            let fresh = try SocketClient(unixPath: socket, timeoutSeconds: 10)
            #expect(try await Self.off { try fresh.request(SocketTests.request(1)) }["result"] != nil)
            let before = try #require(server.residentKiB)

            // The 300 connections live in a process of their own (Scripts/partial_lines.py).
            try await PlatformdProcess.with(
                ["python3", Python.script("partial_lines.py").path, socket, "300", "1000000"], executable: URL(fileURLWithPath: "/usr/bin/env")
            ) { holder in
                let ready = try await holder.readLine(timeout: .seconds(120))
                let numbers = ready.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
                let (closed, holding) = (numbers.first ?? -1, numbers.last ?? -1)
                // Whatever is still being read settles.
                try await Task.sleep(for: .milliseconds(300))
                let after = try #require(server.residentKiB)
                let grownMiB = Double(after - before) / 1024
                print("300 x 1 MB partial lines: the server grew \(Int(grownMiB)) MiB; \(closed) connections closed, \(holding) kept")
                #expect(grownMiB < 100, "the server grew by \(grownMiB) MiB (\(ready))")
                // 300 MB asked for, 64 MiB allowed: most connections were closed, and some were kept.
                #expect(closed >= 200, "\(ready)")
                #expect(holding > 0, "every connection was closed, not only the largest: \(ready)")
                #expect(server.stderrText.contains("holding the largest partial lines"))

                // A client whose lines are whole is answered, on an old connection and a new one.
                #expect(try await Self.off { try fresh.request(SocketTests.request(2)) }["id"] == 2)
                let another = try SocketClient(unixPath: socket, timeoutSeconds: 10)
                #expect(try await Self.off { try another.request(SocketTests.request(3)) }["result"] != nil)
                try holder.closeStdin()
                _ = try await holder.waitForExit()
            }
        }
    }

    @Test("past the budget, the largest partial lines go first; whole lines are never closed for it")
    func largestHoldersAreClosedFirst() async throws {
        // 3 MB allowed: three connections holding ~1 MB each would pass it with a fourth.
        try await Self.withServer(["--max-buffered-bytes", "3000000"]) { server, socket in
            let pipelining = try SocketClient(unixPath: socket, timeoutSeconds: 10)
            let small = try await Self.holdPartialLines(socket: socket, count: 2, bytes: 1000)
            defer { small.holding.forEach { close($0) } }
            #expect(small.closed == 0)
            let large = try await Self.holdPartialLines(socket: socket, count: 6, bytes: 900_000)
            defer { large.holding.forEach { close($0) } }
            #expect(large.closed >= 3, "\(large.closed) of 6 large holders closed")
            // The small holders are not chosen while larger ones hold more.
            for fd in small.holding {
                var watched = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
                #expect(poll(&watched, 1, 0) == 0, "a connection holding 1 kB was closed")
            }
            // Pipelined whole lines are all answered.
            let replies = try await Self.off {
                try pipelining.write(Array((1...50).map { SocketTests.request($0) }.joined(separator: "\n").utf8) + [0x0A])
                return try (1...50).map { _ in try pipelining.readReply()["id"] ?? .null }
            }
            #expect(replies == (1...50).map { .int(Int64($0)) })
            _ = server
        }
    }
}
