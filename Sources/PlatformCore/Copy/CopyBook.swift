import Foundation
import Synchronization

/// Every text one tenant's flows can show, with its translations: the core's catalog, the
/// plugin's, and the tenant's overrides from the tenants file, read once at start.
///
/// Texts are translated where the views are made, from the base text: a text that is a key is
/// looked up (one dictionary read); one that is not is matched against the keys with
/// placeholders, most specific first ("Welcome, Alex!" is "Welcome, %@!"), and its arguments
/// are translated in turn when they are keys themselves ("Nickname is required." is "%@ is
/// required." of "Nickname"). A text no key matches is shown as it is: names, places, what the
/// person typed.
public struct CopyBook: Sendable {
    /// The language the code writes its texts in.
    public let baseLanguage: String
    /// The locales texts are served in, the base language first.
    public let locales: [String]
    /// Every key, with its placeholders, in the order `copy keys` lists them (the core's last).
    public let keys: [CopyKey]
    /// Each key read as a format once, by its text.
    let formats: [String: CopyFormat]
    /// Each locale's texts, its parents' folded in.
    let tables: [String: CopyTable]

    /// A book that serves the base texts only.
    public static let base = CopyBook(baseLanguage: "en", locales: ["en"], keys: [], tables: [:])

    init(baseLanguage: String, locales: [String], keys: [CopyKey], tables: [String: CopyTable]) {
        self.baseLanguage = baseLanguage
        self.locales = locales
        self.keys = keys
        self.formats = Dictionary(keys.map { ($0.key, $0.format) }, uniquingKeysWith: { first, _ in first })
        self.tables = tables
    }

    /// The book of `plugin`'s catalogs as shipped, with no tenant's overrides. Its catalogs are
    /// part of the build: one that does not read is a defect, and stops the start saying so.
    public static func shipped(by plugin: any OnboardingPlugin) -> CopyBook {
        do {
            return try CopyBook(catalogs: plugin.stringCatalogs)
        } catch {
            preconditionFailure("plugin \(plugin.name)'s String Catalogs do not read: \(error)")
        }
    }

