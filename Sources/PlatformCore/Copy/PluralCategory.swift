/// A CLDR plural category: which of a catalog's plural variations a number takes.
public enum PluralCategory: String, Sendable, Hashable, CaseIterable {
    case zero, one, two, few, many, other

    /// The category of `number` in `language` (the language subtag of a locale), by the CLDR
    /// cardinal rules of the languages catalogs here ship and their near neighbours; any other
    /// language uses English's rule, and a catalog without the category falls back to `other`.
    public static func of(_ number: Double, in language: String) -> PluralCategory {
        let integer = number.rounded(.towardZero)
        let whole = integer == number
        let i = abs(integer)
        switch language {
        case "es", "it", "pt", "ca":
            // CLDR 44: one for 1 (es: n = 1; it, pt-PT, ca: i = 1 and v = 0; pt: i = 0..1);
            // many for a whole million or more of whole millions.
            if language == "pt" ? (whole && i <= 1) : number == 1 { return .one }
            if whole, i != 0, i.truncatingRemainder(dividingBy: 1_000_000) == 0 { return .many }
            return .other
        case "fr":
            if i <= 1 && number.magnitude < 2 { return .one }
            if whole, i != 0, i.truncatingRemainder(dividingBy: 1_000_000) == 0 { return .many }
            return .other
        case "ja", "zh", "ko", "th", "vi", "id":
            return .other
        default:
            // English, German, Dutch, the Nordic languages: one for exactly 1 with no decimals.
            return whole && i == 1 ? .one : .other
        }
    }
}
