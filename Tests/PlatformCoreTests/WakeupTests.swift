import Foundation
import PlatformStorage
import Synchronization
import Testing

@testable import SQLiteStore

/// The store's background loops wait on a `Wakeup` instead of polling every 50 ms. A wait that
/// should be woken has an hour's period: were the wake lost, the time limit fails the test (no
/// wall-clock bound here: a full run on two cores stalls a test for a minute at times).
@Suite(.timeLimit(.minutes(5))) struct WakeupTests {
    @Test func aRingBeforeTheWaitIsNotLost() async {
        let wakeup = Wakeup()
        wakeup.ring()
        wakeup.ring()
        #expect(await wakeup.wait(upTo: .seconds(60)))
        // Both rings were one: the next wait times out.
        #expect(await !wakeup.wait(upTo: .milliseconds(20)))
    }

    @Test func aRingWakesAParkedWait() async {
        let wakeup = Wakeup()
        async let woken = wakeup.wait(upTo: .seconds(3600))
        try? await Task.sleep(for: .milliseconds(50))
        wakeup.ring()
        #expect(await woken, "woken by the ring, not the hour")
    }

    @Test func thePeriodEndsAWaitNobodyRings() async {
        let wakeup = Wakeup(rung: true)
        #expect(await wakeup.wait(upTo: .seconds(60)), "rung at first")
        #expect(await !wakeup.wait(upTo: .milliseconds(30)))
    }

    @Test func cancellingTheTaskEndsItsWait() async {
        let wakeup = Wakeup()
        let waiting = Task { await wakeup.wait(upTo: .seconds(3600)) }
        try? await Task.sleep(for: .milliseconds(30))
        waiting.cancel()
        #expect(await !waiting.value)
        // Cancelled before it waits: it does not park at all.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await wakeup.wait(upTo: .seconds(3600))
        }
        #expect(await !early.value)
    }

    /// Rings from many tasks while a loop waits and consumes: every ring is seen by a wait that
    /// returns after it (none is lost), and no wait hangs.
    final class Counts: Sendable {
        let rung = Atomic<Int>(0)
        let seen = Atomic<Int>(0)
    }

    @Test func ringsFromManyTasksAreNeverLost() async {
        let wakeup = Wakeup()
        let counts = Counts()
        let consumer = Task {
            while !Task.isCancelled {
                // What was rung before a wait that saw a ring is all in the count read after it.
                if await wakeup.wait(upTo: .seconds(3600)) { counts.seen.store(counts.rung.load(ordering: .acquiring), ordering: .releasing) }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    for _ in 0..<100 {
                        counts.rung.add(1, ordering: .releasing)
                        wakeup.ring()
                        await Task.yield()
                    }
                }
            }
        }
        // The last ring is never lost: the consumer, parked or not, sees it without another.
        while counts.seen.load(ordering: .acquiring) < 1000 { try? await Task.sleep(for: .milliseconds(10)) }
        consumer.cancel()
        #expect(counts.seen.load(ordering: .acquiring) == 1000)
    }

    /// An idle store's loops sleep: half a second of nothing wakes neither the checkpointer nor
    /// the folder more than once (their 50 ms polls woke each ten times; once is the folder's
    /// 10 s sweep, should a stalled run put the window across it).
    @Test func anIdleStoresLoopsSleep() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("idle.sqlite").path)
        let checkpointer = try #require(store.checkpointer)
        let folder = try #require(store.folder)
        // The folder's first fold (rung at the start: what a stopped process left) comes first.
        while folder.wakes.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let before = (checkpointer.wakes.load(ordering: .relaxed), folder.wakes.load(ordering: .relaxed))
        try await Task.sleep(for: .milliseconds(500))
        #expect(checkpointer.wakes.load(ordering: .relaxed) - before.0 <= 1)
        #expect(folder.wakes.load(ordering: .relaxed) - before.1 <= 1)
        // A commit wakes the checkpointer.
        _ = try await store.updateSession(tenant: "t1", key: .user(userId: "u1", flow: "f")) { _ in
            (SessionCommit(state: sampleState(), events: []), ())
        }
        while checkpointer.wakes.load(ordering: .relaxed) == before.0 { try await Task.sleep(for: .milliseconds(10)) }
        try await store.close()
    }
}
