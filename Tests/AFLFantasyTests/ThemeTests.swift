import PlatformCore
import Testing

@testable import AFLFantasy

/// The plugin's hosted look: the seed's progress style, touch targets and brand color, and
/// every text color readable (4.5:1) in light and dark.
@Suite("AFLFantasy theme")
struct AFLFantasyThemeTests {
    @Test func theSeedsLookWithEveryTextReadable() {
        let theme = AFLFantasyPlugin().theme
        #expect(theme.contrastProblems().isEmpty, "\(theme.contrastProblems())")
        #expect(theme.progress == .dots)
        #expect(theme.touchTarget == 44)
        #expect(theme.light.primary == "#1E3A8A")
    }
}
