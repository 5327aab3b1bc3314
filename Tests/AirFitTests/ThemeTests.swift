import PlatformCore
import Testing

@testable import AirFit

/// The plugin's hosted look: the seed's progress style, touch targets and brand color, and
/// every text color readable (4.5:1) in light and dark.
@Suite("AirFit theme")
struct AirFitThemeTests {
    @Test func theSeedsLookWithEveryTextReadable() {
        let theme = AirFitPlugin().theme
        #expect(theme.contrastProblems().isEmpty, "\(theme.contrastProblems())")
        #expect(theme.progress == .segmented)
        #expect(theme.touchTarget == 44)
        #expect(theme.light.primary == "#111111")
    }
}

extension AirFitThemeTests {
    @Test func everyPageCarriesThePrivacyFooter() {
        #expect(AirFitPlugin().theme.footer == "Privacy & Data")
    }
}
