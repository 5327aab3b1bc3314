import PlatformCore

extension Theme {
    /// Seed 004 gives progress dots over a thin bar, 44pt targets and 4.5:1 contrast, and no hex
    /// values: a deep navy for buttons and the gradient, a football red for the dots.
    static let aflFantasy = Theme(
        light: Palette(
            background: "#FFFFFF", surface: "#F1F5F9", text: "#0F172A", mutedText: "#334155", primary: "#1E3A8A", accent: "#C8102E",
            border: "#94A3B8", error: "#B91C1C", gradientEnd: "#0F172A"),
        dark: Palette(
            background: "#0B1220", surface: "#16213A", text: "#F1F5F9", mutedText: "#CBD5E1", primary: "#1E3A8A", link: "#93C5FD",
            accent: "#F87171", border: "#475569", error: "#FCA5A5", gradientEnd: "#0F172A"),
        radius: 12, progress: .dots, touchTarget: 44)
}

extension AFLFantasyPlugin {
    public var theme: Theme { .aflFantasy }
}
