/// How the coach marks a win (the seed's `AchievementStyle`).
enum AchievementStyle: String, ChoiceOption {
    case subtleAffirming
    case enthusiasticCelebratory

    static let `default` = AchievementStyle.subtleAffirming

    var label: String {
        switch self {
        case .subtleAffirming: "Subtle & Affirming"
        case .enthusiasticCelebratory: "Enthusiastic & Celebratory"
        }
    }

    var detail: String {
        switch self {
        case .subtleAffirming: "A quiet nod: “Solid work today.”"
        case .enthusiasticCelebratory: "Full applause: “Outstanding. That's a new best!”"
        }
    }
}

/// What the coach does after a few quiet days (the seed's `InactivityResponseStyle`).
enum InactivityResponse: String, ChoiceOption {
    case gentleNudge
    case respectSpace

    static let `default` = InactivityResponse.gentleNudge

    var label: String {
        switch self {
        case .gentleNudge: "A Gentle Nudge"
        case .respectSpace: "Respect My Space"
        }
    }

    var detail: String {
        switch self {
        case .gentleNudge: "A brief check-in after a few quiet days."
        case .respectSpace: "Your coach waits for you to return."
        }
    }

    /// The boundary line of the coach profile screen.
    var boundarySentence: String {
        switch self {
        case .gentleNudge: "If you go quiet for a few days, expect a gentle nudge."
        case .respectSpace: "If you go quiet for a few days, your coach gives you space until you return."
        }
    }
}

/// The units the coach speaks in.
enum PreferredUnits: String, ChoiceOption {
    case imperial
    case metric

    static let `default` = PreferredUnits.imperial

    var label: String {
        switch self {
        case .imperial: "Imperial"
        case .metric: "Metric"
        }
    }

    var detail: String {
        switch self {
        case .imperial: "Pounds, miles and inches."
        case .metric: "Kilograms, kilometres and centimetres."
        }
    }
}
