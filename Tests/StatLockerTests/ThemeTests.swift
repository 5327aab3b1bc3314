import PlatformCore
import Testing

@testable import StatLocker

/// The plugin's hosted look: the seed's progress style, touch targets and brand color, and
/// every text color readable (4.5:1) in light and dark.
@Suite("StatLocker theme")
struct StatLockerThemeTests {
    @Test func theSeedsLookWithEveryTextReadable() {
        let theme = StatLockerPlugin().theme
        #expect(theme.contrastProblems().isEmpty, "\(theme.contrastProblems())")
        #expect(theme.progress == .segmented)
        #expect(theme.touchTarget == 56)
        #expect(theme.light.primary == "#4F46E5")
    }
}

extension StatLockerThemeTests {
    /// Seed 001's tokens as written, where they are text-safe: emerald for the progress and the
    /// check, #F8FAFC cards, 12px corners, the motivational gradient's end.
    @Test func seed001sTokens() {
        let theme = StatLockerPlugin().theme
        #expect(theme.light.accent == "#1AEC88")
        #expect(theme.light.surface == "#F8FAFC" && theme.light.text == "#0F172A" && theme.light.mutedText == "#334155")
        #expect(theme.light.gradientEnd == "#3730A3")
        #expect(theme.radius == 12)
    }
}
