import PlatformCore

/// One coaching voice the person blends with a slider. The field id is the style's name.
/// Order matters: it is the order of the sliders, and ties in the blend go to the earlier style.
enum CoachingStyle: String, CaseIterable, Codable, CodingKeyRepresentable, Sendable {
    case authoritativeDirect
    case empatheticEncouraging
    case analyticalInsightful
    case playfullyProvocative

    var label: String {
        switch self {
        case .authoritativeDirect: "Authoritative & Direct"
        case .empatheticEncouraging: "Empathetic & Encouraging"
        case .analyticalInsightful: "Analytical & Insightful"
        case .playfullyProvocative: "Playful & Provocative"
        }
    }

    /// Where the thumb starts: a warm, evidence-led coach with a little edge.
    var defaultValue: Int {
        switch self {
        case .authoritativeDirect: 40
        case .empatheticEncouraging: 60
        case .analyticalInsightful: 60
        case .playfullyProvocative: 20
        }
    }

    /// What the coach profile promises when this style leads the blend.
    var expectation: String {
        switch self {
        case .authoritativeDirect: "Expect clear direction and high standards."
        case .empatheticEncouraging: "Expect steady encouragement and genuine understanding."
        case .analyticalInsightful: "Expect data-led guidance with the reasoning shown."
        case .playfullyProvocative: "Expect friendly challenges and a lighter touch."
        }
    }

    /// What the slider means at each value; the bands cover 0-100 without gaps or overlaps.
    var bands: [ValueBand] {
        let descriptions: [String]
        switch self {
        case .authoritativeDirect:
            descriptions = [
                "Rarely directive. Suggestions, never orders.",
                "Offers clear structure when you ask for it.",
                "Sets firm plans and expects you to follow through.",
                "Direct and decisive. Holds you to every commitment.",
                "Uncompromising. Clear orders, high standards, no excuses.",
            ]
        case .empatheticEncouraging:
            descriptions = [
                "Keeps encouragement brief and matter-of-fact.",
                "Recognises your effort now and then.",
                "Warm and steady. Celebrates effort as much as results.",
                "Leads with understanding, especially on hard days.",
                "Deeply supportive. Meets every setback with patience and care.",
            ]
        case .analyticalInsightful:
            descriptions = [
                "Keeps the numbers in the background.",
                "Shares a key metric when it matters.",
                "Explains the why behind your plan with your own data.",
                "Evidence-led. Trends, metrics and clear reasoning.",
                "Deep analysis of every session, trend and recovery signal.",
            ]
        case .playfullyProvocative:
            descriptions = [
                "Composed and serious. No jokes at your expense.",
                "A light touch of humour now and then.",
                "Playful banter and friendly challenges.",
                "Teases, dares and pushes you with a grin.",
                "Relentlessly cheeky. Expect to be called out, kindly.",
            ]
        }
        return zip(ValueBand.ranges, descriptions).map { ValueBand(range: $0, description: $1) }
    }

    func band(for value: Int) -> ValueBand? {
        bands.first { $0.range.contains(value) }
    }
}

/// A stretch of slider values and what they mean.
struct ValueBand: Sendable, Hashable {
    static let ranges: [ClosedRange<Int>] = [0...20, 21...40, 41...60, 61...80, 81...100]

    var range: ClosedRange<Int>
    var description: String

    var json: JSONValue {
        ["min": .int(Int64(range.lowerBound)), "max": .int(Int64(range.upperBound)), "description": .string(description)]
    }
}
