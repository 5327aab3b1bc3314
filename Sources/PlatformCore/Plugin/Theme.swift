import Foundation

/// How a plugin's hosted pages look: its colors in light and dark, corner radius, fonts, the
/// progress indicator its app shows and the size of its touch targets. The platform draws every
/// page from it; a tenant may override the brand color, logo, name and return link.
public struct Theme: Sendable, Hashable {
    /// The progress indicator an app shows above each step.
    public enum ProgressStyle: String, Sendable, Hashable, CaseIterable {
        /// One segment per step, those reached filled (StatLocker, AirFit).
        case segmented
        /// A dot per step over a thin bar (AFL Fantasy).
        case dots
        /// "1/4" (TeePals).
        case fraction
    }

    /// The colors of one scheme. Every text color is checked against the backgrounds it is
    /// drawn on (``contrastProblems()``); `accent` only fills shapes (progress, checks).
    public struct Palette: Sendable, Hashable {
        public var background: ThemeColor
        /// Cards, options and inputs.
        public var surface: ThemeColor
        public var text: ThemeColor
        public var mutedText: ThemeColor
        /// A primary button's fill, with `onPrimary` its text.
        public var primary: ThemeColor
        public var onPrimary: ThemeColor
        /// Links and secondary buttons' text, on `background` and `surface`.
        public var link: ThemeColor
        public var accent: ThemeColor
        public var border: ThemeColor
        public var error: ThemeColor
        /// Where a motivational screen's gradient ends (it starts at `primary`); its text and
        /// button are `onPrimary`.
        public var gradientEnd: ThemeColor

        public init(
            background: ThemeColor, surface: ThemeColor, text: ThemeColor, mutedText: ThemeColor, primary: ThemeColor,
            onPrimary: ThemeColor = "#FFFFFF", link: ThemeColor? = nil, accent: ThemeColor? = nil, border: ThemeColor, error: ThemeColor,
            gradientEnd: ThemeColor? = nil
        ) {
            self.background = background
            self.surface = surface
            self.text = text
            self.mutedText = mutedText
            self.primary = primary
            self.onPrimary = onPrimary
            self.link = link ?? primary
            self.accent = accent ?? primary
            self.border = border
            self.error = error
            self.gradientEnd = gradientEnd ?? primary
        }

        /// Each text color with the backgrounds it is drawn on, by name.
        public var textPairs: [(text: String, on: String, ThemeColor, ThemeColor)] {
            [
                ("text", "background", text, background), ("text", "surface", text, surface),
                ("mutedText", "background", mutedText, background), ("mutedText", "surface", mutedText, surface),
                ("onPrimary", "primary", onPrimary, primary), ("onPrimary", "gradientEnd", onPrimary, gradientEnd),
                ("link", "background", link, background), ("link", "surface", link, surface),
                ("error", "background", error, background), ("error", "surface", error, surface),
            ]
        }
    }

    public var light: Palette
    public var dark: Palette
    /// Corner radius of cards, options and buttons, in CSS pixels.
    public var radius: Int
    /// A CSS font-family list; the last should be a generic family.
    public var fontStack: String
    public var progress: ProgressStyle
    /// The least height of every control, in CSS pixels (44 at least).
    public var touchTarget: Int
    /// A line every page of the app shows at its foot (AirFit's "Privacy & Data"), in the
    /// plugin's copy; none by default.
    public var footer: String?

    public init(
        light: Palette, dark: Palette, radius: Int = 12, fontStack: String = Theme.systemFonts, progress: ProgressStyle = .segmented,
        touchTarget: Int = 44, footer: String? = nil
    ) {
        self.light = light
        self.dark = dark
        self.radius = radius
        self.fontStack = fontStack
        self.progress = progress
        self.touchTarget = touchTarget
        self.footer = footer
    }

    public static let systemFonts =
        #"system-ui, -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji""#

    /// The platform's own look, for a plugin that declares none and for the dashboard.
    public static let standard = Theme(
        light: Palette(
            background: "#F4F6FA", surface: "#FFFFFF", text: "#1D2433", mutedText: "#3D4759", primary: "#1F4FBF", border: "#8A94A6",
            error: "#A4161A"),
        dark: Palette(
            background: "#0F141C", surface: "#1A212D", text: "#E8ECF3", mutedText: "#B4BDCC", primary: "#8AB4F8", onPrimary: "#0F141C",
            border: "#5A6578", error: "#FF9B94"))

    /// The least contrast a text color must have against its background (WCAG 2 AA).
    public static let minimumContrast = 4.5

    /// Every text color of either scheme that fails ``minimumContrast`` against a background it
    /// is drawn on, each said in words naming the pair ("light onPrimary #FFFFFF on primary
    /// #1AEC88 is 1.6:1"); empty when the theme can be served.
    public func contrastProblems() -> [String] {
        var problems: [String] = []
        for (scheme, palette) in [("light", light), ("dark", dark)] {
            for (textName, backgroundName, text, background) in palette.textPairs {
                let ratio = text.contrast(with: background)
                if ratio < Self.minimumContrast {
                    problems.append(
                        "\(scheme) \(textName) \(text) on \(backgroundName) \(background) is \(ThemeColor.ratioText(ratio)):1 (at least 4.5:1 is needed)"
                    )
                }
            }
        }
        return problems
    }
}

/// A color as `#RRGGBB`, with the WCAG 2 relative luminance and contrast ratio.
public struct ThemeColor: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let red: UInt8
    public let green: UInt8
    public let blue: UInt8

    /// `#RGB` or `#RRGGBB`, any case; nil for anything else.
    public init?(hex: String) {
        var digits = Substring(hex.trimmingCharacters(in: .whitespaces))
        guard digits.first == "#" else { return nil }
        digits = digits.dropFirst()
        if digits.count == 3 { digits = Substring(digits.flatMap { [$0, $0] }) }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        red = UInt8((value >> 16) & 0xFF)
        green = UInt8((value >> 8) & 0xFF)
        blue = UInt8(value & 0xFF)
    }

    public init(stringLiteral value: String) {
        guard let color = ThemeColor(hex: value) else { preconditionFailure("not a #RRGGBB color: \(value)") }
        self = color
    }

    public var description: String {
        "#"
            + [red, green, blue].map { byte in
                let text = String(byte, radix: 16, uppercase: true)
                return text.count == 1 ? "0" + text : text
            }.joined()
    }

    /// WCAG 2's relative luminance, 0 (black) to 1 (white).
    public var luminance: Double {
        func channel(_ value: UInt8) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)
    }

    /// WCAG 2's contrast ratio, 1 to 21.
    public func contrast(with other: ThemeColor) -> Double {
        let (a, b) = (luminance, other.luminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// A ratio rounded down to one decimal, as a failure is said (4.49 is "4.4", never "4.5").
    static func ratioText(_ ratio: Double) -> String {
        let tenths = (ratio * 10).rounded(.down) / 10
        return String(tenths)
    }
}
