/// A condition on answers, as data: a FieldView's `visibleWhen` (the field is shown, checked and
/// kept only while it holds) and `requiredWhen` (the field is required while it holds).
///
/// On the wire it is one of `{ "field", OPERATOR: VALUE }` (``Comparison``), `{ "field",
/// "answered": true|false }`, `{ "all": [COND…] }`, `{ "any": [COND…] }` or `{ "not": COND }`.
/// Version 1's `{ "field", "equals" }` is the first form, so its clients keep reading it.
/// ``holds(given:)`` is how the server (and a client) decides it.
public indirect enum FieldCondition: Sendable, Hashable {
    /// The field's answer compared with a value.
    case compare(field: String, Comparison, JSONValue)
    /// Whether the field has an answer (true) or has none (false).
    case answered(field: String, Bool)
    /// Every condition holds (an empty list holds).
    case all([FieldCondition])
    /// At least one condition holds (an empty list does not).
    case any([FieldCondition])
    /// The condition does not hold.
    case not(FieldCondition)

    /// How ``FieldCondition/compare(field:_:_:)`` compares, named as on the wire.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        /// Equal as JSON (`1` equals `1.0`); an unanswered field equals nothing.
        case equals
        /// Not ``equals``: an unanswered field is not equal to any value.
        case notEquals
        /// Both numbers, or both texts compared by their UTF-8 bytes (which orders `YYYY-MM-DD`
        /// dates and `HH:mm` times); otherwise, or unanswered, it does not hold.
        case lessThan, atMost, greaterThan, atLeast
        /// The answer equals one of the array's values.
        case `in`
        /// A multi-choice's picks (an array answer) include the value.
        case contains
    }

    /// Version 1's form: the field's answer equals `value`.
    public init(field: String, equals value: JSONValue) {
        self = .compare(field: field, .equals, value)
    }

    /// `field`'s answer equals `value`.
    public static func field(_ field: String, equals value: JSONValue) -> FieldCondition { .compare(field: field, .equals, value) }
    /// `field`'s answer is not `value` (or there is none).
    public static func field(_ field: String, notEquals value: JSONValue) -> FieldCondition { .compare(field: field, .notEquals, value) }
    /// `field`'s answer is below `value`.
    public static func field(_ field: String, lessThan value: JSONValue) -> FieldCondition { .compare(field: field, .lessThan, value) }
    /// `field`'s answer is at most `value`.
    public static func field(_ field: String, atMost value: JSONValue) -> FieldCondition { .compare(field: field, .atMost, value) }
    /// `field`'s answer is above `value`.
    public static func field(_ field: String, greaterThan value: JSONValue) -> FieldCondition { .compare(field: field, .greaterThan, value) }
    /// `field`'s answer is at least `value`.
    public static func field(_ field: String, atLeast value: JSONValue) -> FieldCondition { .compare(field: field, .atLeast, value) }
    /// `field`'s answer is one of `values`.
    public static func field(_ field: String, in values: [JSONValue]) -> FieldCondition { .compare(field: field, .in, .array(values)) }
    /// `field`'s picks (a multi-choice) include `value`.
    public static func field(_ field: String, contains value: JSONValue) -> FieldCondition { .compare(field: field, .contains, value) }
    /// `field` has an answer.
    public static func answered(_ field: String) -> FieldCondition { .answered(field: field, true) }
    /// `field` has no answer.
    public static func unanswered(_ field: String) -> FieldCondition { .answered(field: field, false) }

    /// Every field id the condition reads, in order, each once.
    public var fields: [String] {
        var seen = Set<String>()
        return allFields.filter { seen.insert($0).inserted }
    }

    private var allFields: [String] {
        switch self {
        case .compare(let field, _, _), .answered(let field, _): [field]
        case .all(let conditions), .any(let conditions): conditions.flatMap(\.allFields)
        case .not(let condition): condition.allFields
        }
    }

    /// The first field a condition names, for clients of version 1 (`field`); nil for `all`,
    /// `any` and `not`.
    public var field: String? {
        switch self {
        case .compare(let field, _, _), .answered(let field, _): field
        default: nil
        }
    }

    /// The value of version 1's form (`equals`); nil for every other form.
    public var equals: JSONValue? {
        if case .compare(_, .equals, let value) = self { return value }
        return nil
    }

    /// Whether the condition holds, reading answers through `value`.
    ///
    /// A field is unanswered when `value` gives nil, `null`, an empty or blank text or an empty
    /// array: only `notEquals` and `answered: false` hold for it.
    public func holds(given value: (String) -> JSONValue?) -> Bool {
        switch self {
        case .compare(let field, let comparison, let operand):
            return Self.compare(Self.answer(value(field)), comparison, operand)
        case .answered(let field, let expected):
            return (Self.answer(value(field)) != nil) == expected
        case .all(let conditions):
            return conditions.allSatisfy { $0.holds(given: value) }
        case .any(let conditions):
            return conditions.contains { $0.holds(given: value) }
        case .not(let condition):
            return !condition.holds(given: value)
        }
    }

    /// The answer, or nil when it counts as none.
    private static func answer(_ value: JSONValue?) -> JSONValue? {
        switch value {
        case nil, .null?: nil
        case .string(let text)? where text.allSatisfy(\.isWhitespace): nil
        case .array(let items)? where items.isEmpty: nil
        default: value
        }
    }

    private static func compare(_ answer: JSONValue?, _ comparison: Comparison, _ operand: JSONValue) -> Bool {
        switch comparison {
        case .equals: return answer == operand
        case .notEquals: return answer != operand
        case .in: return answer.map { operand.arrayValue?.contains($0) ?? false } ?? false
        case .contains: return answer?.arrayValue?.contains(operand) ?? false
        case .lessThan: return order(answer, operand).map { $0 < 0 } ?? false
        case .atMost: return order(answer, operand).map { $0 <= 0 } ?? false
        case .greaterThan: return order(answer, operand).map { $0 > 0 } ?? false
        case .atLeast: return order(answer, operand).map { $0 >= 0 } ?? false
        }
    }

    /// -1, 0 or 1 for two numbers or two texts; nil for anything else.
    private static func order(_ answer: JSONValue?, _ operand: JSONValue) -> Int? {
        switch (answer, operand) {
        case (.string(let a)?, .string(let b)):
            return a.utf8.elementsEqual(b.utf8) ? 0 : (a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1)
        case (.int(let a)?, .int(let b)):
            return a < b ? -1 : (a > b ? 1 : 0)
        case (let a?, _):
            // Booleans, arrays and objects have no doubleValue: they are not ordered.
            guard let x = a.doubleValue, let y = operand.doubleValue else { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        default:
            return nil
        }
    }

    /// The condition as it is written on the wire.
    public var json: JSONValue {
        switch self {
        case .compare(let field, let comparison, let operand): ["field": .string(field), comparison.rawValue: operand]
        case .answered(let field, let expected): ["field": .string(field), "answered": .bool(expected)]
        case .all(let conditions): ["all": .array(conditions.map(\.json))]
        case .any(let conditions): ["any": .array(conditions.map(\.json))]
        case .not(let condition): ["not": condition.json]
        }
    }

    /// Why a JSON value is not a condition.
    public struct Malformed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads the wire form; a member other than the form's own, two operators, or an operand of
    /// the wrong shape (`in` without an array, `answered` not a boolean) is ``Malformed``.
    public init(json: JSONValue) throws(Malformed) {
        guard let object = json.objectValue else { throw Malformed(description: "a condition is an object") }
        func only(_ keys: Set<String>) throws(Malformed) {
            let extra = Set(object.keys).subtracting(keys)
            guard extra.isEmpty else { throw Malformed(description: "unexpected \(extra.sorted().joined(separator: ", ")) in a condition") }
        }
        func list(_ value: JSONValue) throws(Malformed) -> [FieldCondition] {
            guard let items = value.arrayValue else { throw Malformed(description: "all and any take an array of conditions") }
            var conditions: [FieldCondition] = []
            for item in items { conditions.append(try FieldCondition(json: item)) }
            return conditions
        }
        if let items = object["all"] {
            try only(["all"])
            self = .all(try list(items))
        } else if let items = object["any"] {
            try only(["any"])
            self = .any(try list(items))
        } else if let inner = object["not"] {
            try only(["not"])
            self = .not(try FieldCondition(json: inner))
        } else {
            guard let field = object["field"]?.stringValue else { throw Malformed(description: "a condition names its field") }
            let operators = object.keys.filter { $0 != "field" }
            guard operators.count == 1, let name = operators.first else {
                throw Malformed(description: "a condition on \(field) has one operator")
            }
            let operand = object[name]!
            if name == "answered" {
                guard let expected = operand.boolValue else { throw Malformed(description: "answered is true or false") }
                self = .answered(field: field, expected)
                return
            }
            guard let comparison = Comparison(rawValue: name) else { throw Malformed(description: "unknown condition operator \(name)") }
            if comparison == .in, operand.arrayValue == nil { throw Malformed(description: "in takes an array") }
            self = .compare(field: field, comparison, operand)
        }
    }
}

