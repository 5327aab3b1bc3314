import PlatformCore

/// A window in the week when the person can usually train (the seed's `WorkoutAvailabilityBlock`).
/// Blocks stay within one day: an evening that runs past midnight is two blocks.
struct AvailabilityBlock: Sendable, Hashable, Comparable {
    static let minimumMinutes = 15
    static let maximumCount = 21

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    var dayOfWeek: Int
    var start: ClockTime
    var end: ClockTime

    /// A block from a list item the field validator already checked.
    init?(_ item: JSONValue) {
        guard let day = item["dayOfWeek"]?.intValue,
            let start = item["startTime"]?.stringValue.flatMap(ClockTime.init),
            let end = item["endTime"]?.stringValue.flatMap(ClockTime.init)
        else { return nil }
        self.init(dayOfWeek: day, start: start, end: end)
    }

    init(dayOfWeek: Int, start: ClockTime, end: ClockTime) {
        self.dayOfWeek = dayOfWeek
        self.start = start
        self.end = end
    }

    var durationMinutes: Int { end.minutes - start.minutes }

    /// Touching blocks (one ends at 10:00, the next starts at 10:00) do not overlap.
    func overlaps(_ other: AvailabilityBlock) -> Bool {
        dayOfWeek == other.dayOfWeek && start < other.end && other.start < end
    }

    /// "Monday 07:00–08:30", the way messages name a block.
    var name: String { "\(Self.dayName(dayOfWeek)) \(start.description)–\(end.description)" }

    static func dayName(_ day: Int) -> String {
        let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        return (1...7).contains(day) ? names[day - 1] : "Day \(day)"
    }

    static func < (lhs: AvailabilityBlock, rhs: AvailabilityBlock) -> Bool {
        (lhs.dayOfWeek, lhs.start.minutes, lhs.end.minutes) < (rhs.dayOfWeek, rhs.start.minutes, rhs.end.minutes)
    }

    /// As saved in the answers.
    var answer: JSONValue {
        ["dayOfWeek": .int(Int64(dayOfWeek)), "startTime": .string(start.description), "endTime": .string(end.description)]
    }
}
