import Foundation
import PlatformProtocol

/// Answers a step from nothing but its served FieldViews (`Docs/protocol.md`, "FieldView"), for
/// tests and the load generator (`platformd-bench`), which move or complete a session on whatever
/// tenant a server hosts without knowing its questions.
///
/// Each field gets, in order of preference: its saved `value`, its `default`, nothing when it is
/// optional (and its `requiredWhen`, if any, does not hold on the answers so far; a list entry's
/// optional item fields alike), else a value made from its type and bounds (the first unlocked options, the middle
/// of `min`…`max`, a text within `minLength`…`maxLength`). A field the server refuses is answered
/// with its next candidate on the next try (`retry`): another text (the placeholder, a name, an
/// email, digits; those the field's `pattern` accepts first),
/// the other boolean, the next options. Values for fields hidden by `visibleWhen` are sent too;
/// the server drops them. What cannot be derived this way (a search field's results) is asked
/// of the caller through `search`.
public struct GenericAnswers: Sendable {
    /// Texts tried in turn for a text field the server refuses.
    public static let texts = ["Alex", "alex@example.com", "123456", "Alex Morgan 2"]

    /// How many times each field has been refused so far.
    public private(set) var refusals: [String: Int] = [:]

    public init() {}

    /// Records the fields of `errors` (FieldError JSON) as refused; false when none names a field
    /// or one was refused too often, so a walker stops instead of looping.
    public mutating func retry(after errors: [JSONValue], limit: Int = 6) -> Bool {
        let fields = errors.compactMap { $0["field"]?.stringValue }
        guard !fields.isEmpty else { return false }
        for field in Set(fields) {
            refusals[field, default: 0] += 1
            if refusals[field, default: 0] > limit { return false }
        }
        return true
    }

    /// The values to submit for a step's fields (`step.fields`, as JSON). `search` gives the
    /// `value` of some result for a field of type `search`, or nil.
    public func values(for fields: [JSONValue], search: (String) async throws -> JSONValue? = { _ in nil }) async throws -> [String: JSONValue] {
        var values = valuesWithoutSearch(for: fields)
        for field in fields where field["type"]?.stringValue == "search" {
            guard let id = field["id"]?.stringValue, values[id] == nil else { continue }
            if let found = try await search(id) { values[id] = found }
        }
        return values
    }

    /// The values that need no search: every field but a `search` field without a saved value or
    /// a default (for callers that search on their own, such as a load driver's thread).
    public func valuesWithoutSearch(for fields: [JSONValue]) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for field in fields {
            guard let id = field["id"]?.stringValue else { continue }
            let attempt = refusals[id, default: 0]
            if attempt == 0, let saved = field["value"].nonNull {
                values[id] = saved
                continue
            }
            if attempt == 0, let preset = field["default"].nonNull {
                values[id] = preset
                continue
            }
            if field["type"]?.stringValue == "search" { continue }
            if attempt == 0 && !Self.isRequired(field, given: { values[$0] }) { continue }
            if let made = Self.make(field, attempt: attempt) { values[id] = made }
        }
        return values
    }

    /// Whether a field needs an answer: `required`, or a `requiredWhen` that holds on `values`.
    static func isRequired(_ field: JSONValue, given values: (String) -> JSONValue?) -> Bool {
        if field["required"] == true { return true }
        guard let json = field["requiredWhen"].nonNull, let condition = try? FieldCondition(json: json) else { return false }
        return condition.holds(given: values)
    }

    /// A value for `field` from its type and bounds; `attempt` picks another candidate.
    public static func make(_ field: JSONValue, attempt: Int = 0) -> JSONValue? {
        let options = (field["options"]?.arrayValue ?? []).filter { $0["locked"] != true }.compactMap { $0["value"] }
        switch field["type"]?.stringValue {
        case "text":
            let minimum = field["minLength"]?.intValue ?? 1
            let maximum = field["maxLength"]?.intValue ?? 256
            // The placeholder is usually an example of a valid answer; candidates the field's
            // `pattern` accepts go first.
            var candidates = (field["placeholder"]?.stringValue).map { [$0] + texts } ?? texts
            if let source = field["pattern"]?.stringValue, let pattern = try? Regex(source) {
                let fits = candidates.filter { (try? pattern.wholeMatch(in: $0)) != nil }
                candidates = fits + candidates.filter { !fits.contains($0) }
            }
            var text = candidates[attempt % candidates.count]
            if text.count < minimum { text += String(repeating: "a", count: minimum - text.count) }
            return .string(String(text.prefix(max(minimum, min(maximum, text.count)))))
        case "integer", "number", "slider":
            let low = field["min"]?.doubleValue ?? 0
            let high = field["max"]?.doubleValue ?? max(low, 1)
            let candidates = [(low + high) / 2, low, high]
            var number = candidates[attempt % candidates.count]
            if let step = field["step"]?.doubleValue, step > 0 { number = low + ((number - low) / step).rounded(.down) * step }
            return field["type"]?.stringValue == "number" && number.rounded() != number ? .double(number) : .int(Int64(number.rounded(.down)))
        case "boolean":
            return .bool(attempt % 2 == 0)
        case "date":
            let low = field["min"]?.stringValue.flatMap(Self.day) ?? Self.day("1970-01-01")!
            let high = field["max"]?.stringValue.flatMap(Self.day) ?? low.addingTimeInterval(50 * 365 * 86_400)
            let middle = Date(timeIntervalSince1970: (low.timeIntervalSince1970 + high.timeIntervalSince1970) / 2)
            return .string(Self.dayString([middle, high, low][attempt % 3]))
        case "time":
            return .string(["07:00", "12:00", "18:30"][attempt % 3])
        case "choice":
            guard !options.isEmpty else { return nil }
            return options[attempt % options.count]
        case "multi_choice":
            guard !options.isEmpty else { return nil }
            let minimum = field["minItems"]?.intValue ?? 1
            let maximum = min(field["maxItems"]?.intValue ?? options.count, options.count)
            // All that fit first (a checklist that wants most ticked), then the fewest allowed.
            let count = attempt % 2 == 0 ? maximum : max(minimum, 1)
            let start = (attempt / 2) % options.count
            return .array((0..<count).map { options[(start + $0) % options.count] })
        case "list":
            let minimum = field["minItems"]?.intValue ?? 0
            let items = field["itemFields"]?.arrayValue ?? []
            // Optional item fields are left out on the first try, as a person would leave them.
            return .array(
                (0..<minimum).map { _ in
                    var entry: [String: JSONValue] = [:]
                    for item in items {
                        guard let id = item["id"]?.stringValue, entry[id] == nil else { continue }
                        if attempt == 0 && !isRequired(item, given: { entry[$0] }) { continue }
                        if let value = make(item, attempt: attempt) { entry[id] = value }
                    }
                    return .object(entry)
                })
        default:
            return options.first
        }
    }

    static func day(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.date(from: text)
    }

    static func dayString(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}
