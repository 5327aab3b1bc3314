import Foundation

/// Checks a value against its ``FieldSpec`` and returns the value as it is kept
/// (trimmed text, integers as integers, a search result's stored object).
///
/// The engine checks each visible field of a submit with it; a plugin gets one with its search
/// providers from ``OnboardingPlugin/validator`` (``FlowStep/reconciled(_:in:validator:)`` is
/// handed it).
public struct FieldValidator: Sendable {
    /// Resolve the values of `search` fields, by field id.
    public var searchProviders: [String: any SearchProvider]
    /// The command's day, which relative date bounds (``TemporalBound/today``) are counted from.
    /// The engine sets it from the command's time (``on(_:)``); nil: today's UTC date by the
    /// wall clock, for a validator used outside a command.
    public var today: CalendarDate?

    public init(searchProviders: [String: any SearchProvider] = [:], today: CalendarDate? = nil) {
        self.searchProviders = searchProviders
        self.today = today
    }

    /// The same validator with relative date bounds counted from `day`.
    public func on(_ day: CalendarDate) -> FieldValidator {
        var copy = self
        copy.today = day
        return copy
    }

    /// The result of ``check(_:against:)``.
    public enum Outcome: Sendable {
        /// The value as it is kept.
        case valid(JSONValue)
        /// Nothing was given for an optional field.
        case absent
        /// The first reason the value is refused.
        case invalid(FieldError)
    }

    /// Checks one value against its field's rules.
    ///
    /// - Parameters:
    ///   - raw: the posted value; nil when the field was not posted.
    ///   - spec: the field.
    /// - Returns: the value as kept, ``Outcome/absent`` for an optional field left empty, or the
    ///   first error; ``allErrors(_:against:)`` gives every error of a list.
    public func check(_ raw: JSONValue?, against spec: FieldSpec) -> Outcome {
        guard let raw, !raw.isNull else { return missing(spec) }
        // An empty or blank string is "nothing given" whatever the field's type.
        if let text = raw.stringValue, text.allSatisfy(\.isWhitespace), spec.normalization != .none {
            return missing(spec)
        }
        do {
            let value = try normalized(raw, spec)
            if isEmpty(value) && spec.type != .multiChoice && spec.type != .list { return missing(spec) }
            return .valid(value)
        } catch {
            return .invalid(error)
        }
    }

    /// Every reason `raw` is refused, not only the first: for a `list`, each entry's errors (all
    /// reported on the list field, "Entry 2: …"), then the count; for other fields, the one error.
    public func allErrors(_ raw: JSONValue?, against spec: FieldSpec) -> [FieldError] {
        guard case .invalid(let first) = check(raw, against: spec) else { return [] }
        guard spec.type == .list, let items = raw?.arrayValue else { return [first] }
        var errors: [FieldError] = []
        for (position, item) in items.enumerated() {
            guard let object = item.objectValue else {
                errors.append(typeError(spec, "a list of entries"))
                continue
            }
            errors += checkEntry(object, of: spec, position: position).errors
        }
        do throws(FieldError) {
            try checkCount(items.count, spec, noun: "entry")
        } catch {
            errors.append(error)
        }
        return errors.isEmpty ? [first] : errors
    }

    /// For a `list` that was refused: every entry in its place, each with the item fields that
    /// passed their own checks as they are kept (an entry that is not an object is empty), so a
    /// step's own rules (``FlowStep/validate(_:in:)``) run on them in the same reply and entry N
    /// of the submit is entry N of what they see (`FieldError.entry(_:of:_:_:)`); nil for any
    /// other field, or when `raw` is not a list.
    public func checkedEntries(_ raw: JSONValue?, against spec: FieldSpec) -> JSONValue? {
        guard spec.type == .list, let items = raw?.arrayValue else { return nil }
        return .array(
            items.enumerated().map { position, item in
                .object(item.objectValue.map { checkEntry($0, of: spec, position: position).clean } ?? [:])
            })
    }

