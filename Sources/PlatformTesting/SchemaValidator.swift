import PlatformCore
import PlatformServer
import PlatformStorage

/// Checks JSON values against the JSON Schemas of `rpc.discover` (the draft-7 keywords the
/// document uses: type, enum, properties, required, additionalProperties, items, oneOf, $ref,
/// minimum, maximum, minLength, maxLength). Tests run every reply they read through it, so a
/// reply that drifts from the published schema fails the test that produced it.
public struct SchemaValidator: Sendable {
    public let document: JSONValue

    public init(document: JSONValue) {
        self.document = document
    }

    /// The document this build serves.
    public static let served = SchemaValidator(document: (try? JSONValue(encoding: OpenRPCDocument(version: Platform.version))) ?? .null)

    /// Problems with `value` as the result of `method`; empty when it validates.
    public func problems(result value: JSONValue, of method: String) -> [String] {
        guard let schema = document["methods"]?.arrayValue?.first(where: { $0["name"]?.stringValue == method })?["result"]?["schema"] else {
            return ["\(method) is not in the document"]
        }
        return problems(value, schema, at: "result")
    }

    /// Problems with a JSON-RPC error object.
    public func problems(error value: JSONValue) -> [String] {
        problems(value, ["$ref": "#/components/schemas/Error"], at: "error")
    }

    /// Problems with a whole reply line's JSON to a request of `method`.
    public func problems(reply: JSONValue, of method: String) -> [String] {
        if let result = reply["result"] { return problems(result: result, of: method) }
        if let error = reply["error"] { return problems(error: error) }
        return ["neither result nor error"]
    }

    func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSONValue? = document
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node
    }

    func problems(_ value: JSONValue, _ schema: JSONValue, at path: String) -> [String] {
        if let reference = schema["$ref"]?.stringValue {
            guard let target = resolve(reference) else { return ["\(path): unresolved \(reference)"] }
            return problems(value, target, at: path)
        }
        var found: [String] = []
        if let types = schema["type"] {
            let allowed = types.arrayValue?.compactMap(\.stringValue) ?? [types.stringValue].compactMap { $0 }
            if !allowed.contains(where: { Self.matches(value, type: $0) }) {
                return ["\(path): \(value.typeName) where \(allowed.joined(separator: " or ")) is required"]
            }
        }
        if let choices = schema["enum"]?.arrayValue, !choices.contains(value) {
            found.append("\(path): \(value.serialized()) is not one of \(JSONValue.array(choices).serialized())")
        }
        if let options = schema["oneOf"]?.arrayValue {
            let passing = options.filter { problems(value, $0, at: path).isEmpty }.count
            if passing != 1 { found.append("\(path): matches \(passing) of oneOf's \(options.count) schemas") }
        }
        if let number = value.doubleValue {
            if let minimum = schema["minimum"]?.doubleValue, number < minimum { found.append("\(path): \(number) < \(minimum)") }
            if let maximum = schema["maximum"]?.doubleValue, number > maximum { found.append("\(path): \(number) > \(maximum)") }
        }
        if let text = value.stringValue {
            let length = text.unicodeScalars.count
            if let minimum = schema["minLength"]?.intValue, length < minimum { found.append("\(path): shorter than \(minimum)") }
            if let maximum = schema["maxLength"]?.intValue, length > maximum { found.append("\(path): longer than \(maximum)") }
        }
        if let object = value.objectValue {
            let properties = schema["properties"]?.objectValue ?? [:]
            for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                found.append("\(path): missing \(name)")
            }
            for (name, member) in object {
                if let property = properties[name] {
                    found += problems(member, property, at: "\(path).\(name)")
                } else if let extra = schema["additionalProperties"] {
                    if extra == false {
                        found.append("\(path): unexpected member \(name)")
                    } else if extra.objectValue != nil {
                        found += problems(member, extra, at: "\(path).\(name)")
                    }
                }
            }
        }
        if let items = value.arrayValue, let itemSchema = schema["items"] {
            for (index, item) in items.enumerated() { found += problems(item, itemSchema, at: "\(path)[\(index)]") }
        }
        return found
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", .int): true
        case ("integer", .double(let number)): number.rounded() == number
        case ("number", .int), ("number", .double): true
        default: false
        }
    }
}
