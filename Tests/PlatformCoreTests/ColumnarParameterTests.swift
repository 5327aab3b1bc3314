import Foundation
import NIOCore
import PlatformCore
import PlatformServer
import PlatformStorage
import PostgresNIO
import SQLiteStore
import Testing

@testable import PostgresStore

/// The PostgreSQL statements' array parameters, checked without a server: the binary format of an
/// array with NULL elements (which postgres-nio does not write) and the parameter numbering of
/// each statement against the bindings it sends.
@Suite struct ColumnarParameterTests {
    static func bytes(_ value: some PostgresNonThrowingEncodable) -> [UInt8] {
        var buffer = ByteBuffer()
        value.encode(into: &buffer, context: .default)
        return Array(buffer.readableBytesView)
    }

    static func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    @Test func aNullableArrayIsPostgreSQLsBinaryArrayFormat() {
        let text = Int32(bitPattern: PostgresDataType.text.rawValue)
        // Empty: no dimensions, no NULLs, the element type, nothing more (as postgres-nio writes one).
        #expect(Self.bytes(NullableArray<String>([])) == Self.int32(0) + Self.int32(0) + Self.int32(text))
        #expect(Self.bytes(NullableArray<String>([])) == Self.bytes([String]()))
        // Elements: one dimension, the NULL flag, the type, the length and lower bound 1, then each
        // element's length and bytes, -1 for NULL (an empty string is length 0, not NULL).
        let expected =
            Self.int32(1) + Self.int32(1) + Self.int32(text) + Self.int32(3) + Self.int32(1)
            + Self.int32(1) + Array("a".utf8) + Self.int32(-1) + Self.int32(0)
        #expect(Self.bytes(NullableArray<String>(["a", nil, ""])) == expected)
        // Without NULLs it is byte for byte postgres-nio's own array.
        #expect(Self.bytes(NullableArray<String>(["a", "bc"])) == Self.bytes(["a", "bc"]))
        #expect(Self.bytes(NullableArray<Double>([1.5, 2])) == Self.bytes([1.5, 2.0]))
        let float8 = Int32(bitPattern: PostgresDataType.float8.rawValue)
        #expect(Self.bytes(NullableArray<Double>([nil])) == Self.int32(1) + Self.int32(1) + Self.int32(float8) + Self.int32(1) + Self.int32(1) + Self.int32(-1))
    }

    /// The distinct numbers `$N` in a statement's SQL.
    static func parameters(in sql: String) -> [Int] {
        var numbers: [Int] = []
        var scanner = sql[...]
        while let dollar = scanner.firstIndex(of: "$") {
            let digits = scanner[scanner.index(after: dollar)...].prefix { $0.isASCII && $0.isNumber }
            if let number = Int(digits), !numbers.contains(number) { numbers.append(number) }
            scanner = scanner[scanner.index(after: dollar)...]
        }
        return numbers
    }

    @Test func everyStatementUsesEachOfItsBindingsAndNoOther() throws {
        var old = sampleState()
        old.answers = ["gone": ["x": 1]]
        var state = sampleState()
        state.revision += 1
        state.abandonedAt = epoch
        let profile = Profile(tenant: "t1", userId: "u1", completedAt: epoch, records: ["profile": ["name": "Alex"]])
        let write = try SessionWrite(
            state, events: [FlowEvent(.completed, at: epoch)], replacing: old, writes: 3, profile: profile,
            outbox: [sampleEvent("evt-1", webhooks: ["https://a.example/hook", "https://b.example/hook"])])
        #expect(!write.removedAnswers.isEmpty && !write.upsertedAnswers.isEmpty && !write.events.isEmpty)
        #expect(write.outbox.deliveries.count == 2)

        let statements: [(sql: String, bindings: PostgresBindings)] = [
            (SessionWriteStatement.sql, try SessionWriteStatement([write, write]).makeBindings()),
            (OutboxWriteStatement.sql, try OutboxWriteStatement([sampleEvent("evt-2")]).makeBindings()),
            (SessionInsertStatement.sql, try SessionInsertStatement(state, events: [FlowEvent(.arrived, step: "a", at: epoch)]).makeBindings()),
        ]
        for (sql, bindings) in statements {
            let numbers = Self.parameters(in: sql)
            #expect(numbers.sorted() == Array(1...bindings.count), "\(sql)")
        }
        #expect(SessionWriteStatement.sql.contains("unnest($1::text[], $2::text[], $3::text[], $4::bigint[]"))
    }
}
