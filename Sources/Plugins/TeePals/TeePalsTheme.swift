import PlatformCore

extension Theme {
    /// Seed 002 names green highlights and a "1/4" progress and no hex values: a fairway green
    /// (#15803D, white on it 5.0:1) for buttons, links and highlights, near-black text on white.
    static let teePals = Theme(
        light: Palette(
            background: "#FFFFFF", surface: "#F9FAFB", text: "#111827", mutedText: "#4B5563", primary: "#15803D", accent: "#22C55E",
            border: "#9CA3AF", error: "#B91C1C", gradientEnd: "#14532D"),
        dark: Palette(
            background: "#0B1410", surface: "#14221B", text: "#ECFDF5", mutedText: "#A7C4B5", primary: "#15803D", link: "#4ADE80",
            accent: "#22C55E", border: "#4B6B5B", error: "#FCA5A5", gradientEnd: "#14532D"),
        radius: 12, progress: .fraction, touchTarget: 44)
}

extension TeePalsPlugin {
    public var theme: Theme { .teePals }
}
