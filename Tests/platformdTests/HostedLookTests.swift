import Foundation
import PlatformCore
import PlatformServer
import Testing

@testable import PlatformTransports

/// A tenant's look on its pages: the theme's stylesheet and the app's name on every page, the
/// app's progress style, motivational steps as a card in the brand's colors, emoji as
/// decoration, and the completion page's way back to the app.
@Suite struct HostedLookTests {
    struct Themed: OnboardingPlugin {
        var theme: Theme
        let id = "themed"
        let name = "Themed App"
        let version = "1"
        var flows: [Flow] { [] }
    }

    static func look(_ progress: Theme.ProgressStyle = .segmented, returnUrl: String? = nil, footer: String? = nil) -> HostedLook {
        var theme = Theme.standard
        theme.progress = progress
        theme.footer = footer
        return HostedLook(plugin: Themed(theme: theme), appName: "Club App", returnUrl: returnUrl)
    }

    static func page(_ view: SessionView, _ look: HostedLook) -> String {
        FlowPage(view: view, tenant: "themed", flow: "onboarding", csrf: "c", look: look).render()
    }

    static func view(label: String = "Step 2 of 4", title: String = "Pick one", content: [String: JSONValue] = [:], status: SessionStatus = .active)
        -> SessionView
    {
        SessionView(
            sessionId: "s", tenant: "themed", userId: "u", flow: "onboarding", status: status, revision: 1,
            progress: SessionProgress(index: 2, total: 4, label: label, fraction: 0.5),
            step: status.isFinal
                ? nil : StepView(id: "one", kind: .content, title: title, fields: [], actions: [.continue("Keep Going"), .back], content: content),
            completion: status == .completed ? CompletionView(message: "You're all set 🎉", records: []) : nil, locale: "es")
    }

    @Test func everyPageCarriesTheThemeTheAppsNameAndTheSessionsLanguage() {
        let html = Self.page(Self.view(), Self.look(footer: "Privacy & Data"))
        #expect(html.contains("<html lang=\"es\">"))
        #expect(html.contains("<title>Pick one · Club App</title>"))
        #expect(html.contains("<link rel=\"stylesheet\" href=\"/assets/tenant/themed/theme.css?v="))
        #expect(html.contains("<link rel=\"stylesheet\" href=\"/assets/platformd.css?v=\(WebAssets.cssVersion)\">"))
        #expect(html.contains("<span class=\"app-name\">Club App</span>"))
        #expect(html.contains("<footer class=\"app-footer\"><p>Privacy &amp; Data</p></footer>"))
        #expect(!html.contains("style="), "no inline style: the Content-Security-Policy allows none")
        // Continue comes first in the markup (Enter submits it), Back after it.
        let continueAt = html.range(of: "value=\"continue\"")?.lowerBound
        let backAt = html.range(of: "value=\"back\"")?.lowerBound
        #expect(continueAt != nil && backAt != nil && continueAt! < backAt!)
    }

    @Test func aLogoIsShownAndAFieldsHelpIsReadWithIt() {
        var look = Self.look()
        look.logo = .init(bytes: [0x89, 0x50, 0x4E, 0x47], contentType: "image/png")
        var view = Self.view()
        view.step?.fields = [
            FieldView(id: "club", type: .boolean, label: "I play club", required: false, extra: ["helper": "Club stats are kept apart."])
        ]
        let html = Self.page(view, look)
        #expect(html.contains("<header class=\"app-bar\"><img src=\"/assets/tenant/themed/logo?v="))
        #expect(html.contains("\" alt=\"\"><span class=\"app-name\">Club App</span></header>"))
        #expect(html.contains("aria-describedby=\"h-club\"") && html.contains("<p class=\"field-help\" id=\"h-club\">Club stats are kept apart.</p>"))
    }