extension FieldCondition: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        do {
            try self.init(json: json)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

/// Version 1's name for a `visibleWhen` condition.
public typealias VisibilityCondition = FieldCondition

extension FieldCondition: CustomStringConvertible {
    /// The condition in words, for people and language models reading a field's notes:
    /// `age < 18`, `goals includes other`, `(a is yes or b is answered)`.
    public var description: String {
        switch self {
        case .compare(let field, let comparison, let operand):
            let value = Self.words(operand)
            switch comparison {
            case .equals: return "\(field) is \(value)"
            case .notEquals: return "\(field) is not \(value)"
            case .lessThan: return "\(field) < \(value)"
            case .atMost: return "\(field) ≤ \(value)"
            case .greaterThan: return "\(field) > \(value)"
            case .atLeast: return "\(field) ≥ \(value)"
            case .in: return "\(field) is one of \((operand.arrayValue ?? []).map(Self.words).joined(separator: ", "))"
            case .contains: return "\(field) includes \(value)"
            }
        case .answered(let field, let expected):
            return expected ? "\(field) is answered" : "\(field) is not answered"
        case .all(let conditions):
            return conditions.count == 1 ? conditions[0].description : "(" + conditions.map(\.description).joined(separator: " and ") + ")"
        case .any(let conditions):
            return conditions.count == 1 ? conditions[0].description : "(" + conditions.map(\.description).joined(separator: " or ") + ")"
        case .not(let condition):
            return "not (\(condition))"
        }
    }