    /// Builds the book of a plugin's catalogs (the core's under them) and a tenant's overrides.
    ///
    /// - Parameters:
    ///   - catalogs: the plugin's String Catalogs; a key in two of them takes the first's texts.
    ///   - core: the core's catalog (its generic messages and the MCP text).
    ///   - overrides: per locale, a text per key, from the tenants file.
    /// - Throws: a `CopyProblem` naming an unknown key, a key or translation that does not
    ///   read as a format, or a translation that drops or adds a placeholder of its key.
    public init(
        catalogs: [StringCatalog], core: StringCatalog = CopyBook.coreCatalog,
        overrides: [String: [String: String]] = [:]
    ) throws(CopyProblem) {
        let baseLanguage = catalogs.first?.sourceLanguage ?? core.sourceLanguage
        var keys: [CopyKey] = []
        var formats: [String: CopyFormat] = [:]
        for (catalog, origin) in (catalogs + [core]).map({ ($0, $0.name) }) {
            for key in catalog.keys where formats[key] == nil {
                let format = try CopyFormat(key)
                formats[key] = format
                // Xcode writes a source-language unit only when the text differs from its key.
                let base: String
                if case .plain(let text)? = catalog.translations[catalog.sourceLanguage]?[key] { base = text } else { base = key }
                keys.append(CopyKey(key: key, base: base, format: format, origin: origin))
            }
        }
        // The locales served are the plugin's: the core translates only its own words (buttons,
        // generic messages), so a locale the plugin does not ship would show its texts in the base
        // language under a `locale` that says otherwise. A plugin without catalogs serves its base
        // language alone.
        // A tenant may add a locale of its own, translating every text in its tenants file.
        var shipped = Set(catalogs.flatMap(\.shippedLocales))
        for (locale, texts) in overrides {
            guard let tag = LocaleTag.normalized(locale), tag != baseLanguage,
                !LocaleTag.fallbacks(tag).contains(where: shipped.contains)
            else { continue }
            let missing = keys.filter { texts[$0.key] == nil }.count
            guard missing == 0 else {
                let ships = shipped.isEmpty ? "no translation" : "only " + shipped.sorted().joined(separator: ", ")
                throw CopyProblem(
                    "copy.\(locale): the plugin ships \(ships), and the tenants file translates \(keys.count - missing) of the \(keys.count) texts: the other \(missing) would be shown in \(baseLanguage) under locale \(tag) (translate every key platformd copy keys lists, or none)"
                )
            }
            shipped.insert(tag)
        }
        func isShipped(_ tag: String) -> Bool { LocaleTag.fallbacks(tag).contains { shipped.contains($0) } }
        // Each locale's own texts: overrides first, then the plugin's catalogs, then the core's.
        var own: [String: [String: CopyText]] = [:]
        for (locale, texts) in overrides {
            guard let tag = LocaleTag.normalized(locale) else { throw CopyProblem("copy: \"\(locale)\" is not a language tag") }
            for (key, text) in texts {
                guard formats[key] != nil else {
                    throw CopyProblem("copy.\(locale): \"\(key)\" is not a key of this tenant's texts (platformd copy keys lists them)")
                }
                own[tag, default: [:]][key] = .plain(text)
            }
        }
        for catalog in catalogs + [core] {
            for (locale, texts) in catalog.translations {
                own[locale, default: [:]].merge(texts) { first, _ in first }
            }
        }
        var tables: [String: CopyTable] = [:]
        for locale in own.keys where locale == baseLanguage || isShipped(locale) {
            // A locale also shows its parents' texts for the keys it does not translate itself.
            var texts: [String: CopyText] = [:]
            for tag in LocaleTag.fallbacks(locale) {
                texts.merge(own[tag] ?? [:]) { first, _ in first }
            }
            tables[locale] = try CopyTable(locale: locale, texts: texts, formats: formats)
        }
        let served = tables.keys.filter { $0 != baseLanguage }.sorted()
        self.init(baseLanguage: baseLanguage, locales: [baseLanguage] + served, keys: keys, tables: tables)
    }

    /// The core's own texts (generic field messages, button labels, the MCP text).
    public static let coreCatalog: StringCatalog = StringCatalog.bundled(in: .module, owner: "core")

    /// The locale a session asking for `requested` sees: the nearest one served
    /// (`es-MX` → `es` → the base language).
    public func served(_ requested: String?) -> String {
        guard let requested, let tag = LocaleTag.normalized(requested) else { return baseLanguage }
        return LocaleTag.fallbacks(tag).first { $0 == baseLanguage || tables[$0] != nil } ?? baseLanguage
    }

    /// The best of several wanted locales (an `Accept-Language` header's, most wanted first): the
    /// first that this book speaks, itself or by its language (`es-AR` by `es`, `en-US` by the
    /// base language `en`), else the first. A wanted base language counts: `en-US,en;q=0.9,es;q=0.8`
    /// is English, where it used to be skipped for the Spanish after it.
    public func preferred(_ wanted: [String]) -> String? {
        wanted.first(where: speaks) ?? wanted.first
    }

    /// Whether `requested` is served as itself or as its language, not only by falling back to
    /// the base language.
    public func speaks(_ requested: String) -> Bool {
        guard let tag = LocaleTag.normalized(requested) else { return false }
        return LocaleTag.fallbacks(tag).contains { $0 == baseLanguage || tables[$0] != nil }
    }

    /// `text` in `locale` (a served one), or nil when no key matches it there.
    public func translation(of text: String, in locale: String) -> String? {
        tables[locale]?.remembered(text)
    }

    /// The translation of `key` itself in `locale` (a plural's `other` form), or nil.
    public func translation(ofKey key: String, in locale: String) -> String? {
        tables[locale]?.source(ofKey: key)
    }

