import PlatformCore
import Testing

@testable import TeePals

/// The plugin's hosted look: the seed's progress style, touch targets and brand color, and
/// every text color readable (4.5:1) in light and dark.
@Suite("TeePals theme")
struct TeePalsThemeTests {
    @Test func theSeedsLookWithEveryTextReadable() {
        let theme = TeePalsPlugin().theme
        #expect(theme.contrastProblems().isEmpty, "\(theme.contrastProblems())")
        #expect(theme.progress == .fraction)
        #expect(theme.touchTarget == 44)
        #expect(theme.light.primary == "#15803D")
    }
}
