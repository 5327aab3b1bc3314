/// The earliest or latest value a `date` or `time` field takes (``FieldSpec/earliest``,
/// ``FieldSpec/latest``): a fixed date or time of day, or a date counted from the command's day.
///
/// The command's day is the UTC date of ``StepContext/now``, so a bound moves with the clock the
/// engine gives the plugin (and tests can pin it). Clients see a bound, resolved for the session,
/// as the FieldView's `min`/`max` (`YYYY-MM-DD` or `HH:mm`).
///
/// ```swift
/// FieldSpec(id: "raceDay", type: .date, label: "Race day", earliest: .today, latest: .daysFromToday(60))
/// FieldSpec(id: "birthdate", type: .date, label: "Birthday",
///           earliest: .date(1900, 1, 1).refusing("Birthdays before 1900 aren't accepted."),
///           latest: .today.refusing("Your birthday can't be in the future."))
/// FieldSpec(id: "start", type: .time, label: "Start", earliest: .time(5, 0))
/// // The first of a month, from next month to six months ahead:
/// FieldSpec(id: "startMonth", type: .date, label: "Start month",
///           earliest: .startOfMonth(monthsFromToday: 1), latest: .startOfMonth(monthsFromToday: 6),
///           dayOfMonth: .first)
/// ```
public struct TemporalBound: Sendable, Hashable {
    enum Anchor: Sendable, Hashable {
        case date(CalendarDate)
        case time(ClockTime)
        /// `years` and `months`, then `days`, added to the command's day (negative: before it).
        case fromToday(years: Int, months: Int, days: Int)
        /// The first (or, `end`, the last) day of the month `months` after the command's.
        case monthOf(months: Int, end: Bool)
    }

    let anchor: Anchor
    /// The `out_of_range` message when a value falls outside this bound; nil: the field's
    /// `messages[.outOfRange]`, else a generic message naming the bound.
    public let message: String?

    init(_ anchor: Anchor, message: String? = nil) {
        self.anchor = anchor
        self.message = message
    }

    /// A fixed date. Traps on a date that does not exist (a definition error, like a bad pattern).
    public static func date(_ year: Int, _ month: Int, _ day: Int) -> TemporalBound {
        guard let date = CalendarDate(year: year, month: month, day: day) else {
            preconditionFailure("TemporalBound.date(\(year), \(month), \(day)) is not a calendar date")
        }
        return TemporalBound(.date(date))
    }

    /// A fixed time of day, for `time` fields. Traps outside 00:00...23:59.
    public static func time(_ hour: Int, _ minute: Int) -> TemporalBound {
        precondition((0..<24).contains(hour) && (0..<60).contains(minute), "TemporalBound.time(\(hour), \(minute)) is not a time of day")
        return TemporalBound(.time(ClockTime(minutes: hour * 60 + minute)))
    }

    /// The command's day.
    public static let today = TemporalBound(.fromToday(years: 0, months: 0, days: 0))

    /// `days` after the command's day (`.daysFromToday(60)`: within the next 60 days).
    public static func daysFromToday(_ days: Int) -> TemporalBound { TemporalBound(.fromToday(years: 0, months: 0, days: days)) }

    /// `days` before the command's day.
    public static func daysAgo(_ days: Int) -> TemporalBound { TemporalBound(.fromToday(years: 0, months: 0, days: -days)) }

    /// The same day `years` years before the command's day (29 February becomes the 28th in a
    /// common year), so `latest: .yearsAgo(18)` admits exactly the people 18 or older today.
    public static func yearsAgo(_ years: Int) -> TemporalBound { TemporalBound(.fromToday(years: -years, months: 0, days: 0)) }

    /// The same day `years` years after the command's day.
    public static func yearsFromToday(_ years: Int) -> TemporalBound { TemporalBound(.fromToday(years: years, months: 0, days: 0)) }

    /// The same day `months` months after the command's day (31 January plus one month is the
    /// last of February).
    public static func monthsFromToday(_ months: Int) -> TemporalBound { TemporalBound(.fromToday(years: 0, months: months, days: 0)) }

    /// The same day `months` months before the command's day.
    public static func monthsAgo(_ months: Int) -> TemporalBound { TemporalBound(.fromToday(years: 0, months: -months, days: 0)) }

    /// The first day of the month `monthsFromToday` months after the command's (0: this month's
    /// first, 1: next month's, -1: last month's).
    public static func startOfMonth(monthsFromToday months: Int = 0) -> TemporalBound { TemporalBound(.monthOf(months: months, end: false)) }

    /// The last day of the month `monthsFromToday` months after the command's.
    public static func endOfMonth(monthsFromToday months: Int = 0) -> TemporalBound { TemporalBound(.monthOf(months: months, end: true)) }