    /// `key` (a key with placeholders) in `locale` with `arguments` put in, plural chosen by the
    /// locale's rule; the key itself formatted when the locale does not translate it. For words
    /// a host composes itself, where matching the composed text back would be guesswork.
    public func format(_ key: String, _ arguments: [String], in locale: String) -> String {
        guard let format = formats[key] ?? (try? CopyFormat(key)) else { return key }
        guard let table = tables[locale], let compiled = table.compiled(format) else { return format.formatted(arguments) }
        return compiled.formatted(arguments, key: format, language: table.language)
    }

    /// `text` in `locale`, or as it is.
    public func text(_ text: String, in locale: String) -> String {
        translation(of: text, in: locale) ?? text
    }

    /// Whether texts in `locale` are the code's as they are (nothing to look up).
    public func isVerbatim(_ locale: String) -> Bool { tables[locale] == nil }
}

/// A key as `platformd copy keys` lists it.
public struct CopyKey: Sendable, Hashable {
    /// The key: the base text, placeholders as the catalog writes them.
    public let key: String
    /// The text in the base language, as the catalog's source-language unit gives it (else the key).
    public let base: String
    public let format: CopyFormat
    /// The catalog that declares it (`TeePals/Localizable.xcstrings`, `core/Localizable.xcstrings`).
    public let origin: String
}

/// One locale's texts, ready to look up: plain keys in a dictionary, keys with placeholders in
/// the order they are tried.
struct CopyTable: Sendable {
    /// A translation read once: its text, or one per plural category, as formats.
    enum Compiled: Sendable {
        case plain(CopyFormat)
        case plural([PluralCategory: CopyFormat])

        func formatted(_ arguments: [String], key: CopyFormat, language: String) -> String {
            switch self {
            case .plain(let format): return format.formatted(arguments)
            case .plural(let forms):
                let counted = key.placeholders.indices.first { key.placeholders[$0] != .text } ?? 0
                let number = counted < arguments.count ? Double(arguments[counted]) : nil
                let category = number.map { PluralCategory.of($0, in: language) } ?? .other
                guard let form = forms[category] ?? forms[.other] else { return key.formatted(arguments) }
                return form.formatted(arguments)
            }
        }
    }

    let language: String
    /// What each text seen so far became (nil: no key matched), so the texts a flow shows over
    /// and over (options, labels, a library's goals) cost one lookup after the first time.
    let memo = TranslationMemo()
    let exact: [String: Compiled]
    /// Keys with placeholders, the most literal text first, so "%@+ saves (season)" is tried
    /// before "%@ saves".
    let templates: [(key: CopyFormat, text: Compiled)]

    init(locale: String, texts: [String: CopyText], formats: [String: CopyFormat]) throws(CopyProblem) {
        language = LocaleTag.language(locale)
        var exact: [String: Compiled] = [:]
        var templates: [(key: CopyFormat, text: Compiled)] = []
        for (key, text) in texts {
            guard let format = formats[key] else { continue }
            if let problem = Self.placeholderProblem(text, of: format) {
                throw CopyProblem("\(locale): \"\(key)\": \(problem)")
            }
            let compiled: Compiled
            switch text {
            case .plain(let value): compiled = .plain(try CopyFormat(value))
            case .plural(let forms):
                var formats: [PluralCategory: CopyFormat] = [:]
                for (category, value) in forms { formats[category] = try CopyFormat(value) }
                compiled = .plural(formats)
            }
            if format.hasPlaceholders {
                templates.append((format, compiled))
            } else {
                exact[format.formatted([])] = compiled
            }
        }
        self.exact = exact
        self.templates = templates.sorted {
            ($0.key.literalLength, $0.key.source) > ($1.key.literalLength, $1.key.source)
        }
    }

    /// A key's compiled translation in this locale.
    func compiled(_ format: CopyFormat) -> Compiled? {
        format.hasPlaceholders ? templates.first { $0.key == format }?.text : exact[format.formatted([])]
    }

