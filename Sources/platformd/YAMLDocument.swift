import PlatformCore
import Yams

/// A YAML tenants file read into the values a JSON one holds, so one checker (with its messages
/// naming tenant and key) serves both. Plain scalars take YAML's core types (`16` an integer,
/// `2.5` a number, `true`, `null`); quoted ones stay strings; aliases stand for what they name.
/// What YAML can say and JSON cannot (a non-string key, a non-finite number) is refused with
/// its line and column.
enum YAMLDocument {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    static func json(_ text: String) throws(Problem) -> JSONValue {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            // libyaml's message spans lines (the offending line, a caret); the refusal is one line.
            let words = "\(error)".split(whereSeparator: \.isWhitespace).joined(separator: " ")
            throw Problem(description: "invalid YAML: \(words)")
        }
        guard let root else { throw Problem(description: "the YAML document is empty") }
        return try value(of: root)
    }

    static func value(of node: Node) throws(Problem) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return .null
            case .bool:
                guard let bool = node.bool else { throw problem("not a boolean", at: node) }
                return .bool(bool)
            case .int:
                guard let int = node.int else { throw problem("an integer out of range", at: node) }
                return .int(Int64(int))
            case .float:
                guard let double = node.float, double.isFinite else { throw problem("not a finite number", at: node) }
                return .double(double)
            default:
                return .string(scalar.string)
            }
        case .sequence(let sequence):
            var items: [JSONValue] = []
            for item in sequence { items.append(try value(of: item)) }
            return .array(items)
        case .mapping(let mapping):
            var members: [String: JSONValue] = [:]
            for (key, item) in mapping {
                guard case .scalar(let name) = key else { throw problem("a key that is not a string", at: key) }
                members[name.string] = try value(of: item)
            }
            return .object(members)
        case .alias:
            // The parser substitutes aliases; a node that is still one is refused, not guessed at.
            throw problem("an alias (write the value out)", at: node)
        }
    }

    static func problem(_ what: String, at node: Node) -> Problem {
        guard let mark = node.mark else { return Problem(description: "invalid YAML: \(what)") }
        return Problem(description: "invalid YAML at line \(mark.line), column \(mark.column): \(what)")
    }
}
