import Foundation
import GRDB
import Testing

@testable import SQLiteStore

/// The writer's statements bound through SQLite's C API store what GRDB's binding would, and fail
/// as GRDB's statements do: a `DatabaseError` with SQLite's code, the statement usable again.
@Suite struct BoundStatementTests {
    static func table() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, note TEXT, score REAL, maybe REAL, count INTEGER, none INTEGER)")
        }
        return queue
    }

    static let insert = "INSERT INTO t (id, name, note, score, maybe, count, none) VALUES (?, ?, ?, ?, ?, ?, ?)"

    @Test func everyKindOfValueIsStoredAsGRDBStoresIt() throws {
        let queue = try Self.table()
        let text = "héllo \"wörld\"\n\ttabbed 🏌️ \u{2028}"
        try queue.write { db in
            var bound = BoundStatement(try db.cachedStatement(sql: Self.insert))
            bound.bind(1)
            bound.bind(text)
            bound.bind(nil as String?)
            bound.bind(2.5)
            bound.bind(nil as Double?)
            bound.bind(Int?.some(42))
            bound.bind(nil as Int?)
            try bound.execute()
            try db.execute(sql: Self.insert, arguments: [2, text, nil, 2.5, nil, 42, nil])
        }
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT hex(name) AS name, note, score, maybe, count, none, typeof(name) AS kind FROM t ORDER BY id")
        }
        #expect(rows.count == 2)
        #expect(rows[0] == rows[1])
        #expect(rows[0]["name"] as String? == Self.hex(text))
        #expect(rows[0]["kind"] as String? == "text")
    }

    /// GRDB binds text as a C string, so its copy ends at a NUL byte; these keep every byte.
    /// (No id reaches the store with a control character, and JSON escapes them, so the stored
    /// rows are the same either way.)
    @Test func textIsBoundWithItsLengthNotUpToANul() throws {
        let queue = try Self.table()
        let text = "before\u{0}after"
        try queue.write { db in
            var bound = BoundStatement(try db.cachedStatement(sql: "INSERT INTO t (id, name) VALUES (?, ?)"))
            bound.bind(1)
            bound.bind(text)
            try bound.execute()
        }
        #expect(try queue.read { db in try String.fetchOne(db, sql: "SELECT hex(name) FROM t") } == Self.hex(text))
    }

    static func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02X", $0) }.joined()
    }

    @Test func aFailingStepThrowsSQLitesErrorAndTheStatementRunsAgain() throws {
        let queue = try Self.table()
        try queue.write { db in
            for id in [7, 7, 8] {
                var bound = BoundStatement(try db.cachedStatement(sql: Self.insert))
                bound.bind(id)
                for _ in 0..<6 { bound.bind(nil as String?) }
                let duplicate = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t WHERE id = ?", arguments: [id]) == 1
                do throws(DatabaseError) {
                    try bound.execute()
                    #expect(!duplicate, "a second row with id \(id) was stored")
                } catch {
                    #expect(duplicate)
                    #expect(error.resultCode == .SQLITE_CONSTRAINT)
                    #expect(error.sql == Self.insert)
                }
            }
        }
        #expect(try queue.read { db in try Int.fetchAll(db, sql: "SELECT id FROM t ORDER BY id") } == [7, 8])
    }
}
