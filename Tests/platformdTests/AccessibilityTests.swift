import Foundation
import PlatformCore
import PlatformTesting
import Testing

@testable import platformd

/// Accessibility measured, not asserted: axe-core in Chromium over every page of every tenant's
/// flow in English and Spanish, light and dark, with and without the errors of an empty submit,
/// the completion pages and every dashboard page; each flow also walked with the keyboard alone.
/// (The test is in HostedFlowTests' serialized suite: one Chromium at a time, so two browsers
/// never starve the rest of the suite on two cores.)
enum AccessibilityTests {
    static let appName = "Club Onboarding"
    static let returnUrl = "https://club.example/app/onboarded"

    /// Every registered plugin's default tenant; the first with `hosted` overrides (brand, logo,
    /// name, return link) and an experiment between two variants of its default flow, so the
    /// overrides and the dashboard's experiment page are audited too.
    static func serving(_ body: (HTTPServing, _ admin: String) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let logo = directory.appendingPathComponent("logo.svg")
            try Data(##"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="64" height="32" fill="#1D4ED8"/></svg>"##.utf8)
                .write(to: logo)
            var tenants: [JSONValue] = Hosted.registrations.map { ["id": .string($0.defaultTenant), "plugin": .string($0.name)] }
            let flow = try #require(RegisteredPlugins.defaultTenants.first?.plugin.flows.first?.id)
            tenants[0] = [
                "id": .string(Hosted.tenants[0]), "plugin": .string(Hosted.plugin),
                "hosted": ["brandColor": "#1D4ED8", "logo": "logo.svg", "appName": .string(appName), "returnUrl": .string(returnUrl)],
                "experiments": [
                    [
                        "id": "a11y", "flow": .string(flow),
                        "variants": [["id": "a", "flow": .string(flow), "weight": 1], ["id": "b", "flow": .string(flow), "weight": 1]],
                        "control": "a",
                    ]
                ],
            ]
            let file = directory.appendingPathComponent("tenants.json")
            try Data(JSONValue.object(["tenants": .array(tenants)]).serialized().utf8).write(to: file)
            let db = directory.appendingPathComponent("a11y.sqlite").path
            let admin = try await AuthTests.createKey(db, ["--admin"])
            try await HTTPServing.with(["--db", db, "--http", "127.0.0.1:0", "--preview", "--tenants", file.path]) { http in
                try await body(http, admin)
            }
        }
    }

    static func axeIsInstalled() async -> Bool {
        guard await HostedFlowTests.browserIsInstalled() else { return false }
        return await Python.has("axe_selenium_python")
    }
}

extension HostedFlowTests {
    @Test(
        .timeLimit(.minutes(15)),
        .enabled("needs chromium, chromium-driver and python3 with selenium, html5lib and axe-selenium-python") {
            await AccessibilityTests.axeIsInstalled()
        })
    func everyPageHasNoSeriousViolationInEitherLanguageOrScheme() async throws {
        try await AccessibilityTests.serving { http, admin in
            // The language each tenant answers a Spanish speaker in (a plugin without Spanish
            // answers in its own language, and its page must say so).
            var spanish: [String: String] = [:]
            for tenant in Hosted.tenants {
                let started = try await http.call(
                    "flow.start", ["tenant": .string(tenant), "userId": "a11y-probe", "locale": "es"], bearer: admin)
                spanish[tenant] = started["result"]?["locale"]?.stringValue
            }
            let run = try await Python.runYielding(
                [HTTPTests.script("accessibility.py").path, http.base, admin, HostedFlowTests.screenshots.path, "en-US,es-ES"] + Hosted.tenants)
            #expect(run.status == 0, "\(run.output.suffix(3000))")
            let summary = try #require(try? JSONValue.parse(Array((run.output.split(separator: "\n").last ?? "").utf8)), "\(run.output.suffix(3000))")
            #expect((summary["pages"]?.intValue ?? 0) > 8 * Hosted.tenants.count, "pages audited: \(summary["pages"] ?? .null)")
            #expect(summary["violations"] == [], "serious or critical: \(summary["violations"] ?? .null)")
            #expect(summary["small"] == [], "controls under the theme's touch target: \(summary["small"] ?? .null)")
            for tenant in Hosted.tenants {
                for language in ["en-US", "es-ES"] {
                    let walk = summary["walks"]?["\(language) \(tenant)"]
                    #expect(walk?["status"] == "ended", "\(language) \(tenant): \(walk ?? .null)")
                }
                let keys = summary["keyboard"]?[tenant]
                #expect(keys?["status"] == "ended", "\(tenant) with the keyboard alone: \(keys ?? .null)")
            }
            // Each page says its language: English pages "en", a Spanish speaker's the language
            // their session is in.
            // The first tenant's overrides reached its pages: its name in every title, its
            // logo, its way back to the app on the completion page.
            let branded = Hosted.tenants[0]
            let titles = (summary["titles"]?.arrayValue ?? []).filter { $0["tenant"]?.stringValue == branded }
            #expect(!titles.isEmpty && titles.allSatisfy { $0["title"]?.stringValue?.hasSuffix(" · \(AccessibilityTests.appName)") == true }, "\(titles)")
            #expect(titles.allSatisfy { $0["logo"] == true }, "\(titles)")
            let returns = (summary["returns"]?.arrayValue ?? []).filter { $0["tenant"]?.stringValue == branded }
            #expect(!returns.isEmpty && returns.allSatisfy { $0["href"]?.stringValue == AccessibilityTests.returnUrl }, "\(returns)")
            #expect((summary["audited"]?.arrayValue ?? []).contains { $0.stringValue?.contains("experiments/a11y") == true }, "the experiment's page")
            for page in summary["lang"]?.arrayValue ?? [] {
                let name = page["page"]?.stringValue ?? ""
                let parts = name.split(separator: " ")
                guard parts.count >= 2 else { continue }
                let expected = parts[0] == "es-ES" ? spanish[String(parts[1])] ?? "es" : "en"
                #expect(page["lang"]?.stringValue == expected, "\(name): lang \(page["lang"] ?? .null), session in \(expected)")
            }
        }
    }
}
