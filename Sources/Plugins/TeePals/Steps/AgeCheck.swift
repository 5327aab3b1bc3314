import PlatformCore

/// Age verification: whole years in UTC between a birthday and today.
public enum AgeCheck {
    /// The contract's default; a tenant may ask for more (`minimumAge`, 13-21).
    public static let defaultMinimumAge = 13
    static let earliestBirthday = TemporalBound.date(1900, 1, 1)

    /// Completed years on `today`. A 29 February birthday falls on 1 March in common years.
    static func age(bornOn birthday: CalendarDate, on today: CalendarDate) -> Int {
        let leapDay = birthday.month == 2 && birthday.day == 29
        let anniversary = leapDay && !CalendarDate.isLeap(today.year) ? (3, 1) : (birthday.month, birthday.day)
        let years = today.year - birthday.year
        return (today.month, today.day) < anniversary ? years - 1 : years
    }

    static func isOldEnough(bornOn birthday: CalendarDate, on today: CalendarDate, minimumAge: Int = defaultMinimumAge) -> Bool {
        age(bornOn: birthday, on: today) >= minimumAge
    }
}