    /// One list entry through its item fields: an item field hidden by its `visibleWhen` (read
    /// from the same entry) is neither checked nor kept; one whose `requiredWhen` holds is required.
    private func checkEntry(
        _ object: [String: JSONValue], of spec: FieldSpec, position: Int
    ) -> (clean: [String: JSONValue], errors: [FieldError]) {
        var clean: [String: JSONValue] = [:]
        var errors: [FieldError] = []
        var reader = ConditionReader { clean[$0] ?? object[$0] }
        for itemSpec in spec.itemFields {
            guard let itemSpec = reader.apply(itemSpec) else { continue }
            switch check(object[itemSpec.id], against: itemSpec) {
            case .valid(let value): clean[itemSpec.id] = value
            case .absent: break
            case .invalid(let error):
                errors.append(.entry(position, of: spec.id, error.code, error.message))
            }
        }
        return (clean, errors)
    }

    private func missing(_ spec: FieldSpec) -> Outcome {
        spec.required ? .invalid(failure(spec, .required, "\(spec.label) is required.")) : .absent
    }

    private func isEmpty(_ value: JSONValue) -> Bool {
        value.stringValue?.isEmpty == true
    }

    private func failure(_ spec: FieldSpec, _ code: FieldErrorCode, _ generic: String) -> FieldError {
        FieldError(field: spec.id, code: code, message: spec.messages[code] ?? generic)
    }

    private func typeError(_ spec: FieldSpec, _ expected: String) -> FieldError {
        failure(spec, .invalidType, "\(spec.label) must be \(expected).")
    }

    private func normalized(_ raw: JSONValue, _ spec: FieldSpec) throws(FieldError) -> JSONValue {
        switch spec.type {
        case .text:
            guard let text = raw.stringValue else { throw typeError(spec, "text") }
            let clean = Self.normalize(text, spec.normalization)
            if clean.isEmpty { return .string("") }
            try checkLength(clean, spec)
            return .string(clean)
        case .integer:
            guard let number = raw.intValue, raw.doubleValue == Double(number) else {
                throw typeError(spec, "a whole number")
            }
            try checkRange(Double(number), spec)
            return .int(Int64(number))
        case .number, .slider:
            guard let number = raw.doubleValue, raw.boolValue == nil else { throw typeError(spec, "a number") }
            try checkRange(number, spec)
            if let step = spec.step, step > 0 {
                let base = spec.min ?? 0
                let steps = (number - base) / step
                if abs(steps - steps.rounded()) > 1e-9 {
                    throw failure(spec, .invalidFormat, "\(spec.label) moves in steps of \(JSONValue.number(step).serialized()).")
                }
            }
            return JSONValue.number(number)
        case .boolean:
            guard let flag = raw.boolValue else { throw typeError(spec, "true or false") }
            return .bool(flag)
        case .date:
            guard let text = raw.stringValue else { throw typeError(spec, "a date") }
            guard let date = CalendarDate(text) else {
                throw failure(spec, .invalidFormat, "\(spec.label) must be a real date written YYYY-MM-DD.")
            }
            try checkBounds(spec) { bound, day in bound.date(on: day).map { Self.order(date, $0) } }
            if let rule = spec.dayOfMonth, !rule.admits(date) {
                throw FieldError(
                    field: spec.id, code: .outOfRange,
                    message: rule.message ?? spec.messages[.outOfRange] ?? "\(spec.label) must be \(rule.words).")
            }
            return .string(text)
        case .time:
            guard let text = raw.stringValue else { throw typeError(spec, "a time") }
            guard let time = ClockTime(text) else {
                throw failure(spec, .invalidFormat, "\(spec.label) must be a time written HH:mm (00:00 to 23:59).")
            }
            try checkBounds(spec) { bound, _ in bound.time.map { Self.order(time, $0) } }
            return .string(text)
        case .choice:
            guard let text = raw.stringValue else { throw typeError(spec, "one of the options") }
            return .string(try checkOption(text, spec))
        case .multiChoice:
            return try normalizedSelection(raw, spec)
        case .search:
            let provider = searchProviders[spec.id]
            guard let id = raw.stringValue ?? provider?.id(ofStored: raw) else {
                throw typeError(spec, "a result from the search")
            }
            guard let stored = provider?.resolve(id) else {
                throw provider?.unknownValueError(field: spec.id)
                    ?? failure(spec, .notAnOption, "Choose \(spec.label.lowercased()) from the search results.")
            }
            return stored
        case .list:
            return try normalizedList(raw, spec)
        }
    }

