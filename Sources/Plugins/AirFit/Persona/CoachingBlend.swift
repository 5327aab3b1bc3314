/// The coaching blend: each style's slider value as a whole percentage of their sum.
///
/// Shares are apportioned by largest remainder, in integers so that no rounding error can
/// decide a tie: each style gets the floor of its exact share, and the points still missing
/// from 100 go to the largest remainders, ties to the earlier style in slider order. When
/// every slider is at 0 the split is even (the same rule over equal weights).
struct CoachingBlend: Sendable {
    /// Percentages in slider order; they sum to exactly 100.
    let shares: [(style: CoachingStyle, percent: Int)]

    init(_ values: [CoachingStyle: Int]) {
        let styles = CoachingStyle.allCases
        let raw = styles.map { max(0, values[$0] ?? 0) }
        let weights = raw.allSatisfy { $0 == 0 } ? raw.map { _ in 1 } : raw
        let total = weights.reduce(0, +)
        var percents = weights.map { $0 * 100 / total }
        let remainders = weights.map { $0 * 100 % total }
        let missing = 100 - percents.reduce(0, +)
        let order = styles.indices.sorted { remainders[$0] != remainders[$1] ? remainders[$0] > remainders[$1] : $0 < $1 }
        for index in order.prefix(missing) { percents[index] += 1 }
        shares = zip(styles, percents).map { ($0, $1) }
    }

    func percent(of style: CoachingStyle) -> Int {
        shares.first { $0.style == style }?.percent ?? 0
    }

    /// "Primarily Analytical & Insightful, balanced with Empathetic & Encouraging, with a touch of
    /// Playful & Provocative. Expect data-led guidance with the reasoning shown."
    /// Styles at 20% or more are "balanced with"; those under 20% but above 0 are "a touch of".
    var summary: String {
        let ranked = shares.enumerated()
            .sorted { $0.element.percent != $1.element.percent ? $0.element.percent > $1.element.percent : $0.offset < $1.offset }
            .map(\.element)
        let top = ranked[0].percent
        let leaders = ranked.filter { $0.percent == top }.map(\.style)
        let others = ranked.filter { $0.percent < top }
        var sentence =
            leaders.count == 1
            ? "Primarily \(leaders[0].label)"
            : "An even blend of \(Self.list(leaders.map(\.label)))"
        let balanced = others.filter { $0.percent >= 20 }.map(\.style.label)
        let touches = others.filter { $0.percent > 0 && $0.percent < 20 }.map(\.style.label)
        if !balanced.isEmpty { sentence += ", balanced with \(Self.list(balanced))" }
        if !touches.isEmpty { sentence += ", with a touch of \(Self.list(touches))" }
        return sentence + ". " + leaders[0].expectation
    }

    /// "A", "A and B", "A, B and C".
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}
