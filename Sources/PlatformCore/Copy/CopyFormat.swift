/// A text with Xcode's format specifiers (`%@`, `%lld`, `%d`, `%f`, positional `%2$@`, `%%`),
/// as String Catalogs write keys and translations: "Welcome, %@!" is the key of every
/// "Welcome, Alex!" a plugin shows.
///
/// A key is read once, at start; a shown text is matched against it without parsing: the
/// literal parts are compared in order and each placeholder takes what lies between them.
public struct CopyFormat: Sendable, Hashable {
    /// What a placeholder stands for.
    public enum Kind: String, Sendable, Hashable {
        /// `%@`: any text.
        case text = "@"
        /// `%d`, `%lld`, `%u`…: a whole number.
        case integer = "lld"
        /// `%f`, `%.1f`, `%g`…: a number.
        case number = "f"
    }

    /// A literal run or a placeholder.
    enum Segment: Sendable, Hashable {
        case literal(String)
        /// `position` counts from 0: the argument it shows.
        case placeholder(position: Int, kind: Kind)
    }

    /// The text as written.
    public let source: String
    let segments: [Segment]

    /// The placeholders by argument position: what a translation must keep.
    public var placeholders: [Kind] {
        var kinds: [Int: Kind] = [:]
        for case .placeholder(let position, let kind) in segments { kinds[position] = kind }
        return (0..<(kinds.keys.max().map { $0 + 1 } ?? 0)).map { kinds[$0] ?? .text }
    }

    public var hasPlaceholders: Bool { segments.contains { if case .placeholder = $0 { true } else { false } } }

    /// The characters of its literal parts: the more, the more specific a key is.
    var literalLength: Int {
        segments.reduce(0) { total, segment in
            if case .literal(let text) = segment { total + text.count } else { total }
        }
    }

    /// Reads `source`; fails on a `%` that starts no specifier this type knows.
    public init(_ source: String) throws(CopyProblem) {
        self.source = source
        var segments: [Segment] = []
        var literal = ""
        var next = 0
        var index = source.startIndex
        while index < source.endIndex {
            let character = source[index]
            index = source.index(after: index)
            guard character == "%" else {
                literal.append(character)
                continue
            }
            guard index < source.endIndex else { throw .init("\"\(source)\": a % at the end (write %% for a percent sign)") }
            if source[index] == "%" {
                literal.append("%")
                index = source.index(after: index)
                continue
            }
            var spec = ""
            while index < source.endIndex, "0123456789$.lhqztjL-+ #'".contains(source[index]) {
                spec.append(source[index])
                index = source.index(after: index)
            }
            guard index < source.endIndex else { throw .init("\"\(source)\": a specifier with no conversion") }
            let conversion = source[index]
            index = source.index(after: index)
            let kind: Kind
            switch conversion {
            case "@": kind = .text
            case "d", "i", "u": kind = .integer
            case "f", "g", "e": kind = .number
            default: throw .init("\"\(source)\": %\(spec)\(conversion) is not a specifier String Catalogs use here (%@, %lld, %d, %f)")
            }
            let position: Int
            if let dollar = spec.firstIndex(of: "$") {
                guard let number = Int(spec[..<dollar]), number >= 1 else { throw .init("\"\(source)\": a bad position in %\(spec)\(conversion)") }
                position = number - 1
            } else {
                position = next
                next += 1
            }
            if !literal.isEmpty { segments.append(.literal(literal)) }
            literal = ""
            if case .placeholder? = segments.last {
                throw .init("\"\(source)\": two placeholders with nothing between them cannot be told apart")
            }
            segments.append(.placeholder(position: position, kind: kind))
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        self.segments = segments
    }

    /// The arguments that make `text` from this format, or nil when it does not. Literal parts
    /// are found left to right, each placeholder taking the run between them (a number
    /// placeholder only a number); when a run does not fit, the next occurrence of the literal
    /// is tried, so an argument may contain the literal that follows it ("Remove %@ %lld" of
    /// "Remove Emergency contact 2"). A position shown twice must show the same text.
    public func arguments(in text: String) -> [String]? {
        var found: [Int: String] = [:]
        guard match(segments[...], in: Substring(text), pending: nil, into: &found) else { return nil }
        return (0..<placeholders.count).map { found[$0] ?? "" }
    }

    private func match(
        _ segments: ArraySlice<Segment>, in rest: Substring, pending: (position: Int, kind: Kind)?, into found: inout [Int: String]
    ) -> Bool {
        guard let segment = segments.first else {
            guard let pending else { return rest.isEmpty }
            return Self.take(String(rest), for: pending, into: &found)
        }
        switch segment {
        case .placeholder(let position, let kind):
            return match(segments.dropFirst(), in: rest, pending: (position, kind), into: &found)
        case .literal(let literal):
            guard let pending else {
                guard rest.hasPrefix(literal) else { return false }
                return match(segments.dropFirst(), in: rest.dropFirst(literal.count), pending: nil, into: &found)
            }
            if segments.count == 1 {
                // The last literal ends the text.
                guard rest.hasSuffix(literal), rest.count > literal.count else { return false }
                return Self.take(String(rest.dropLast(literal.count)), for: pending, into: &found)
            }
            var searchFrom = rest.startIndex
            while let range = rest.range(of: literal, range: searchFrom..<rest.endIndex) {
                var attempt = found
                if Self.take(String(rest[..<range.lowerBound]), for: pending, into: &attempt),
                    match(segments.dropFirst(), in: rest[range.upperBound...], pending: nil, into: &attempt)
                {
                    found = attempt
                    return true
                }
                guard range.lowerBound < rest.endIndex else { break }
                searchFrom = rest.index(after: range.lowerBound)
            }
            return false
        }
    }

    /// Records `text` as the argument at `pending`'s position when it fits its kind and agrees
    /// with what the same position took before.
    private static func take(_ text: String, for pending: (position: Int, kind: Kind), into found: inout [Int: String]) -> Bool {
        guard fits(text, pending.kind) else { return false }
        if let earlier = found[pending.position], earlier != text { return false }
        found[pending.position] = text
        return true
    }

    private static func fits(_ text: String, _ kind: Kind) -> Bool {
        guard !text.isEmpty else { return false }
        switch kind {
        case .text: return true
        case .integer: return Int(text) != nil
        case .number: return Double(text) != nil && !text.contains(where: { $0.isLetter })
        }
    }

    /// The text with each placeholder replaced by its argument.
    func formatted(_ arguments: [String]) -> String {
        var text = ""
        for segment in segments {
            switch segment {
            case .literal(let literal): text += literal
            case .placeholder(let position, _): text += position < arguments.count ? arguments[position] : ""
            }
        }
        return text
    }

    /// The literal text before the first placeholder and after the last: a cheap test before
    /// a match.
    var prefix: String { if case .literal(let text)? = segments.first { text } else { "" } }
    var suffix: String {
        guard case .literal(let text)? = segments.last else { return "" }
        return text
    }
}

/// A catalog, a translation or an override that cannot be used, in one sentence.
public struct CopyProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
