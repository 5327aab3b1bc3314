import NIOCore
import PlatformStorage
import PostgresNIO

/// Rows a statement takes as one array parameter per column, read back with `unnest`.
///
/// The batched statements used to take their rows as JSON text (`json_to_recordset`,
/// `value->>'x'`): PostgreSQL lexed every row's JSON again for each field it read, which was
/// ~40 % of its CPU under `platformd bench`, and the host built and escaped JSON of JSON. Arrays
/// go in binary: each value is copied, never parsed.
protocol ColumnarRow: Sendable {
    static var columns: [Column<Self>] { get }
}

/// One column of a `ColumnarRow`: its SQL name, its element type and how a row gives its value.
struct Column<Row>: Sendable {
    let name: String
    let type: String
    let bind: @Sendable ([Row], inout PostgresBindings) -> Void

    static func text(_ name: String, _ value: @escaping @Sendable (Row) -> String) -> Self {
        Self(name: name, type: "text") { rows, bindings in bindings.append(rows.map(value)) }
    }

    static func text(_ name: String, _ value: @escaping @Sendable (Row) -> String?) -> Self {
        Self(name: name, type: "text") { rows, bindings in bindings.append(NullableArray(rows.map(value))) }
    }

    static func bigint(_ name: String, _ value: @escaping @Sendable (Row) -> Int64) -> Self {
        Self(name: name, type: "bigint") { rows, bindings in bindings.append(rows.map(value)) }
    }

    static func double(_ name: String, _ value: @escaping @Sendable (Row) -> Double) -> Self {
        Self(name: name, type: "double precision") { rows, bindings in bindings.append(rows.map(value)) }
    }

    static func double(_ name: String, _ value: @escaping @Sendable (Row) -> Double?) -> Self {
        Self(name: name, type: "double precision") { rows, bindings in bindings.append(NullableArray(rows.map(value))) }
    }
}

extension ColumnarRow {
    /// `unnest($first::text[], …) [WITH ORDINALITY] AS alias(name, …[, position])`: the rows of
    /// the parameters from `$first`, in the order `bind` appends them.
    static func unnest(from first: Int, as alias: String, ordered: Bool = false) -> String {
        let parameters = columns.enumerated().map { index, column in "$\(first + index)::\(column.type)[]" }
        let names = columns.map(\.name) + (ordered ? ["position"] : [])
        return "unnest(\(parameters.joined(separator: ", ")))\(ordered ? " WITH ORDINALITY" : "") AS \(alias)(\(names.joined(separator: ", ")))"
    }

    static func bind(_ rows: [Self], into bindings: inout PostgresBindings) {
        for column in columns { column.bind(rows, &bindings) }
    }
}

/// Numbers a statement's parameters as its parts take them, so the SQL and the bindings cannot
/// disagree on where a part's columns start.
struct ParameterCounter {
    private(set) var next = 1

    mutating func unnest<Row: ColumnarRow>(_: Row.Type, as alias: String, ordered: Bool = false) -> String {
        defer { next += Row.columns.count }
        return Row.unnest(from: next, as: alias, ordered: ordered)
    }

    mutating func scalar() -> String {
        defer { next += 1 }
        return "$\(next)"
    }
}

/// A one-dimensional array whose elements may be NULL, in PostgreSQL's binary array format
/// (postgres-nio encodes arrays of non-optional elements only).
struct NullableArray<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { Element.psqlArrayType }
    static var psqlFormat: PostgresFormat { .binary }

    var elements: [Element?]

    init(_ elements: [Element?]) { self.elements = elements }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)  // dimensions
        buffer.writeInteger(elements.contains(where: { $0 == nil }) ? 1 : 0, as: Int32.self)  // has nulls
        buffer.writeInteger(Element.psqlType.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)  // lower bound
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            element.encode(into: &buffer, context: context)
            buffer.setInteger(Int32(buffer.writerIndex - lengthIndex - 4), at: lengthIndex)
        }
    }
}
