import Foundation

/// Finds how many weeks an aspiration gives itself: "in 12 weeks", "within 3 months",
/// "a 12-week block", "in a year", "next month", "by summer", "before Christmas",
/// "by the end of June". Dates count from the analysis day (UTC); a date already passed this
/// year means next year's. Seasons are the northern meteorological ones (summer starts 1 June).
enum GoalTimeframe {
    static let lead: Set<String> = ["by", "before", "until", "till", "til", "for", "in", "this", "next", "within", "over"]

    static let months: [String: Int] = [
        "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
        "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
        "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
        "december": 12, "dec": 12,
    ]
    static let seasons: [String: (month: Int, day: Int)] = [
        "spring": (3, 1), "summer": (6, 1), "autumn": (9, 1), "fall": (9, 1), "winter": (12, 1),
        "christmas": (12, 25), "xmas": (12, 25),
    ]

    static func weeks(in text: GoalText, from reference: Date) -> Int? {
        for index in text.indices {
            if let weeks = weeks(at: index, in: text, from: reference), StructuredGoal.timeframeWeeks.contains(weeks) {
                return weeks
            }
        }
        return nil
    }

    private static func weeks(at index: Int, in text: GoalText, from reference: Date) -> Int? {
        if let count = text.number(at: index), let word = text.word(at: index + 1),
            !GoalQuantities.isFrequency(at: index, in: text)
        {
            return weeks(count, word)
        }
        guard let word = text.word(at: index) else { return nil }
        let previous = text.word(at: index - 1)
        if ["a", "an"].contains(word), let previous, lead.contains(previous), let unit = text.word(at: index + 1) {
            return weeks(1, unit)
        }
        if word == "next", let unit = text.word(at: index + 1) {
            switch unit {
            case "week": return 1
            case "month": return 4
            case "year": return weeks(until: (1, 1), from: reference)
            default: break
            }
        }
        if word == "end", text.word(at: index + 1) == "of" {
            let subject = text.word(at: index + 2) == "the" ? index + 3 : index + 2
            if text.word(at: subject) == "year" { return weeks(until: (12, 31), from: reference) }
            if let month = text.word(at: subject).flatMap({ months[$0] }) {
                return weeks(until: (month, 0), from: reference)
            }
        }
        guard let previous, lead.contains(previous) || (previous == "the" && text.word(at: index - 2).map(lead.contains) == true)
        else { return nil }
        if word == "new", text.word(at: index + 1) == "year" { return weeks(until: (1, 1), from: reference) }
        if let season = seasons[word] { return weeks(until: season, from: reference) }
        if let month = months[word] { return weeks(until: (month, 1), from: reference) }
        return nil
    }

    private static func weeks(_ count: Double, _ unit: String) -> Int? {
        // Anything past the accepted range is dropped by the caller; this only keeps the
        // conversion to Int from overflowing on "in 99999999999999999999 weeks".
        guard count > 0, count <= 100_000 else { return nil }
        switch unit {
        case "week", "weeks", "wk", "wks": return Int(count.rounded())
        case "month", "months": return Int((count * 52 / 12).rounded())
        case "year", "years", "yr", "yrs": return Int((count * 52).rounded())
        case "day", "days": return max(1, Int((count / 7).rounded(.up)))
        default: return nil
        }
    }

    static var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    /// Whole weeks (rounded, at least one) from the reference day to the next such date;
    /// day 0 is the month's last day.
    static func weeks(until date: (month: Int, day: Int), from reference: Date) -> Int? {
        let calendar = utc
        let today = calendar.startOfDay(for: reference)
        var year = calendar.component(.year, from: today)
        for _ in 0..<2 {
            if let target = day(date, in: year, calendar),
                let days = calendar.dateComponents([.day], from: today, to: target).day, days > 0
            {
                return max(1, Int((Double(days) / 7).rounded()))
            }
            year += 1
        }
        return nil
    }

    private static func day(_ date: (month: Int, day: Int), in year: Int, _ calendar: Calendar) -> Date? {
        guard date.day == 0 else { return calendar.date(from: DateComponents(year: year, month: date.month, day: date.day)) }
        return calendar.date(from: DateComponents(year: year, month: date.month, day: 1))
            .flatMap { calendar.date(byAdding: .month, value: 1, to: $0) }
            .flatMap { calendar.date(byAdding: .day, value: -1, to: $0) }
    }
}
