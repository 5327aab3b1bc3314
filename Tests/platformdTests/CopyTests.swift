import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import PlatformTransports
@testable import platformd

/// Copy in the person's language through the real binary: `copy keys` and `copy check`, a
/// tenants file's overrides (and the exit 78 of a wrong one), `Accept-Language` over HTTP and
/// `mcp --locale`. The tenant is the first registered one that ships a locale besides its base
/// language; which one is the registry's business.
@Suite("platformd copy", .enabled(if: TranslatedTenant.translated != nil, "no registered plugin ships a translation"))
struct CopyTests {
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await PlatformdProcess.with(arguments) { process in
            let exit = try await process.waitForExit()
            return (exit.status, String(decoding: process.stdoutBytes, as: UTF8.self), process.stderrText)
        }
    }

    @Test func copyCheckPassesOnTheShippedCatalogsAndFailsOnAPlantedGap() async throws {
        let shipped = try await Self.run(["copy", "check"])
        #expect(shipped.status == 0, "\(shipped.stdout)\(shipped.stderr)")
        #expect(shipped.stdout.contains(": ok"))
        let (tenant, locale) = try #require(TranslatedTenant.translated)
        let catalog = try #require(tenant.plugin.stringCatalogs.first)
        // The catalog as a translator would leave it: one key without its translation, one
        // translation that lost its placeholder.
        let dropped = try #require(catalog.keys.first { (try? CopyFormat($0).hasPlaceholders) == false && catalog.translations[locale]?[$0] != nil })
        let template = try #require(catalog.keys.first { (try? CopyFormat($0).hasPlaceholders) == true && catalog.translations[locale]?[$0] != nil })
        var strings: [String: JSONValue] = [:]
        for key in catalog.keys {
            var localizations: [String: JSONValue] = [:]
            if key != dropped, let text = catalog.translations[locale]?[key] {
                switch text {
                case .plain(let value):
                    localizations[locale] = ["stringUnit": ["state": "translated", "value": .string(key == template ? "no placeholder" : value)]]
                case .plural(let forms):
                    localizations[locale] = [
                        "variations": [
                            "plural": .object(
                                Dictionary(
                                    uniqueKeysWithValues: forms.map {
                                        (
                                            $0.key.rawValue,
                                            ["stringUnit": ["state": "translated", "value": .string(key == template ? "no placeholder" : $0.value)]]
                                        )
                                    }))
                        ]
                    ]
                }
            }
            strings[key] = ["localizations": .object(localizations)]
        }
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("Localizable.xcstrings")
            try Data(JSONValue.object(["sourceLanguage": "en", "strings": .object(strings), "version": "1.0"]).serialized().utf8).write(to: file)
            let planted = try await Self.run(["copy", "check", "--catalog", file.path])
            #expect(planted.status == 65, "\(planted.stdout)\(planted.stderr)")
            #expect(planted.stdout.contains("\(locale): missing \"\(dropped)\""), "\(planted.stdout)")
            #expect(planted.stdout.contains("\"\(template)\": \"no placeholder\""), "\(planted.stdout)")
        }
    }

    @Test func copyCheckPrintsEachPluginsCoveragePerLocale() async throws {
        let shipped = try await Self.run(["copy", "check"])
        #expect(shipped.status == 0, "\(shipped.stdout)\(shipped.stderr)")
        let lines = shipped.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("coverage: ") }
        var seen: Set<String> = []
        for tenant in RegisteredPlugins.defaultTenants where seen.insert(tenant.pluginName).inserted {
            let served = tenant.copy.locales.dropFirst()
            if served.isEmpty {
                #expect(lines.contains { $0.hasPrefix("coverage: \(tenant.pluginName):") }, "\(tenant.pluginName): \(lines)")
            }
            for locale in served {
                let line = lines.first { $0.hasPrefix("coverage: \(tenant.pluginName) \(locale): ") }
                #expect(line?.hasSuffix("(100%)") == true, "\(tenant.pluginName) \(locale): \(line ?? "no coverage line")")
            }
        }
    }

    /// A view's `locale` is a language its texts are in: every registered tenant asked for
    /// Spanish answers either Spanish, with a title that is not its English one, or its base
    /// language with the English title (a plugin that ships no Spanish, such as AFL Fantasy).
    @Test func everyTenantAskedForSpanishAnswersTheLanguageItsTextsAreIn() async throws {
        try await PlatformdProcess.withServer { server in
            for tenant in RegisteredPlugins.defaultTenants {
                let english = try await server.call("flow.start", ["tenant": .string(tenant.id), "userId": "en"])["result"]
                let spanish = try await server.call("flow.start", ["tenant": .string(tenant.id), "userId": "es", "locale": "es"])["result"]
                let ships = tenant.copy.locales.contains("es")
                #expect(spanish?["locale"] == (ships ? "es" : .string(tenant.copy.baseLanguage)), "\(tenant.id): \(spanish?["locale"] ?? .null)")
                let title = spanish?["step"]?["title"]
                if ships {
                    #expect(title != english?["step"]?["title"], "\(tenant.id): \(title ?? .null) is its English title")
                } else {
                    #expect(spanish?["step"] == english?["step"], "\(tenant.id) in its base language: every text as in English")
                }
            }
        }
    }

    @Test func aKeyFromCopyKeysOverridesTheTextItNames() async throws {
        let (hosted, locale) = try #require(TranslatedTenant.translated)
        let listed = try await Self.run(["copy", "keys", hosted.id, "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let keys = try JSONValue.parse(listed.stdout).arrayValue ?? []
        #expect(keys.count == hosted.copy.keys.count)
        let table = try await Self.run(["copy", "keys", hosted.id])
        #expect(table.stdout.split(separator: "\n").count == keys.count + 1)

        // The first step's first label in the base language is one of the keys listed.
        let title = try await PlatformdProcess.withServer { server in
            try await server.call("flow.start", ["tenant": .string(hosted.id), "userId": "u"])["result"]?["step"]?["fields"]?[0]?["label"]?.stringValue
        }
        let key = try #require(keys.first { $0["key"]?.stringValue == title }?["key"]?.stringValue, "\(title ?? "nil") is not listed")
        let template = try #require(keys.first { $0["placeholders"]?.arrayValue?.isEmpty == false }?["key"]?.stringValue)

        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("tenants.json")
            let tenants: JSONValue = [
                "tenants": [
                    [
                        "id": .string(hosted.id), "plugin": .string(hosted.pluginName),
                        "copy": [.init(stringLiteral: locale): [.init(stringLiteral: key): "Overridden title"]],
                    ]
                ]
            ]
            try Data(tenants.serialized().utf8).write(to: file)
            try await PlatformdProcess.withServer(["--tenants", file.path]) { server in
                let local = try await server.call("flow.start", ["tenant": .string(hosted.id), "userId": "o", "locale": .string(locale)])
                #expect(local["result"]?["step"]?["fields"]?[0]?["label"] == "Overridden title")
                #expect(local["result"]?["locale"] == .string(locale))
                let base = try await server.call("flow.start", ["tenant": .string(hosted.id), "userId": "b"])
                #expect(base["result"]?["step"]?["fields"]?[0]?["label"] == .string(key), "the base language keeps its text")
            }
        }
        try await expectTenantsFileRefused(
            #"{ "tenants": [ { "id": "x", "plugin": "\#(hosted.pluginName)", "copy": { "\#(locale)": { "No such key anywhere": "x" } } } ] }"#,
            tenant: "x", key: "copy", reason: "\"No such key anywhere\" is not a key")
        let escaped = template.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        try await expectTenantsFileRefused(
            #"{ "tenants": [ { "id": "x", "plugin": "\#(hosted.pluginName)", "copy": { "\#(locale)": { "\#(escaped)": "no placeholder" } } } ] }"#,
            tenant: "x", key: "copy", reason: "drops")
    }

    @Test func acceptLanguageStandsInForTheLocaleOverHTTP() async throws {
        let (hosted, locale) = try #require(TranslatedTenant.translated)
        try await HTTPServing.with(["--db", ":memory:", "--http", "127.0.0.1:0", "--auth", "none"]) { http in
            let body: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": "flow.start", "params": ["tenant": .string(hosted.id), "userId": "h"]]
            let asked = try await http.request(
                .POST, "/rpc", body: body.serializedBytes(), headers: [("Accept-Language", "xx-YY, \(locale)-ZZ;q=0.8, en;q=0.5")])
            #expect(asked.json?["result"]?["locale"] == .string(locale), "\(asked.text)")
            let explicit: JSONValue = [
                "jsonrpc": "2.0", "id": 2, "method": "flow.start", "params": ["tenant": .string(hosted.id), "userId": "i", "locale": "en"],
            ]
            let given = try await http.request(.POST, "/rpc", body: explicit.serializedBytes(), headers: [("Accept-Language", locale)])
            #expect(given.json?["result"]?["locale"] == "en", "a locale in the params wins over the header")
            let plain = try await http.call("flow.start", ["tenant": .string(hosted.id), "userId": "j"])
            #expect(plain["result"]?["locale"] == .string(hosted.copy.baseLanguage))
            // The base language wanted first wins over a translation wanted less: it was skipped,
            // so `en-US,en;q=0.9,es;q=0.8` got Spanish.
            let base = hosted.copy.baseLanguage
            let baseFirst: JSONValue = ["jsonrpc": "2.0", "id": 3, "method": "flow.start", "params": ["tenant": .string(hosted.id), "userId": "k"]]
            let first = try await http.request(
                .POST, "/rpc", body: baseFirst.serializedBytes(), headers: [("Accept-Language", "\(base)-ZZ, \(base);q=0.9, \(locale);q=0.8")])
            #expect(first.json?["result"]?["locale"] == .string(base), "\(first.text)")
        }
    }

    @Test func theMCPTextIsInTheSessionsLanguage() async throws {
        let (hosted, locale) = try #require(TranslatedTenant.translated)
        try await PlatformdProcess.with(MCPClient.arguments(hosted.id, user: "m", db: ":memory:", ["--locale", locale])) { server in
            let client = MCPClient(server)
            _ = try await client.initialize()
            let status = try await client.call("onboarding_status")
            let text = MCPClient.text(status)
            let view = try #require(status["structuredContent"])
            #expect(view["locale"] == .string(locale))
            let title = try #require(view["step"]?["title"]?.stringValue)
            #expect(text.contains(title))
            let buttons = hosted.copy.text("Buttons: x", in: locale)
            #expect(buttons != "Buttons: x")
            #expect(text.contains(String(buttons.dropLast(1))), "\(text)")
            #expect(!text.contains("Buttons:"), "\(text)")
        }
    }
}

/// What CopyTests run on (outside the suite: its trait reads it).
enum TranslatedTenant {
    /// A translated tenant and one locale it serves besides the base, or nil (the suite is then
    /// reported skipped).
    static var translated: (tenant: HostedTenant, locale: String)? {
        for tenant in RegisteredPlugins.defaultTenants {
            if let locale = tenant.copy.locales.dropFirst().first { return (tenant, locale) }
        }
        return nil
    }
}