    /// A key's translation as written (a plural's `other` form).
    func source(ofKey key: String) -> String? {
        guard let format = try? CopyFormat(key) else { return nil }
        switch compiled(format) {
        case .plain(let text)?: return text.source
        case .plural(let forms)?: return (forms[.other] ?? forms.values.first)?.source
        case nil: return nil
        }
    }

    /// The translation of `text`, from the memo when it has been asked before.
    func remembered(_ text: String) -> String? {
        if let known = memo.lookup(text) { return known }
        let translated = translation(of: text, depth: 0)
        memo.store(text, translated)
        return translated
    }

    func translation(of text: String, depth: Int) -> String? {
        if let compiled = exact[text] {
            return compiled.formatted([], key: Self.none, language: language)
        }
        guard depth < 3 else { return nil }
        for (key, compiled) in templates where text.hasPrefix(key.prefix) && text.hasSuffix(key.suffix) {
            guard let arguments = key.arguments(in: text) else { continue }
            let translated = arguments.map { argument in
                translation(of: argument, depth: depth + 1) ?? capitalizedTranslation(of: argument) ?? argument
            }
            return compiled.formatted(translated, key: key, language: language)
        }
        return nil
    }

    /// A label a message lowercased ("Choose home course from…") is still its key.
    private func capitalizedTranslation(of text: String) -> String? {
        guard let first = text.first, first.isLowercase,
            let compiled = exact[first.uppercased() + text.dropFirst()]
        else { return nil }
        let translated = compiled.formatted([], key: Self.none, language: language)
        return translated.prefix(1).lowercased() + translated.dropFirst()
    }

    private static let none = try! CopyFormat("")

    /// Why a translation cannot stand for its key: a placeholder dropped or added, or a kind
    /// changed. Plural forms other than `other` may leave the counted number out ("un gol").
    static func placeholderProblem(_ text: CopyText, of key: CopyFormat) -> String? {
        let wanted = key.placeholders
        if case .plural(let forms) = text, forms[.other] == nil {
            return "a plural without an `other` form (the form every language falls back to)"
        }
        for value in text.variants {
            let format: CopyFormat
            do { format = try CopyFormat(value) } catch { return error.description }
            let kept = format.placeholders
            let isOther: Bool
            if case .plural(let forms) = text { isOther = forms[.other] == value } else { isOther = true }
            if kept.count > wanted.count {
                return "\"\(value)\" has \(kept.count) placeholders, its key \(wanted.count)"
            }
            if isOther && kept.count < wanted.count {
                return "\"\(value)\" drops a placeholder of its key (\(wanted.count) wanted, \(kept.count) kept)"
            }
            for (position, kind) in kept.enumerated() where kind != wanted[position] && format.mentions(position) {
                return "\"\(value)\" shows placeholder \(position + 1) as %\(kind.rawValue), its key as %\(wanted[position].rawValue)"
            }
            if isOther, let missing = wanted.indices.first(where: { !format.mentions($0) }) {
                return "\"\(value)\" drops placeholder \(missing + 1) of its key"
            }
        }
        return nil
    }
}

extension CopyFormat {
    /// Whether a placeholder shows argument `position`.
    func mentions(_ position: Int) -> Bool {
        segments.contains { if case .placeholder(position, _) = $0 { true } else { false } }
    }
}

/// A bounded memo of translations, shared by every request of a locale. Held only for a
/// dictionary read or write, never across a wait; when it is full it starts again, so texts
/// that carry a person's name cannot grow it without end.
final class TranslationMemo: Sendable {
    static let capacity = 8192
    private let entries = Mutex<[String: String?]>([:])

    /// `.some(nil)`: asked before, and no key matched.
    func lookup(_ text: String) -> String?? {
        entries.withLock { $0[text] }
    }

    func store(_ text: String, _ translation: String?) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[text] = .some(translation)
        }
    }
}
