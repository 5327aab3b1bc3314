import Foundation
import GRDB
import PlatformTesting
import Synchronization
import Testing

@testable import PlatformCore
@testable import PlatformServer
@testable import PlatformStorage
@testable import SQLiteStore

/// The group committer on its own: a batch with no failure runs once, with no savepoints; a write
/// that fails after writing has its batch run again with a savepoint each, so it rolls back alone.
@Suite struct GroupCommitterTests {
    struct Refused: Error {}

    @Test func aFailingWriteRollsBackOnlyItsOwnRows() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { try $0.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        let committer = GroupCommitter(writer: queue)
        // The writer held for a moment, so the writes queue up and share batches.
        let held = Task { try await queue.writeWithoutTransaction { _ in Thread.sleep(forTimeInterval: 0.2) } }
        try await Task.sleep(for: .milliseconds(50))
        let results = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<50 {
                group.addTask {
                    do {
                        try await committer.write { db in
                            try db.execute(sql: "INSERT INTO t (id) VALUES (?)", arguments: [index])
                            if index % 5 == 0 { throw Refused() }
                        }
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        try await held.value
        let rows = try await queue.read { try Int.fetchAll($0, sql: "SELECT id FROM t") }
        #expect(rows.count == 40, "each kept write once, though its batch ran twice")
        #expect(Set(rows) == Set((0..<50).filter { $0 % 5 != 0 }))
        #expect(results.filter { !$0.value }.keys.sorted() == (0..<50).filter { $0 % 5 == 0 })
        let counts = committer.counts.withLock { $0 }
        #expect(counts.writes == 50)
        #expect(counts.transactions < 50)
        #expect(counts.retried >= 1, "a batch with a failing write ran again")
    }

    @Test func aBatchWithNoFailureRunsOnceWithNoSavepoint() async throws {
        let queue = try DatabaseQueue()
        let statements = Mutex<[String]>([])
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)")
            db.trace { event in statements.withLock { $0.append("\(event)") } }
        }
        let committer = GroupCommitter(writer: queue)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try? await committer.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (?)", arguments: [index]) }
                }
            }
        }
        #expect(try await queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 50)
        let counts = committer.counts.withLock { $0 }
        #expect(counts.writes == 50)
        #expect(counts.retried == 0)
        let savepoints = statements.withLock { $0 }.filter { $0.uppercased().contains("SAVEPOINT") }
        #expect(savepoints.isEmpty, "\(savepoints.prefix(3))")
    }

    /// A transaction that cannot begin (another connection holds the database's write lock past
    /// the busy timeout) fails its batch once: it is not a job's failure, so it is not run again
    /// and waited out twice.
    @Test func aLockHeldElsewhereFailsTheBatchOnceWithoutARetry() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("busy.sqlite").path
        var configuration = Configuration()
        configuration.busyMode = .timeout(0.2)
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try await queue.write { try $0.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        let holder = try DatabaseQueue(path: path)
        let committer = GroupCommitter(writer: queue)
        let failures = try await holder.writeWithoutTransaction { held in
            try held.execute(sql: "BEGIN EXCLUSIVE")
            defer { try? held.execute(sql: "ROLLBACK") }
            // On a thread of its own: this closure holds the holder's queue, and the writes
            // below must not wait on a cooperative thread it blocks.
            return BlockingWrites.run(committer, count: 3)
        }
        #expect(failures == 3)
        #expect(committer.counts.withLock { $0.retried } == 0)
    }

    /// The batch after a commit starts on the writer's own thread: a cooperative pool kept busy
    /// (a loaded server's requests) does not leave the writer idle between batches. This failed
    /// while a task on the pool took each next batch: it waited for a free thread.
    @Test func theNextBatchRunsWhileEveryPoolThreadIsBusy() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { try $0.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        let committer = GroupCommitter(writer: queue)
        let firstRunning = Flag()
        let released = Flag()
        let secondRan = Flag()
        let first = Task {
            try await committer.write { db in
                firstRunning.set()
                // The writer's thread, not the pool's: held until a thread of the test's own lets it go.
                while !released.isSet { usleep(1_000) }
                try db.execute(sql: "INSERT INTO t (id) VALUES (1)")
            }
        }
        while !firstRunning.isSet { try await Task.sleep(for: .milliseconds(5)) }
        let second = Task {
            try await committer.write { db in
                secondRan.set()
                try db.execute(sql: "INSERT INTO t (id) VALUES (2)")
            }
        }
        while committer.waiting == 0 { try await Task.sleep(for: .milliseconds(5)) }
        let spinUntil = Date().addingTimeInterval(5)
        let spinners = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            Task.detached {
                // Holds a cooperative thread on purpose (bounded): the condition this test is about.
                while !secondRan.isSet && Date() < spinUntil {}
                return secondRan.isSet
            }
        }
        Thread {
            Thread.sleep(forTimeInterval: 0.1)
            released.set()
        }.start()
        var ranWhileBusy = true
        for spinner in spinners where !(await spinner.value) { ranWhileBusy = false }
        #expect(ranWhileBusy, "the second batch waited for a cooperative thread")
        try await first.value
        try await second.value
        #expect(try await queue.read { try Int.fetchAll($0, sql: "SELECT id FROM t ORDER BY id") } == [1, 2])
    }
}

/// Writes through a committer from a plain thread, waiting for their answers there.
enum BlockingWrites {
    final class Failures: Sendable {
        let count = Mutex(0)
    }

    static func run(_ committer: GroupCommitter, count: Int) -> Int {
        let failures = Failures()
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Task.detached {
                do {
                    try await committer.write { db in try db.execute(sql: "INSERT INTO t (id) VALUES (?)", arguments: [index]) }
                } catch {
                    failures.count.withLock { $0 += 1 }
                }
                group.leave()
            }
        }
        group.wait()
        return failures.count.withLock { $0 }
    }
}

/// Set once from any thread, read from any other.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
