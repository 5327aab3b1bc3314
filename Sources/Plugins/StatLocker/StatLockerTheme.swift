import PlatformCore

extension Theme {
    /// Seed 001's tokens: indigo primary, emerald accent for the segmented progress and the
    /// selected card's check, slate text on white with #F8FAFC cards, 12px corners and 56px touch
    /// targets, the motivational screens' indigo gradient (#4F46E5 to #3730A3).
    ///
    /// Two departures, both for contrast: the seed's error red #EF4444 is 3.7:1 on white, under
    /// the 4.5:1 its own accessibility section asks for, so error text is #B91C1C (6.4:1); and the
    /// seed gives no dark colors, so the dark scheme keeps the brand on slate-900.
    static let statLocker = Theme(
        light: Palette(
            background: "#FFFFFF", surface: "#F8FAFC", text: "#0F172A", mutedText: "#334155", primary: "#4F46E5", accent: "#1AEC88",
            border: "#94A3B8", error: "#B91C1C", gradientEnd: "#3730A3"),
        dark: Palette(
            background: "#0F172A", surface: "#1E293B", text: "#F1F5F9", mutedText: "#CBD5E1", primary: "#4F46E5", link: "#A5B4FC",
            accent: "#1AEC88", border: "#64748B", error: "#FCA5A5", gradientEnd: "#3730A3"),
        radius: 12, progress: .segmented, touchTarget: 56)
}

extension StatLockerPlugin {
    public var theme: Theme { .statLocker }
}
