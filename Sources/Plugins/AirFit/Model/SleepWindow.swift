import PlatformCore

/// How regular the person's sleep is (the seed's `SleepRhythmType`).
enum SleepRhythm: String, ChoiceOption {
    case consistent
    case weekendsDifferent
    case highlyVariable

    static let `default` = SleepRhythm.consistent

    var label: String {
        switch self {
        case .consistent: "Consistent"
        case .weekendsDifferent: "Different on Weekends"
        case .highlyVariable: "Highly Variable"
        }
    }

    var detail: String {
        switch self {
        case .consistent: "Much the same every night."
        case .weekendsDifferent: "Later nights or lie-ins at the weekend."
        case .highlyVariable: "Shifts, travel or a changing routine."
        }
    }
}

/// A night's sleep from bedtime to wake time; a bedtime after the wake time runs across midnight.
struct SleepWindow: Sendable, Hashable {
    static let defaultBedtime = ClockTime(minutes: 22 * 60 + 30)
    static let defaultWakeTime = ClockTime(minutes: 6 * 60 + 30)
    /// 3 to 14 hours: shorter is a nap, longer is more likely a mistyped AM/PM.
    static let acceptedMinutes = (3 * 60)...(14 * 60)

    var bedtime: ClockTime
    var wakeTime: ClockTime

    /// Minutes asleep. Equal times are zero minutes, never a full day.
    var durationMinutes: Int {
        (wakeTime.minutes - bedtime.minutes + 24 * 60) % (24 * 60)
    }

    var crossesMidnight: Bool { wakeTime < bedtime }

    /// The refusal for a window outside 3-14 hours, explaining what the times add up to.
    var outOfRangeMessage: String? {
        guard !Self.acceptedMinutes.contains(durationMinutes) else { return nil }
        if durationMinutes == 0 {
            return "Your bedtime and wake time are both \(bedtime.description). Choose times between 3 and 14 hours apart."
        }
        return "From \(bedtime.description) to \(wakeTime.description) is \(Self.spoken(minutes: durationMinutes)) of sleep. "
            + "Choose a bedtime and wake time between 3 and 14 hours apart."
    }

    /// "8 hours", "15 hours 30 minutes", "1 hour 5 minutes", "45 minutes".
    static func spoken(minutes: Int) -> String {
        let hours = minutes / 60
        let rest = minutes % 60
        let hourText = hours == 1 ? "1 hour" : "\(hours) hours"
        let minuteText = rest == 1 ? "1 minute" : "\(rest) minutes"
        switch (hours, rest) {
        case (0, _): return minuteText
        case (_, 0): return hourText
        default: return "\(hourText) \(minuteText)"
        }
    }
}
