import GRDB
import GRDBSQLite

/// One run of a cached statement with its parameters bound through SQLite's C API, for the
/// statements every command runs on the writer (its session row, its answers, its events).
/// GRDB's `execute(arguments:)` boxes each value as an existential, turns it into a
/// `DatabaseValue`, and binds it through nested closures: about a tenth of the writer thread's
/// time (Docs/performance.md), on the one thread every write of the process goes through.
///
/// Only for statements run inside a transaction GRDB opened (group commit's), whose failure fails
/// that transaction's attempt: GRDB's bookkeeping around a statement (transaction observers,
/// cancellation) is skipped, and this store uses neither. Parameters are bound in order, each
/// once; `execute` checks that every one was. Text is bound with its length, where GRDB binds a
/// C string that would end at a NUL byte; no id reaches the store with a control character and
/// JSON escapes them, so the rows are the same (`BoundStatementTests`).
struct BoundStatement: ~Copyable {
    private let statement: Statement
    private var bound: Int32 = 0

    init(_ statement: Statement) {
        self.statement = statement
        // A statement left mid-run by a failure is reset here; its error was thrown then.
        sqlite3_reset(statement.sqliteStatement)
        sqlite3_clear_bindings(statement.sqliteStatement)
    }

    mutating func bind(_ value: String) {
        bound += 1
        var text = value
        text.withUTF8 { bytes in
            _ = sqlite3_bind_text(statement.sqliteStatement, bound, bytes.baseAddress, Int32(bytes.count), Self.transient)
        }
    }

    mutating func bind(_ value: String?) {
        if let value { bind(value) } else { bindNull() }
    }

    mutating func bind(_ value: Double) {
        bound += 1
        sqlite3_bind_double(statement.sqliteStatement, bound, value)
    }

    mutating func bind(_ value: Double?) {
        if let value { bind(value) } else { bindNull() }
    }

    mutating func bind(_ value: Int) {
        bound += 1
        sqlite3_bind_int64(statement.sqliteStatement, bound, Int64(value))
    }

    mutating func bind(_ value: Int?) {
        if let value { bind(value) } else { bindNull() }
    }

    private mutating func bindNull() {
        bound += 1
        sqlite3_bind_null(statement.sqliteStatement, bound)
    }

    /// Runs the statement to its end; the database's error when a step fails.
    consuming func execute() throws(DatabaseError) {
        let handle = statement.sqliteStatement
        precondition(bound == sqlite3_bind_parameter_count(handle), "every parameter of \(statement.sql) is bound, once")
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_DONE:
                sqlite3_reset(handle)
                return
            case SQLITE_ROW:
                continue
            case let code:
                let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                sqlite3_reset(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
        }
    }

    /// SQLite copies the text before the bind returns (`SQLITE_TRANSIENT`, a C macro Swift does
    /// not import): the string's storage is only lent for the call.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