    private static func words(_ value: JSONValue) -> String {
        value.stringValue ?? value.serialized()
    }
}

extension FieldCondition {
    /// A condition with some of its fields' answers known: decided, or what is left to read.
    public enum Residual: Sendable, Hashable {
        case decided(Bool)
        case open(FieldCondition)
    }

    /// The condition with every part that reads no field of `open` decided from `value`: what
    /// a client that sees only the fields of `open` (a step's own) can still decide itself.
    public func residual(open: Set<String>, value: (String) -> JSONValue?) -> Residual {
        switch self {
        case .compare(let field, _, _), .answered(let field, _):
            return open.contains(field) ? .open(self) : .decided(holds(given: value))
        case .all(let conditions):
            return Self.residual(of: conditions, open: open, value: value, decisive: false, joined: FieldCondition.all)
        case .any(let conditions):
            return Self.residual(of: conditions, open: open, value: value, decisive: true, joined: FieldCondition.any)
        case .not(let condition):
            switch condition.residual(open: open, value: value) {
            case .decided(let holds): return .decided(!holds)
            case .open(let rest): return .open(.not(rest))
            }
        }
    }

    /// `all` (a part decided false decides it) or `any` (a part decided true decides it): the
    /// `decisive` outcome of one part decides the whole; the other outcome drops the part.
    private static func residual(
        of conditions: [FieldCondition], open: Set<String>, value: (String) -> JSONValue?, decisive: Bool,
        joined: ([FieldCondition]) -> FieldCondition
    ) -> Residual {
        var left: [FieldCondition] = []
        for condition in conditions {
            switch condition.residual(open: open, value: value) {
            case .decided(let holds): if holds == decisive { return .decided(decisive) }
            case .open(let rest): left.append(rest)
            }
        }
        return left.isEmpty ? .decided(!decisive) : .open(left.count == 1 ? left[0] : joined(left))
    }
}
