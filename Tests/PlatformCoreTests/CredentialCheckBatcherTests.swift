import Foundation
import PlatformStorage
import Synchronization
import Testing

@testable import PostgresStore

/// On PostgreSQL every request of a logged-in connection checks its key or token: concurrent
/// checks share one read, each is answered for its own, and a check never joins a read sent
/// before it.
@Suite("The credentials' checks on PostgreSQL, batched")
struct CredentialCheckBatcherTests {
    /// A read held until told to answer, recording the ids each read asked for.
    final class HeldReads: Sendable {
        let asked = Mutex<[[String]]>([])
        let active = Mutex<Set<String>>(["live", "other"])
        let gate = Mutex<[CheckedContinuation<Void, Never>]>([])

        func read(_ ids: [String]) async throws -> [String: Void] {
            asked.withLock { $0.append(ids.sorted()) }
            await withCheckedContinuation { continuation in gate.withLock { $0.append(continuation) } }
            let active = active.withLock { $0 }
            return Dictionary(uniqueKeysWithValues: ids.filter(active.contains).map { ($0, ()) })
        }

        func releaseOne() async {
            while true {
                if let waiting = gate.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return waiting.resume() }
                await Task.yield()
            }
        }

        var readsSent: Int { asked.withLock { $0.count } }
    }

    @Test func checksArrivingDuringAReadShareTheNextAndEachGetsItsOwnAnswer() async throws {
        let batcher = CredentialCheckBatcher<Void>()
        let reads = HeldReads()
        let read: CredentialCheckBatcher<Void>.Read = { try await reads.read($0) }
        // The first check's read is sent and held.
        let first = Task { try await batcher.check("live", read: read) != nil }
        while reads.readsSent < 1 { await Task.yield() }
        // Checks arriving now wait for the next read: the one sent may predate a revocation.
        _ = reads.active.withLock { $0.remove("other") }
        let later = (0..<20).map { index in Task { try await batcher.check(["live", "other", "missing"][index % 3], read: read) != nil } }
        // Time for any of them to (wrongly) be sent on.
        try await Task.sleep(for: .milliseconds(50))
        #expect(reads.readsSent == 1, "no check joined the read already sent")
        await reads.releaseOne()
        #expect(try await first.value)
        await reads.releaseOne()
        var answers: [Bool] = []
        for task in later { answers.append(try await task.value) }
        #expect(answers == (0..<20).map { $0 % 3 == 0 })
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
