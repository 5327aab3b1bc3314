import Foundation

/// Encodes a wire type straight into a `JSONValue`, without Foundation's `JSONEncoder` writing
/// bytes that are then parsed back: the server renders every reply through this. Dates are
/// contract timestamps; non-finite doubles become null (JSON has none).
struct JSONValueEncoder {
    func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        let root = Node()
        try Self.encode(value, into: root, codingPath: [])
        return root.value
    }

    /// `codingPath` is built only for a value that encodes itself: scalars, most of what is
    /// encoded, never read it, and building it allocated an array per member.
    static func encode<Value: Encodable>(
        _ value: Value, into node: Node, codingPath: @autoclosure () -> [any CodingKey]
    ) throws {
        switch value {
        case let json as JSONValue: node.kind = json
        case let date as Date: node.kind = .string(Timestamp.string(date))
        case let string as String: node.kind = .string(string)
        case let bool as Bool: node.kind = .bool(bool)
        case let int as Int: node.kind = .int(Int64(int))
        case let double as Double: node.kind = Self.number(double)
        default: try value.encode(to: NodeEncoder(node: node, codingPath: codingPath()))
        }
    }

    /// As Foundation's encoder writes them: a whole double is written as an integer (`12`, not
    /// `12.0`); JSON has no non-finite numbers, so those are null.
    static func number(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .null }
        if value.rounded() == value, abs(value) < 9_007_199_254_740_992, let integer = Int64(exactly: value) { return .int(integer) }
        return .double(value)
    }

    /// A value being built: containers write into it by reference, in place.
    final class Node {
        var scalar: JSONValue?
        var members: [String: Node]?
        var items: [Node]?

        /// Setting a scalar replaces whatever the node held.
        var kind: JSONValue {
            get { value }
            set {
                scalar = newValue
                members = nil
                items = nil
            }
        }

        var value: JSONValue {
            if let members { return .object(members.mapValues(\.value)) }
            if let items { return .array(items.map(\.value)) }
            return scalar ?? .object([:])
        }

        func member(_ key: String) -> Node {
            if members == nil { makeObject() }
            if let node = members?[key] { return node }
            let node = Node()
            members![key] = node
            return node
        }

        func makeObject() {
            guard members == nil else { return }
            scalar = nil
            items = nil
            members = [:]
        }

        func append() -> Node {
            if items == nil { makeArray() }
            let node = Node()
            items!.append(node)
            return node
        }

        func makeArray() {
            guard items == nil else { return }
            scalar = nil
            members = nil
            items = []
        }

        var count: Int { items?.count ?? 0 }
    }

    struct NodeEncoder: Encoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            node.makeObject()
            return KeyedEncodingContainer(Keyed<Key>(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            node.makeArray()
            return Unkeyed(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            Single(node: node, codingPath: codingPath)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).kind = .null }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try JSONValueEncoder.encode(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
        }
        // The scalars synthesized `encode(to:)` calls by their own overloads: without these the
        // protocol's defaults send each through the generic one and its dynamic casts.
        mutating func encode(_ value: String, forKey key: Key) throws { node.member(key.stringValue).kind = .string(value) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { node.member(key.stringValue).kind = .bool(value) }
        mutating func encode(_ value: Int, forKey key: Key) throws { node.member(key.stringValue).kind = .int(Int64(value)) }
        mutating func encode(_ value: Double, forKey key: Key) throws { node.member(key.stringValue).kind = JSONValueEncoder.number(value) }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int { node.count }

        mutating func encodeNil() throws { node.append().kind = .null }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try JSONValueEncoder.encode(value, into: node.append(), codingPath: codingPath)
        }
        mutating func encode(_ value: String) throws { node.append().kind = .string(value) }
        mutating func encode(_ value: Bool) throws { node.append().kind = .bool(value) }
        mutating func encode(_ value: Int) throws { node.append().kind = .int(Int64(value)) }
        mutating func encode(_ value: Double) throws { node.append().kind = JSONValueEncoder.number(value) }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.append(), codingPath: codingPath).container(keyedBy: keyType)
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.append(), codingPath: codingPath).unkeyedContainer()
        }
        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.append(), codingPath: codingPath) }
    }

    struct Single: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.kind = .null }
        mutating func encode(_ value: Bool) throws { node.kind = (.bool(value)) }
        mutating func encode(_ value: String) throws { node.kind = (.string(value)) }
        mutating func encode(_ value: Double) throws { node.kind = JSONValueEncoder.number(value) }
        mutating func encode(_ value: Float) throws { try encode(Double(value)) }
        mutating func encode(_ value: Int) throws { node.kind = (.int(Int64(value))) }
        mutating func encode(_ value: Int8) throws { node.kind = (.int(Int64(value))) }
        mutating func encode(_ value: Int16) throws { node.kind = (.int(Int64(value))) }
        mutating func encode(_ value: Int32) throws { node.kind = (.int(Int64(value))) }
        mutating func encode(_ value: Int64) throws { node.kind = (.int(value)) }
        mutating func encode(_ value: UInt) throws { node.kind = (Int64(exactly: value).map(JSONValue.int) ?? .double(Double(value))) }
        mutating func encode(_ value: UInt8) throws { node.kind = (.int(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { node.kind = (.int(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { node.kind = (.int(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { node.kind = (Int64(exactly: value).map(JSONValue.int) ?? .double(Double(value))) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try JSONValueEncoder.encode(value, into: node, codingPath: codingPath)
        }
    }
}