    static func normalize(_ text: String, _ normalization: TextNormalization) -> String {
        switch normalization {
        case .none:
            return text
        case .trimmed:
            return text.trimmingWhitespace
        case .collapsedSpaces:
            return text.precomposedStringWithCanonicalMapping
                .split(whereSeparator: { $0.isWhitespace })
                .joined(separator: " ")
        }
    }

    private func checkLength(_ text: String, _ spec: FieldSpec) throws(FieldError) {
        let length = text.count
        if let minLength = spec.minLength, length < minLength {
            throw failure(spec, .tooShort, "\(spec.label) must be at least \(minLength) \(Self.characters(minLength)).")
        }
        if let maxLength = spec.maxLength, length > maxLength {
            throw failure(spec, .tooLong, "\(spec.label) must be at most \(maxLength) \(Self.characters(maxLength)).")
        }
        if let pattern = spec.pattern, (try? pattern.regex.wholeMatch(in: text)) ?? nil == nil {
            throw failure(spec, .invalidFormat, pattern.message ?? "\(spec.label) is not in the expected format.")
        }
    }

    private static func characters(_ count: Int) -> String { count == 1 ? "character" : "characters" }

    private func checkRange(_ number: Double, _ spec: FieldSpec) throws(FieldError) {
        let low = spec.min.map { number >= $0 } ?? true
        let high = spec.max.map { number <= $0 } ?? true
        guard !(low && high) else { return }
        let text: String
        switch (spec.min, spec.max) {
        case (let min?, let max?): text = "between \(JSONValue.number(min).serialized()) and \(JSONValue.number(max).serialized())"
        case (let min?, nil): text = "at least \(JSONValue.number(min).serialized())"
        case (nil, let max?): text = "at most \(JSONValue.number(max).serialized())"
        case (nil, nil): text = "in range"
        }
        throw failure(spec, .outOfRange, "\(spec.label) must be \(text).")
    }

    /// `earliest` and `latest` of a date or time; `compare` orders the value against a bound on
    /// the command's day (-1 before it, 0 on it, 1 after it), nil for a bound of the other kind
    /// (never checked).
    private func checkBounds(_ spec: FieldSpec, _ compare: (TemporalBound, CalendarDate) -> Int?) throws(FieldError) {
        guard spec.earliest != nil || spec.latest != nil else { return }
        let day = today ?? CalendarDate(Date())
        let compare = { compare($0, day) }
        let tooEarly = spec.earliest.flatMap(compare).map { $0 < 0 } ?? false
        let tooLate = spec.latest.flatMap(compare).map { $0 > 0 } ?? false
        guard tooEarly || tooLate, let broken = tooEarly ? spec.earliest : spec.latest else { return }
        let text: String
        switch (spec.earliest.map { $0.text(on: day) }, spec.latest.map { $0.text(on: day) }) {
        case (let earliest?, let latest?): text = "between \(earliest) and \(latest)"
        case (let earliest?, nil): text = "\(earliest) or later"
        case (nil, let latest?): text = "\(latest) or earlier"
        case (nil, nil): text = "in range"
        }
        throw FieldError(
            field: spec.id, code: .outOfRange,
            message: broken.message ?? spec.messages[.outOfRange] ?? "\(spec.label) must be \(text).")
    }

    private static func order<T: Comparable>(_ value: T, _ bound: T) -> Int {
        value < bound ? -1 : (value > bound ? 1 : 0)
    }

    private func checkOption(_ value: String, _ spec: FieldSpec) throws(FieldError) -> String {
        guard let option = spec.option(value) else {
            throw failure(spec, .notAnOption, "Choose one of the options for \(spec.label.lowercased()).")
        }
        if option.locked {
            throw failure(spec, .locked, option.lockedMessage ?? "\(option.label) is not available yet.")
        }
        return value
    }