    @Test func eachProgressStyleIsOneNamedProgressbar() {
        let segmented = Self.page(Self.view(), Self.look(.segmented))
        #expect(
            segmented.contains(
                "<div class=\"progress-segments\" aria-hidden=\"true\"><span class=\"on\"></span><span class=\"on\"></span><span></span><span></span></div>"))
        let dots = Self.page(Self.view(), Self.look(.dots))
        #expect(
            dots.contains("<div class=\"progress-dots\" aria-hidden=\"true\">") && dots.contains("<progress class=\"progress-native\" max=\"4\" value=\"2\""))
        let fraction = Self.page(Self.view(label: "2/4"), Self.look(.fraction))
        #expect(fraction.contains("<p class=\"progress-fraction\" id=\"progress-label\">2/4</p>"))
        for html in [segmented, dots, fraction] {
            #expect(html.contains("role=\"progressbar\" aria-valuemin=\"0\" aria-valuemax=\"4\" aria-valuenow=\"2\" aria-valuetext=\""))
            #expect(html.components(separatedBy: "id=\"progress-label\"").count == 2, "one label names the bar")
        }
    }

    @Test func aGradientStepIsAMotivationalCardAndEmojiAreDecoration() {
        let html = Self.page(Self.view(title: "Hey Alex 👋 ready?", content: ["background": "gradient", "message": "Small goals = big wins."]), Self.look())
        #expect(html.contains("<main class=\"motivational\">"))
        #expect(html.contains("<h1 id=\"title\">Hey Alex <span class=\"emoji\" aria-hidden=\"true\">👋</span> ready?</h1>"))
        #expect(html.contains("<p class=\"message\">Small goals = big wins.</p>"))
        #expect(html.contains("class=\"primary\">Keep Going</button>"))
    }

    /// (The made-up plugin ships no Spanish, so its page words stay English.)
    @Test func theCompletionPageLinksBackToTheAppWhenTheTenantGaveAReturnUrl() {
        let linked = Self.page(Self.view(status: .completed), Self.look(returnUrl: "https://club.example/app?x=1&y=2"))
        #expect(linked.contains("<a class=\"button primary return\" href=\"https://club.example/app?x=1&amp;y=2\">Back to Club App</a>"))
        #expect(linked.contains("<h1>You're all set <span class=\"emoji\" aria-hidden=\"true\">🎉</span></h1>"))
        #expect(linked.contains("<title>You're all set 🎉 · Club App</title>"))
        let unlinked = Self.page(Self.view(status: .completed), Self.look())
        #expect(!unlinked.contains("class=\"button primary return\""))
    }

    /// A brand dark enough to be a link on a light page can be any tenant's: a button's text on
    /// it is white or near-black, whichever reads, in both schemes, for a plugin that declares no
    /// theme as for one that does.
    @Test(arguments: ["#4F46E5", "#0B6E4F", "#C8102E", "#1E3A8A", "#7C3AED", "#B45309"])
    func aReadableBrandIsServedOnEveryTheme(brand: String) throws {
        let color = try #require(ThemeColor(hex: brand))
        for theme in [Theme.standard, Self.look().theme] {
            let look = HostedLook(plugin: Themed(theme: theme), brandColor: color)
            #expect(look.theme.contrastProblems().isEmpty, "\(brand): \(look.theme.contrastProblems())")
            #expect(look.theme.light.primary == color && look.theme.dark.primary == color)
        }
        #expect(HostedLook(plugin: Themed(theme: .standard), brandColor: "#FFD60A").theme.light.onPrimary == "#0B0B0B", "a light brand gets dark text")
    }

    /// A quote with a combining mark after it is one character but still ends an attribute: it is
    /// escaped scalar by scalar.
    @Test func aQuoteFollowedByACombiningMarkIsEscaped() {
        let sneaky = "x\"\u{0301} onmouseover=alert(1) y=\"\u{0301}"
        let escaped = HTML.attribute(sneaky)
        #expect(!escaped.unicodeScalars.contains("\""), "\(escaped)")
        #expect(escaped.hasPrefix("x&quot;\u{0301}"))
        #expect(HTML.text("<b>\u{0301}&") == "&lt;b&gt;\u{0301}&amp;")
    }

    /// Text follows the browser's size: no font size in pixels in the stylesheet.
    @Test func noFontSizeIsInPixels() {
        let declarations = WebAssets.css.components(separatedBy: "font-size:").dropFirst().map { $0.prefix { $0 != ";" && $0 != "}" } }
        #expect(!declarations.isEmpty)
        for size in declarations { #expect(!size.contains("px"), "font-size:\(size)") }
    }

    @Test func aTenantStylesheetHoldsBothSchemesAndTouchTargetsInRem() {
        var theme = Theme.standard
        theme.touchTarget = 56
        let css = ThemeStyle.stylesheet(HostedLook(plugin: Themed(theme: theme), brandColor: "#4F46E5"))
        #expect(css.contains("--primary: #4F46E5;") && css.contains("--touch: 3.5rem;"))
        #expect(css.contains("@media (prefers-color-scheme: dark)"))
        #expect(!css.contains("<") && !css.contains("}}"))
    }
}
