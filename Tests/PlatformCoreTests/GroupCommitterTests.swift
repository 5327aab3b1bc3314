import Foundation
import GRDB
import Testing

@testable import PlatformCore
@testable import PlatformServer
@testable import PlatformStorage
@testable import SQLiteStore

/// The group committer on its own: a write that fails after writing rolls back its savepoint and
/// nothing else.
@Suite struct GroupCommitterTests {
    struct Refused: Error {}

    @Test func aFailingWriteRollsBackOnlyItsOwnRows() async throws {
        let queue = try DatabaseQueue()
        try await queue.write { try $0.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY)") }
        let committer = GroupCommitter(writer: queue)
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
        let stored = Set(try await queue.read { try Int.fetchAll($0, sql: "SELECT id FROM t") })
        #expect(stored == Set((0..<50).filter { $0 % 5 != 0 }))
        #expect(results.filter { !$0.value }.keys.sorted() == (0..<50).filter { $0 % 5 == 0 })
        let counts = committer.counts.withLock { $0 }
        #expect(counts.writes == 50)
        #expect(counts.transactions < 50)
    }
}