    private func normalizedSelection(_ raw: JSONValue, _ spec: FieldSpec) throws(FieldError) -> JSONValue {
        guard let items = raw.arrayValue else { throw typeError(spec, "a list of choices") }
        var seen = Set<String>()
        var kept: [JSONValue] = []
        for item in items {
            let key: String
            if let value = item.stringValue {
                _ = try checkOption(value, spec)
                key = "option:" + value
                kept.append(item)
            } else if spec.allowCustom, var object = item.objectValue {
                // A title of the wrong type is left as sent, for the item's own checks to name.
                let title = object["title"]?.stringValue.map { Self.normalize($0, .collapsedSpaces) }
                if let title { object["title"] = .string(title) }
                key = "custom:" + (title ?? "").lowercased()
                kept.append(.object(object))
            } else {
                throw typeError(spec, spec.allowCustom ? "a list of choices or custom entries" : "a list of choices")
            }
            if !seen.insert(key).inserted {
                throw failure(spec, .duplicate, "Each choice can be picked only once.")
            }
        }
        try checkCount(kept.count, spec, noun: "choice")
        return .array(kept)
    }

    private func normalizedList(_ raw: JSONValue, _ spec: FieldSpec) throws(FieldError) -> JSONValue {
        guard let items = raw.arrayValue else { throw typeError(spec, "a list") }
        var kept: [JSONValue] = []
        for (position, item) in items.enumerated() {
            guard let object = item.objectValue else { throw typeError(spec, "a list of entries") }
            let entry = checkEntry(object, of: spec, position: position)
            if let error = entry.errors.first { throw error }
            kept.append(.object(entry.clean))
        }
        try checkCount(kept.count, spec, noun: "entry")
        return .array(kept)
    }

    private func checkCount(_ count: Int, _ spec: FieldSpec, noun: String) throws(FieldError) {
        let plural = noun == "entry" ? "entries" : noun + "s"
        func amount(_ n: Int) -> String { "\(n) \(n == 1 ? noun : plural)" }
        switch (spec.minItems, spec.maxItems) {
        case (let min?, let max?) where min == max && count != min:
            throw failure(spec, .count, "Pick exactly \(amount(min)) (you have \(count)).")
        case (let min?, _) where count < min:
            throw failure(spec, .count, "Pick at least \(amount(min)) (you have \(count)).")
        case (_, let max?) where count > max:
            throw failure(spec, .count, "Pick at most \(amount(max)) (you have \(count)).")
        default:
            if count == 0 && spec.required && spec.minItems == nil {
                throw failure(spec, .required, "\(spec.label) is required.")
            }
        }
    }
}

/// A `YYYY-MM-DD` date that exists in the proleptic Gregorian calendar.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// The date a `date` field's text names, or nil when it is not a real `YYYY-MM-DD` date.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = Self.digits(bytes[0..<4]), let month = Self.digits(bytes[5..<7]),
            let day = Self.digits(bytes[8..<10])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// Nil when the day does not exist (February 30th).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The UTC calendar date of an instant.
    public init(_ date: Date) {
        // Whole days since the epoch: UTC by definition, and no Calendar made per command.
        self.init(daysSinceEpoch: Int((date.timeIntervalSince1970 / 86_400).rounded(.down)))
    }

    public static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func digits(_ slice: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in slice {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }
}

/// An `HH:mm` time of day on a 24-hour clock.
public struct ClockTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Minutes since midnight, 0 to 1439.
    public var minutes: Int

    /// The time a `time` field's text names, or nil when it is not `HH:mm` from 00:00 to 23:59.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        self.minutes = hour * 60 + minute
    }

    public init(minutes: Int) {
        self.minutes = minutes
    }

    public static func < (lhs: ClockTime, rhs: ClockTime) -> Bool { lhs.minutes < rhs.minutes }

    /// `HH:mm`.
    public var description: String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }
}

extension FieldError {
    /// An error of one entry of a list field, worded as the core words an entry's own errors:
    /// `Entry 2: …` for `index` 1. A step's ``FlowStep/validate(_:in:)`` sees every entry in its
    /// place, so the index it enumerates is the person's.
    public static func entry(_ index: Int, of field: String, _ code: FieldErrorCode, _ message: String) -> FieldError {
        FieldError(field: field, code: code, message: "Entry \(index + 1): \(message)")
    }
}
