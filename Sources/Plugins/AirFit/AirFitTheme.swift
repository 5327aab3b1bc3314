import PlatformCore

extension Theme {
    /// Seed 003 asks for "clean, classy and premium", a segmented progress of 8 plain bars and a
    /// persistent "Privacy & Data" footer, and names its colors only as tokens: a monochrome
    /// near-black on white with a quiet blue accent, inverted in the dark.
    static let airFit = Theme(
        light: Palette(
            background: "#FFFFFF", surface: "#F7F7F8", text: "#111111", mutedText: "#4A4A4F", primary: "#111111", accent: "#0A84FF",
            border: "#A1A1AA", error: "#B42318", gradientEnd: "#3A3A3C"),
        dark: Palette(
            background: "#000000", surface: "#1C1C1E", text: "#F5F5F7", mutedText: "#AEAEB2", primary: "#F5F5F7", onPrimary: "#000000",
            accent: "#0A84FF", border: "#636366", error: "#FF8A80", gradientEnd: "#D1D1D6"),
        radius: 14, progress: .segmented, touchTarget: 44, footer: StepCopy.privacyFooter)
}

extension AirFitPlugin {
    public var theme: Theme { .airFit }
}
