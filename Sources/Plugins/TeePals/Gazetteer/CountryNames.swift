import Foundation

/// Countries' names in a language other than the gazetteer's English, from the ICU data
/// Foundation ships (the CLDR's names: "España", "Estados Unidos").
struct CountryNames {
    private let locale: Locale?

    /// `language`: a locale the session is served in; English (the gazetteer's own names) needs none.
    init(_ language: String) {
        locale = language.hasPrefix("en") ? nil : Locale(identifier: language)
    }

    /// The name of the country with ISO code `code`, or nil to use the gazetteer's.
    func name(of code: String) -> String? {
        guard let locale, let name = locale.localizedString(forRegionCode: code), name != code else { return nil }
        return name
    }
}
