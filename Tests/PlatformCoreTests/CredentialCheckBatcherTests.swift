import Foundation
import PlatformStorage
import Synchronization
import Testing

@testable import PostgresStore

/// On PostgreSQL every request of a logged-in connection checks its key or token: concurrent
/// checks share one read, each is answered for its own, and a check never joins a read sent
/// before it.
@Suite("The credentials' checks on PostgreSQL, batched", .timeLimit(.minutes(5)))
struct CredentialCheckBatcherTests {
    /// Reads that answer from the keys active when they were sent, and are held until released.
    final class HeldReads: Sendable {
        let asked = Mutex<[[String]]>([])
        let active = Mutex<Set<String>>(["live", "other"])
        let gate = Mutex<[CheckedContinuation<Void, Never>]>([])

        func read(_ ids: [String]) async throws -> [String: Void] {
            let active = active.withLock { $0 }
            asked.withLock { $0.append(ids.sorted()) }
            await withCheckedContinuation { continuation in gate.withLock { $0.append(continuation) } }
            return Dictionary(uniqueKeysWithValues: ids.filter(active.contains).map { ($0, ()) })
        }

        func releaseOne() async throws {
            try await CredentialCheckBatcherTests.until { !self.gate.withLock { $0.isEmpty } }
            gate.withLock { $0.removeFirst() }.resume()
        }

        var readsSent: Int { asked.withLock { $0.count } }
    }

    /// Waits for `condition`, a guard against a hang rather than a bound on speed: at the start
    /// of a whole `swift test` run some 80 processes share two cores, and a task may wait tens of
    /// seconds for a thread.
    static func until(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(240)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test func checksArrivingDuringAReadShareTheNextAndSeeWhatChangedMeanwhile() async throws {
        let batcher = CredentialCheckBatcher<Void>()
        let reads = HeldReads()
        let read: CredentialCheckBatcher<Void>.Read = { try await reads.read($0) }
        // The first check's read is sent (with "live" active) and held.
        let first = Task { try await batcher.check("live", read: read) != nil }
        try await Self.until { reads.readsSent == 1 }
        // "live" is revoked now: the checks made after this must not be answered by that read.
        _ = reads.active.withLock { $0.remove("live") }
        let later = (0..<20).map { index in Task { try await batcher.check(["live", "other", "missing"][index % 3], read: read) != nil } }
        try await Self.until { batcher.waiting == 20 }
        #expect(reads.readsSent == 1, "no read was sent for them while one was running")
        try await reads.releaseOne()
        #expect(try await first.value, "the first check was answered by its own read, sent before the revocation")
        try await reads.releaseOne()
        var answers: [Bool] = []
        for task in later { answers.append(try await task.value) }
        #expect(answers == (0..<20).map { $0 % 3 == 1 }, "only \"other\" is still active")
        #expect(reads.asked.withLock { $0 } == [["live"], ["live", "missing", "other"]], "one read for the twenty, each id once")
        #expect(batcher.counts.withLock { $0.reads } == 2)
    }

    @Test func aFailedReadFailsItsChecksAndTheNextReadStillRuns() async throws {
        let batcher = CredentialCheckBatcher<String>()
        struct Down: Error {}
        await #expect(throws: Down.self) { try await batcher.check("live") { _ in throw Down() } }
        #expect(try await batcher.check("live") { ids in Dictionary(uniqueKeysWithValues: ids.map { ($0, $0.uppercased()) }) } == "LIVE")
    }
}
