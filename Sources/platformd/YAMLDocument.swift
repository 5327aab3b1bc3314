import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore
import Yams

/// A YAML tenants file read into the values a JSON one holds, so one checker (with its messages
/// naming tenant and key) serves both. Plain scalars are typed by YAML 1.2's core schema: `16`
/// an integer (`0777` too, in decimal), `2.5` a number, `true`/`false`, `null`/`~`; everything
/// else, `yes`, `no`, `on`, `NO` (a country) or `12:30` included, stays a string, as do quoted
/// scalars (YAML 1.1's resolver, Yams' default, would make `NO` false). Aliases stand for what
/// they name. What YAML can say and JSON cannot (a list or mapping as a key, `.inf`, `.nan`) is
/// refused with its line and column.
enum YAMLDocument {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    static let coreSchema: Resolver = {
        // swiftlint:disable force_try
        Resolver.basic
            .appending(try! Resolver.Rule(.null, "^(?:~|null|Null|NULL|)$"))
            .appending(try! Resolver.Rule(.bool, "^(?:true|True|TRUE|false|False|FALSE)$"))
            .appending(try! Resolver.Rule(.int, "^[-+]?[0-9]+$"))
            .appending(
                try! Resolver.Rule(
                    .float, "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$"))
        // swiftlint:enable force_try
    }()

    static func json(_ text: String) throws(Problem) -> JSONValue {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text, coreSchema)
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
            let text = scalar.string
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return .null
            case .bool: return .bool(text.lowercased() == "true")
            case .int:
                let digits = text.hasPrefix("+") ? String(text.dropFirst()) : text
                guard let int = Int64(digits) else { throw problem("an integer out of range", at: node) }
                return .int(int)
            case .float:
                guard let double = Double(text.hasPrefix("+") ? String(text.dropFirst()) : text), double.isFinite else {
                    throw problem("not a finite number", at: node)
                }
                return .double(double)
            default:
                return .string(text)
            }
        case .sequence(let sequence):
            var items: [JSONValue] = []
            for item in sequence { items.append(try value(of: item)) }
            return .array(items)
        case .mapping(let mapping):
            var members: [String: JSONValue] = [:]
            for (key, item) in mapping {
                guard case .scalar(let name) = key else { throw problem("a key that is a list or a mapping", at: key) }
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
