import Foundation

/// A translation of one key: a text, or a text per plural category (the catalog's plural
/// variations).
public enum CopyText: Sendable, Hashable {
    case plain(String)
    case plural([PluralCategory: String])

    /// Every text it may show, for the placeholder checks.
    var variants: [String] {
        switch self {
        case .plain(let text): [text]
        case .plural(let forms): PluralCategory.allCases.compactMap { forms[$0] }
        }
    }
}

/// One String Catalog (`.xcstrings`): the JSON file Xcode edits, with a key per text and its
/// translations by locale.
///
/// Keys are the texts in the source language, placeholders written as Xcode writes them
/// (`"Welcome, %@!"`). A localization's `stringUnit` gives its text; `variations.plural` gives
/// one per CLDR category. Units whose `state` is `new` or `needs_review`, and empty values, are
/// left out (Xcode does not ship them either); `substitutions` and device variations are not read.
public struct StringCatalog: Sendable {
    /// Where it was read from, for messages.
    public let name: String
    public let sourceLanguage: String
    /// Every key, in the catalog's order (Xcode sorts them).
    public let keys: [String]
    /// Translations by locale, then key. The source language's own entries are here too when
    /// the catalog gives a value that differs from the key.
    public let translations: [String: [String: CopyText]]
    /// Keys Xcode marked `stale`: the code no longer shows them.
    public let staleKeys: Set<String>

    public init(
        name: String, sourceLanguage: String, keys: [String], translations: [String: [String: CopyText]], staleKeys: Set<String> = []
    ) {
        self.name = name
        self.sourceLanguage = sourceLanguage
        self.keys = keys
        self.translations = translations
        self.staleKeys = staleKeys
    }

    /// The locales it translates into (its source language aside).
    public var shippedLocales: [String] {
        translations.keys.filter { $0 != sourceLanguage }.sorted()
    }

    /// What `platformd copy check` reports, one line each: per shipped locale, the keys it does
    /// not translate (or only with a unit still `new` or `needs_review`), the stale keys it still
    /// translates, and each translation that drops, adds or changes a placeholder of its key.
    public func problems() -> [String] {
        var problems: [String] = []
        var formats: [String: CopyFormat] = [:]
        for key in keys {
            do { formats[key] = try CopyFormat(key) } catch { problems.append("\(name): key \(error.description)") }
        }
        for locale in shippedLocales {
            let texts = translations[locale] ?? [:]
            for key in keys where texts[key] == nil && !staleKeys.contains(key) {
                problems.append("\(name): \(locale): missing \"\(key)\"")
            }
            for key in keys where texts[key] != nil && staleKeys.contains(key) {
                problems.append("\(name): \(locale): extra \"\(key)\" (stale: the code no longer shows it)")
            }
            for key in keys {
                guard let text = texts[key], let format = formats[key],
                    let problem = CopyTable.placeholderProblem(text, of: format)
                else { continue }
                problems.append("\(name): \(locale): \"\(key)\": \(problem)")
            }
        }
        return problems
    }

    /// Reads a catalog's JSON.
    public init(name: String, json: String) throws(CopyProblem) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(json)
        } catch {
            throw CopyProblem("\(name): not JSON (\(error))")
        }
        guard let strings = root["strings"]?.objectValue else { throw CopyProblem("\(name): no \"strings\" object") }
        let source = root["sourceLanguage"]?.stringValue ?? "en"
        var translations: [String: [String: CopyText]] = [:]
        var stale: Set<String> = []
        for (key, entry) in strings {
            if entry["extractionState"]?.stringValue == "stale" { stale.insert(key) }
            for (locale, localization) in entry["localizations"]?.objectValue ?? [:] {
                guard let tag = LocaleTag.normalized(locale) else {
                    throw CopyProblem("\(name): \"\(locale)\" (key \"\(key)\") is not a language tag")
                }
                if let text = Self.text(localization) {
                    translations[tag, default: [:]][key] = text
                }
            }
        }
        self.init(
            name: name, sourceLanguage: LocaleTag.normalized(source) ?? "en", keys: strings.keys.sorted(),
            translations: translations, staleKeys: stale)
    }

    /// Reads the catalog file at `url`.
    public init(contentsOf url: URL) throws(CopyProblem) {
        let json: String
        do {
            json = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw CopyProblem("\(url.path): cannot be read (\(error.localizedDescription))")
        }
        try self.init(name: url.lastPathComponent, json: json)
    }

    /// A plugin's or the core's catalog from its resource bundle: `Localizable.xcstrings`,
    /// named `OWNER/Localizable.xcstrings` in messages. A bundle without one gives an empty
    /// catalog; one that does not parse stops the start.
    public static func bundled(in bundle: Bundle, owner: String, name: String = "Localizable") -> StringCatalog {
        let label = "\(owner)/\(name).xcstrings"
        guard let url = bundle.url(forResource: name, withExtension: "xcstrings") else {
            return StringCatalog(name: label, sourceLanguage: "en", keys: [], translations: [:])
        }
        do {
            let catalog = try StringCatalog(contentsOf: url)
            return StringCatalog(
                name: label, sourceLanguage: catalog.sourceLanguage, keys: catalog.keys, translations: catalog.translations,
                staleKeys: catalog.staleKeys)
        } catch {
            preconditionFailure("the String Catalog shipped in \(bundle.bundlePath) is broken: \(error)")
        }
    }

    private static func text(_ localization: JSONValue) -> CopyText? {
        if let unit = localization["stringUnit"], let value = shipped(unit) {
            return .plain(value)
        }
        guard let plural = localization["variations"]?["plural"]?.objectValue else { return nil }
        var forms: [PluralCategory: String] = [:]
        for (name, variation) in plural {
            guard let category = PluralCategory(rawValue: name), let unit = variation["stringUnit"],
                let value = shipped(unit)
            else { continue }
            forms[category] = value
        }
        return forms.isEmpty ? nil : .plural(forms)
    }

    private static func shipped(_ unit: JSONValue) -> String? {
        guard let value = unit["value"]?.stringValue, !value.isEmpty else { return nil }
        switch unit["state"]?.stringValue {
        case "new", "needs_review": return nil
        default: return value
        }
    }
}