    /// The same bound with its own `out_of_range` message, in the app's voice.
    public func refusing(_ message: String) -> TemporalBound { TemporalBound(anchor, message: message) }

    /// The bound as a date on `today`; nil for a time-of-day bound.
    public func date(on today: CalendarDate) -> CalendarDate? {
        switch anchor {
        case .date(let date): return date
        case .time: return nil
        case .fromToday(let years, let months, let days):
            let (year, month) = Self.month(of: today, plus: years * 12 + months)
            let day = Swift.min(today.day, CalendarDate.daysIn(month: month, year: year))
            return CalendarDate(year: year, month: month, day: day)?.adding(days: days)
        case .monthOf(let months, let end):
            let (year, month) = Self.month(of: today, plus: months)
            return CalendarDate(year: year, month: month, day: end ? CalendarDate.daysIn(month: month, year: year) : 1)
        }
    }

    /// The year and month `months` months after `day`'s.
    private static func month(of day: CalendarDate, plus months: Int) -> (year: Int, month: Int) {
        let index = day.year * 12 + (day.month - 1) + months
        let year = index >= 0 ? index / 12 : (index - 11) / 12
        return (year, index - year * 12 + 1)
    }

    /// The bound as a time of day; nil for a date bound.
    public var time: ClockTime? {
        if case .time(let time) = anchor { return time }
        return nil
    }

    /// The bound as clients see it on `today`: `YYYY-MM-DD` or `HH:mm`.
    public func text(on today: CalendarDate) -> String {
        time?.description ?? date(on: today)?.description ?? ""
    }

    /// Whether the bound moves with the command's day (a relative date).
    var isRelative: Bool {
        switch anchor {
        case .fromToday, .monthOf: true
        case .date, .time: false
        }
    }
}

extension CalendarDate {
    /// Days since 1970-01-01 (negative before), in the proleptic Gregorian calendar.
    public var daysSinceEpoch: Int {
        // Howard Hinnant's days_from_civil: exact integer arithmetic, no Calendar or time zone.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `daysSinceEpoch` days after 1970-01-01.
    public init(daysSinceEpoch: Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days later (earlier when negative).
    public func adding(days: Int) -> CalendarDate {
        days == 0 ? self : CalendarDate(daysSinceEpoch: daysSinceEpoch + days)
    }
}

/// Which day of its month a `date` answer must fall on (``FieldSpec/dayOfMonth``): a billing
/// date on the 1st, a pay day on the last. Another day is `out_of_range`, with ``message``.
/// Clients see it as the FieldView's `dayOfMonth`: a number, or `"last"`.
public struct DayOfMonthRule: Sendable, Hashable {
    enum Day: Sendable, Hashable {
        case number(Int)
        case last
    }

    let day: Day
    /// The `out_of_range` message; nil: the field's `messages[.outOfRange]`, else "<label> must
    /// be the 1st of a month." (or "the last day of a month").
    public let message: String?

    init(_ day: Day, message: String? = nil) {
        self.day = day
        self.message = message
    }

    /// The 1st of a month.
    public static let first = DayOfMonthRule(.number(1))
    /// The last day of a month (28, 29, 30 or 31).
    public static let last = DayOfMonthRule(.last)

    /// The `day`th of a month, 1-28 (a later day is missing from some months: use ``last``).
    /// Traps outside 1-28, a definition error.
    public static func day(_ day: Int) -> DayOfMonthRule {
        precondition((1...28).contains(day), "DayOfMonthRule.day(\(day)): use 1-28, or .last")
        return DayOfMonthRule(.number(day))
    }

    /// The same rule with its own message, in the app's voice.
    public func refusing(_ message: String) -> DayOfMonthRule { DayOfMonthRule(day, message: message) }

    /// Whether `date` falls on the rule's day.
    public func admits(_ date: CalendarDate) -> Bool {
        switch day {
        case .number(let number): date.day == number
        case .last: date.day == CalendarDate.daysIn(month: date.month, year: date.year)
        }
    }

    /// The rule as clients see it: the day's number, or `"last"`.
    public var json: JSONValue {
        switch day {
        case .number(let number): .int(Int64(number))
        case .last: "last"
        }
    }

    /// "the 1st of a month", "the last day of a month".
    var words: String {
        switch day {
        case .last: return "the last day of a month"
        case .number(let number):
            let suffix =
                (11...13).contains(number % 100) ? "th" : (["st", "nd", "rd"].indices.contains(number % 10 - 1) ? ["st", "nd", "rd"][number % 10 - 1] : "th")
            return "the \(number)\(suffix) of a month"
        }
    }
}
