import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The contract's connection limits, as an abusive client would meet them.
@Suite("Connection limits")
struct ConnectionLimitTests {
    @Test func connectionsBeyondTheLimitAreClosedAtOnce() async throws {
        try await SocketTests.withListening(.unix, extra: ["--max-connections", "2"]) { listening in
            let first = try listening.connect()
            let second = try listening.connect()
            try first.send(SocketTests.request(1))
            try second.send(SocketTests.request(2))
            #expect(try first.readReply()["id"] == 1)
            #expect(try second.readReply()["id"] == 2)
            let third = try listening.connect()
            try? third.send(SocketTests.request(3))
            #expect(try third.readLine() == nil)
            // The two admitted connections go on; once one leaves, a new one is admitted.
            try first.send(SocketTests.request(4))
            #expect(try first.readReply()["id"] == 4)
            second.finishWriting()
            #expect(try second.readLine() == nil)
            var admitted: SocketClient?
            for _ in 0..<100 where admitted == nil {
                let candidate = try listening.connect()
                try? candidate.send(SocketTests.request(5))
                if let line = try? candidate.readLine() {
                    admitted = candidate
                    #expect(line.contains("\"id\":5"))
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(admitted != nil)
            #expect(listening.server.stderrText.contains("--max-connections"))
        }
    }

    /// At the file descriptor limit a listener cannot accept; the server keeps its connection cap
    /// below the limit instead, so extra connections are closed at once and it stays responsive.
    @Test func aLowFileDescriptorLimitLowersTheCapAndTheServerKeepsServing() async throws {
        try await withTemporaryDirectory { directory in
            let socket = directory.appendingPathComponent("fd.sock").path
            let script = "ulimit -n 100 && exec \"$0\" serve --db :memory: --unix \"$1\""
            guard let binary = PlatformdProcess.binaryURL?.path else { return }
            let process = try ChildProcess("/bin/sh", arguments: ["-c", script, binary, socket], stdout: .null, stderr: .null)
            defer { process.send(SIGKILL) }
            for _ in 0..<500 where !FileManager.default.fileExists(atPath: socket) { try await Task.sleep(for: .milliseconds(20)) }
            try await Task.sleep(for: .milliseconds(100))
            var clients: [SocketClient] = []
            for _ in 0..<80 { clients.append(try SocketClient(unixPath: socket, timeoutSeconds: 10)) }
            // The admitted ones are answered; the others are closed.
            var answered = 0
            var closed = 0
            for (index, client) in clients.enumerated() {
                try? client.send(SocketTests.request(index))
                if (try? client.readLine()) ?? nil != nil { answered += 1 } else { closed += 1 }
            }
            #expect(answered == 36)
            #expect(closed == 44)
            clients.removeAll()
            try await Task.sleep(for: .milliseconds(300))
            let fresh = try SocketClient(unixPath: socket)
            try fresh.send(SocketTests.request(999))
            #expect(try fresh.readReply()["id"] == 999)
        }
    }

    @Test func anIdleConnectionIsClosed() async throws {
        try await SocketTests.withListening(.tcp, extra: ["--idle-timeout", "1"]) { listening in
            let idle = try listening.connect()
            try idle.send(SocketTests.request(1))
            #expect(try idle.readReply()["id"] == 1)
            // Nothing more is sent: the server closes it (the read returns end of stream well
            // before the client's own 30 s receive timeout).
            #expect(try idle.readLine() == nil)
        }
    }

    @Test func aPartialLineDoesNotKeepAConnectionOpenPastTheIdleTimeout() async throws {
        try await SocketTests.withListening(.unix, extra: ["--idle-timeout", "1"]) { listening in
            let client = try listening.connect()
            try client.write(Array(#"{"jsonrpc":"2.0","id":1,"#.utf8))
            #expect(try client.readLine() == nil)
        }
    }

    @Test func aLineDrippedOutByteByByteIsCutAfterTheLineTimeout() async throws {
        try await SocketTests.withListening(.unix, extra: ["--line-timeout", "1", "--idle-timeout", "30"]) { listening in
            let client = try listening.connect()
            let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"platform.info","params":{"padding":"xxxxxxxxxxxxxxxxxxxxxxxx"}}"#.utf8)
            var cut = false
            // One byte every 100 ms: never idle, never a whole line within the second allowed.
            for byte in line {
                guard (try? client.write([byte])) != nil else {
                    cut = true
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            if !cut { cut = (try client.readLine()) == nil }
            #expect(cut)
        }
    }

    /// A client that sends without ever reading is slowed down (the server stops reading it), so
    /// the server's memory stays put, and other clients are still answered.
    @Test func aClientThatNeverReadsCannotGrowTheServer() async throws {
        try await SocketTests.withListening(.unix) { listening in
            let probe = try listening.connect()
            try probe.send(SocketTests.request(0))
            #expect(try probe.readReply()["id"] == 0)
            let before = try #require(listening.server.residentKiB)
            let flooder = try listening.connect()
            let line = Array(
                (SocketTests.request(1, "flow.describe").replacingOccurrences(of: "\"method\"", with: "\"params\":{\"tenant\":\"\(Hosted.tenant)\"},\"method\"")
                    + "\n").utf8)
            var batch: [UInt8] = []
            for _ in 0..<200 { batch += line }
            var sent = 0
            var stalls = 0
            // Bounded: at most 64 MiB offered; stops once the server has stopped taking bytes for a while.
            while sent < 64 << 20, stalls < 50 {
                let taken = flooder.writeWithoutWaiting(batch)
                if taken == 0 {
                    stalls += 1
                    try await Task.sleep(for: .milliseconds(20))
                } else {
                    stalls = 0
                    sent += taken
                }
            }
            #expect(stalls >= 50, "the server kept reading \(sent) bytes without their replies being read")
            let after = try #require(listening.server.residentKiB)
            #expect(after - before < 48 * 1024, "resident memory grew from \(before) KiB to \(after) KiB")
            try probe.send(SocketTests.request(2))
            #expect(try probe.readReply()["id"] == 2)
        }
    }

    @Test func theUnixSocketIsCreatedForItsOwnerOnly() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("p.sock").path
            try await PlatformdProcess.with(["serve", "--db", ":memory:", "--unix", path]) { server in
                _ = try await SocketTests.listeningLine(server)
                var info = stat()
                #expect(stat(path, &info) == 0)
                #expect(info.st_mode & 0o777 == 0o600)
            }
        }
    }
}
