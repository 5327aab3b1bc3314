import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore

/// `platformd copy`: the texts flows show and their translations.
struct Copy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a tenant's text keys, or check the String Catalogs the plugins ship.",
        discussion: """
            Every text a flow shows has a key: the text as the plugin's code writes it, placeholders \
            as Xcode writes them (%@, %lld). Translations live in each plugin's \
            Localization/Localizable.xcstrings; a tenant overrides any of them in the tenants file \
            ("copy": { "es": { "KEY": "TEXT" } }). See Docs/translating.md.
            """,
        subcommands: [Keys.self, Check.self])

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a tenant's text keys: the key, its base text, its placeholders and where it comes from.",
            discussion: """
                One tab-separated line per key after a header line: KEY, BASE TEXT, PLACEHOLDERS \
                (in argument order, "-" for none), CATALOG (the plugin's file or "core"), and the \
                locales that translate it. --json prints one array of objects instead.
                """)

        @OptionGroup var tenantOptions: TenantOptions
        @Argument(help: "The tenant, e.g. teepals.") var tenant: String
        @Flag(help: "One JSON array: key, base, placeholders, catalog, translations by locale.") var json = false

        func run() async throws {
            let hosted = tenantOptions.load()
            guard let entry = hosted.first(where: { $0.id == tenant }) else {
                throw CommandRefusal.exit("tenant \(tenant) is not hosted (tenants: \(hosted.map(\.id).joined(separator: ", ")))")
            }
            let book = entry.copy
            let served = book.locales.dropFirst()
            if json {
                let rows: [JSONValue] = book.keys.map { key in
                    var translations: [String: JSONValue] = [:]
                    for locale in served {
                        if let text = book.translation(ofKey: key.key, in: locale) { translations[locale] = .string(text) }
                    }
                    return [
                        "key": .string(key.key), "base": .string(key.base),
                        "placeholders": .array(key.format.placeholders.enumerated().map { .string(Self.specifier($0.offset, $0.element)) }),
                        "catalog": .string(key.origin), "translations": .object(translations),
                    ]
                }
                StandardOutput.writeLine(JSONValue.array(rows).serialized())
                return
            }
            StandardOutput.writeLine("KEY\tBASE TEXT\tPLACEHOLDERS\tCATALOG\tTRANSLATED")
            for key in book.keys {
                let placeholders = key.format.placeholders.enumerated().map { Self.specifier($0.offset, $0.element) }
                let locales = served.filter { book.translation(ofKey: key.key, in: $0) != nil }
                StandardOutput.writeLine(
                    [
                        key.key, key.base, placeholders.isEmpty ? "-" : placeholders.joined(separator: " "), key.origin,
                        locales.isEmpty ? "-" : locales.joined(separator: " "),
                    ].joined(separator: "\t"))
            }
        }

        /// `%1$@`: the position and kind a translation must keep.
        static func specifier(_ position: Int, _ kind: CopyFormat.Kind) -> String {
            "%\(position + 1)$\(kind.rawValue)"
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every String Catalog shipped: exit 65 on a missing or extra key or a dropped placeholder.",
            discussion: """
                For each registered plugin's catalogs, the core's and each --catalog file, and each locale they ship: the \
                keys it does not translate (or only with a unit still new or needs_review), stale keys \
                it still translates, and each translation that drops, adds or changes a placeholder of \
                its key; and each locale a plugin ships that the core does not (its buttons and generic \
                messages would stay in the base language). One line per problem on stdout, then exit \
                65 (EX_DATAERR); nothing wrong: one summary line and exit 0. With --tenants, the \
                file's copy overrides are checked too (a wrong one exits 78, as serve would).
                """)

        @OptionGroup var tenantOptions: TenantOptions
        @Option(name: .long, help: ArgumentHelp("A String Catalog to check as well (a translator's edited copy); may be repeated.", valueName: "file"))
        var catalog: [String] = []

        func run() async throws {
            let hosted = tenantOptions.load()
            var catalogs: [StringCatalog] = [CopyBook.coreCatalog]
            var seen: Set<String> = []
            for entry in RegisteredPlugins.defaultTenants + hosted where seen.insert(entry.pluginName).inserted {
                catalogs += entry.plugin.stringCatalogs
            }
            for path in catalog {
                do throws(CopyProblem) {
                    catalogs.append(try StringCatalog(contentsOf: URL(fileURLWithPath: path)))
                } catch {
                    throw CommandRefusal.exit(error.description)
                }
            }
            var coverage: [String] = []
            seen = []
            for entry in RegisteredPlugins.defaultTenants + hosted where seen.insert(entry.pluginName).inserted {
                coverage += Self.coverage(of: entry.pluginName, entry.plugin.stringCatalogs)
            }
            var problems = catalogs.flatMap { $0.problems() }
            let coreLocales = Set(CopyBook.coreCatalog.shippedLocales)
            for catalog in catalogs.dropFirst() {
                for locale in catalog.shippedLocales where !LocaleTag.fallbacks(locale).contains(where: coreLocales.contains) {
                    problems.append(
                        "\(catalog.name): ships \(locale), which the core's catalog does not: its buttons and generic messages would stay in English")
                }
            }
            for line in coverage { StandardOutput.writeLine(line) }
            for problem in problems { StandardOutput.writeLine(problem) }
            guard problems.isEmpty else {
                FileHandle.standardError.write(Data("platformd copy check: \(problems.count) problem\(problems.count == 1 ? "" : "s")\n".utf8))
                throw ExitCode(65)
            }
            let keys = catalogs.reduce(0) { $0 + $1.keys.count }
            let locales = Set(catalogs.flatMap(\.shippedLocales)).sorted()
            StandardOutput.writeLine(
                "copy check: \(catalogs.count) catalogs (\(catalogs.map(\.name).joined(separator: ", "))), \(keys) keys, locales \(locales.joined(separator: ", ")): ok"
            )
        }

        /// One line per locale a plugin ships: how many of its texts (its catalogs' keys and the
        /// core's) the locale translates. A plugin without catalogs serves its base language only.
        static func coverage(of plugin: String, _ catalogs: [StringCatalog]) -> [String] {
            guard let base = catalogs.first?.sourceLanguage else {
                return ["coverage: \(plugin): no String Catalog: every session is served in its base language"]
            }
            let all = catalogs + [CopyBook.coreCatalog]
            let locales = Set(catalogs.flatMap(\.shippedLocales)).sorted()
            guard !locales.isEmpty else { return ["coverage: \(plugin): \(base) only"] }
            return locales.map { locale in
                var total = 0
                var translated = 0
                for catalog in all {
                    let keys = catalog.keys.filter { !catalog.staleKeys.contains($0) }
                    total += keys.count
                    translated += keys.filter { catalog.translations[locale]?[$0] != nil }.count
                }
                let percent = total == 0 ? 100 : translated * 100 / total
                return "coverage: \(plugin) \(locale): \(translated) of \(total) texts (\(percent)%)"
            }
        }
    }
}
