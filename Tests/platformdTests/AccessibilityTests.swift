import Foundation
import PlatformCore
import PlatformTesting
import Testing

/// Accessibility measured, not asserted: axe-core in Chromium over every page of every tenant's
/// flow in English and Spanish, light and dark, with and without the errors of an empty submit,
/// the completion pages and every dashboard page; each flow also walked with the keyboard alone.
@Suite("Accessibility in Chromium")
struct AccessibilityTests {
    static func axeIsInstalled() async -> Bool {
        guard await HostedFlowTests.browserIsInstalled() else { return false }
        return await Python.has("axe_selenium_python")
    }

    @Test(
        .timeLimit(.minutes(15)),
        .enabled("needs chromium, chromium-driver and python3 with selenium, html5lib and axe-selenium-python") {
            await AccessibilityTests.axeIsInstalled()
        })
    func everyPageHasNoSeriousViolationInEitherLanguageOrScheme() async throws {
        try await HostedFlowTests.serving { http, admin, _ in
            // The language each tenant answers a Spanish speaker in (a plugin without Spanish
            // answers in its own language, and its page must say so).
            var spanish: [String: String] = [:]
            for tenant in Hosted.tenants {
                let started = try await http.call(
                    "flow.start", ["tenant": .string(tenant), "userId": "a11y-probe", "locale": "es"], bearer: admin)
                spanish[tenant] = started["result"]?["locale"]?.stringValue
            }
            let run = try await Python.run(
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
