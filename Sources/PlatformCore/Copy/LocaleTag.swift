import Foundation

/// BCP 47 language tags as sessions keep them: the case CLDR writes (`es-MX`, `zh-Hant-TW`),
/// and the chain a text falls back along (`es-MX` → `es`).
public enum LocaleTag {
    /// The tag in canonical case (`_` read as `-`), or nil when it is not a language tag.
    public static func normalized(_ raw: String) -> String? {
        // Split by hand, not through Foundation's `replacingOccurrences`: every view asks.
        let parts = raw.split(omittingEmptySubsequences: false) { $0 == "-" || $0 == "_" }
        guard let language = parts.first, (2...8).contains(language.count), language.allSatisfy(\.isASCIILetter),
            parts.count <= 8
        else { return nil }
        var tag = [language.lowercased()]
        for part in parts.dropFirst() {
            guard (1...8).contains(part.count), part.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit }) else { return nil }
            switch part.count {
            case 2 where part.allSatisfy(\.isASCIILetter): tag.append(part.uppercased())
            case 4 where part.allSatisfy(\.isASCIILetter): tag.append(part.prefix(1).uppercased() + part.dropFirst().lowercased())
            default: tag.append(part.lowercased())
            }
        }
        return tag.joined(separator: "-")
    }

    /// The tag and each shorter one, most specific first: `zh-Hant-TW`, `zh-Hant`, `zh`.
    public static func fallbacks(_ tag: String) -> [String] {
        var parts = tag.split(separator: "-").map(String.init)
        var chain: [String] = []
        while !parts.isEmpty {
            chain.append(parts.joined(separator: "-"))
            parts.removeLast()
        }
        return chain
    }

    /// The language subtag: `es` of `es-MX`.
    public static func language(_ tag: String) -> String {
        String(tag.prefix { $0 != "-" })
    }

    /// An `Accept-Language` header's tags, most wanted first (`q=0` and `*` left out).
    public static func accepted(_ header: String) -> [String] {
        var ranked: [(tag: String, quality: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").enumerated() {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let first = fields.first, first != "*", let tag = normalized(first) else { continue }
            var quality = 1.0
            for field in fields.dropFirst() where field.hasPrefix("q=") {
                quality = Double(field.dropFirst(2)) ?? 0
            }
            if quality > 0 { ranked.append((tag, quality, order)) }
        }
        return ranked.sorted { ($0.quality, -$0.order) > ($1.quality, -$1.order) }.map(\.tag)
    }
}

extension Character {
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
