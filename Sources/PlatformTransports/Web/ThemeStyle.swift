import PlatformCore
import PlatformServer

/// A theme as the CSS custom properties the stylesheet is drawn from: the light scheme, and the
/// dark one under `prefers-color-scheme: dark`. Served per tenant at
/// `/assets/tenant/TENANT/theme.css` (the pages' policy allows no inline style).
enum ThemeStyle {
    static func variables(_ theme: Theme, selector: String) -> String {
        """
        \(selector) { color-scheme: light dark; \(palette(theme.light)) --radius: \(theme.radius)px; --touch: \(rem(theme.touchTarget)); --font: \(theme.fontStack); }
        @media (prefers-color-scheme: dark) { \(selector) { \(palette(theme.dark)) } }
        """
    }

    static func palette(_ palette: Theme.Palette) -> String {
        [
            ("bg", palette.background), ("surface", palette.surface), ("text", palette.text), ("muted", palette.mutedText),
            ("primary", palette.primary), ("on-primary", palette.onPrimary), ("link", palette.link), ("accent", palette.accent),
            ("border", palette.border), ("error", palette.error), ("gradient-end", palette.gradientEnd),
        ].map { "--\($0.0): \($0.1);" }.joined(separator: " ") + " --track: \(palette.border)55;"
    }

    /// CSS pixels as rem of a 16px root, so a target grows with the person's text size.
    static func rem(_ pixels: Int) -> String {
        let value = Double(pixels) / 16
        return (value == value.rounded() ? String(Int(value)) : String(value)) + "rem"
    }

    /// A tenant's stylesheet: its look's variables over the standard ones.
    static func stylesheet(_ look: HostedLook) -> String {
        "/* \(look.appName.filter { $0 != "*" && $0 != "/" }) */\n" + variables(look.theme, selector: ":root")
    }
}
