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
/// ```
public struct TemporalBound: Sendable, Hashable {
    enum Anchor: Sendable, Hashable {
        case date(CalendarDate)
        case time(ClockTime)
        /// `years` then `days` added to the command's day (negative: before it).
        case fromToday(years: Int, days: Int)
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
    public static let today = TemporalBound(.fromToday(years: 0, days: 0))

    /// `days` after the command's day (`.daysFromToday(60)`: within the next 60 days).
    public static func daysFromToday(_ days: Int) -> TemporalBound { TemporalBound(.fromToday(years: 0, days: days)) }

    /// `days` before the command's day.
    public static func daysAgo(_ days: Int) -> TemporalBound { TemporalBound(.fromToday(years: 0, days: -days)) }

    /// The same day `years` years before the command's day (29 February becomes the 28th in a
    /// common year), so `latest: .yearsAgo(18)` admits exactly the people 18 or older today.
    public static func yearsAgo(_ years: Int) -> TemporalBound { TemporalBound(.fromToday(years: -years, days: 0)) }

    /// The same day `years` years after the command's day.
    public static func yearsFromToday(_ years: Int) -> TemporalBound { TemporalBound(.fromToday(years: years, days: 0)) }

    /// The same bound with its own `out_of_range` message, in the app's voice.
    public func refusing(_ message: String) -> TemporalBound { TemporalBound(anchor, message: message) }

    /// The bound as a date on `today`; nil for a time-of-day bound.
    public func date(on today: CalendarDate) -> CalendarDate? {
        switch anchor {
        case .date(let date): return date
        case .time: return nil
        case .fromToday(let years, let days):
            let year = today.year + years
            let day = Swift.min(today.day, CalendarDate.daysIn(month: today.month, year: year))
            return CalendarDate(year: year, month: today.month, day: day)?.adding(days: days)
        }
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
        if case .fromToday = anchor { return true }
        return false
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
