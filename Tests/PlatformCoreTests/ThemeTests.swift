import PlatformCore
import Testing

/// WCAG 2's contrast arithmetic and the check that stops a theme whose text cannot be read.
@Suite struct ThemeTests {
    @Test func contrastIsWCAGs() {
        let white: ThemeColor = "#FFFFFF"
        #expect(abs(white.contrast(with: "#000000") - 21) < 1e-9)
        #expect(abs(white.contrast(with: white) - 1) < 1e-9)
        // #767676 is the lightest grey that passes 4.5:1 on white; #777777 fails.
        #expect(white.contrast(with: "#767676") >= 4.5)
        #expect(white.contrast(with: "#777777") < 4.5)
        #expect(ThemeColor(hex: "#abc") == ThemeColor(hex: "#AABBCC"))
        #expect(ThemeColor(hex: "4F46E5") == nil && ThemeColor(hex: "#4F46E") == nil && ThemeColor(hex: "#GGGGGG") == nil)
        #expect(String(describing: ThemeColor(hex: "#4f46e5")!) == "#4F46E5")
    }

    @Test func theStandardThemePassesAndAFailingPairIsNamed() {
        #expect(Theme.standard.contrastProblems().isEmpty)
        var theme = Theme.standard
        theme.dark.mutedText = "#333333"
        let problems = theme.contrastProblems()
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.first == "dark mutedText #333333 on background #0F141C is 1.4:1 (at least 4.5:1 is needed)")
    }
}
