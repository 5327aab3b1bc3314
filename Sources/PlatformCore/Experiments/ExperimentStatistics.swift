import Foundation

/// Pearson's chi-square of the exposed counts against the declared shares. A mismatch means the
/// split itself is broken (a variant that crashes before it is logged, a cache serving one
/// variant to bots): no comparison of its completion rates can be trusted until that is fixed.
/// The wire's own type: the check is reported as computed.
public typealias SampleRatioCheck = ExperimentResults.SampleRatio

/// What an experiment's counts say: the split's health, completion rates, time to complete, and
/// each variant against the control. Dashboards are watched continuously, so the comparison is a
/// confidence sequence (valid however often it is read), not a fixed-sample test that peeking
/// would invalidate.
public enum ExperimentStatistics {
    /// Below this many exposed in some variant the chi-square approximation is too rough to
    /// raise an alarm on (its usual rule is an expected count of 5 or more per cell).
    public static let minimumExposedForSampleRatio = 8
    /// The confidence sequence is asymptotic: with fewer people per arm its normal approximation,
    /// and the variance estimated from the rates, are not to be trusted.
    public static let minimumExposedForComparison = 30
    /// Strict, because the check runs on every read of the dashboard: at 0.05 a healthy
    /// experiment would soon raise a false alarm.
    public static let sampleRatioMismatchThreshold = 0.001

    public enum Decision: String, Sendable, Hashable, CaseIterable {
        case better, worse, inconclusive
    }

    /// [lower, upper] for the difference of completion rates (variant minus control).
    public struct Interval: Sendable, Hashable {
        public var lower: Double
        public var upper: Double

        public init(lower: Double, upper: Double) {
            self.lower = lower
            self.upper = upper
        }
    }

    public struct Comparison: Sendable, Hashable {
        /// Variant's completion rate minus the control's; nil when an arm has nobody exposed.
        public var difference: Double?
        /// Nil until both arms have enough people and some variance (see `compare`).
        public var interval: Interval?
        public var decision: Decision

        public init(difference: Double?, interval: Interval?, decision: Decision) {
            self.difference = difference
            self.interval = interval
            self.decision = decision
        }
    }

    /// Median and 90th percentile, both values that were observed (nearest rank), so a report
    /// never shows a time no one took.
    public struct DurationSummary: Sendable, Hashable {
        public var median: Double
        public var p90: Double

        public init(median: Double, p90: Double) {
            self.median = median
            self.p90 = p90
        }
    }

    /// One variant's counts, in the order the variants are declared.
    public struct VariantTally: Sendable, Hashable {
        public var exposed: Int
        public var completed: Int
        /// The seconds from exposure to completion, median and 90th percentile (nearest rank).
        public var durations: DurationSummary?

        /// `secondsToComplete`: one per completed person.
        public init(exposed: Int, completed: Int, secondsToComplete: [Double] = []) {
            self.init(exposed: exposed, completed: completed, durations: ExperimentStatistics.secondsToComplete(secondsToComplete))
        }

        /// With the durations' summary computed where they are (a store ranks them in its index).
        public init(exposed: Int, completed: Int, durations: DurationSummary?) {
            self.exposed = exposed
            self.completed = completed
            self.durations = durations
        }
    }

    public struct VariantSummary: Sendable, Hashable {
        public var exposed: Int
        public var completed: Int
        public var completionRate: Double?
        public var secondsToComplete: DurationSummary?
        /// Nil for the control itself.
        public var vsControl: Comparison?

        public init(exposed: Int, completed: Int, completionRate: Double?, secondsToComplete: DurationSummary?, vsControl: Comparison?) {
            self.exposed = exposed
            self.completed = completed
            self.completionRate = completionRate
            self.secondsToComplete = secondsToComplete
            self.vsControl = vsControl
        }
    }

    public struct Report: Sendable, Hashable {
        public var srm: SampleRatioCheck?
        public var variants: [VariantSummary]

        public init(srm: SampleRatioCheck?, variants: [VariantSummary]) {
            self.srm = srm
            self.variants = variants
        }
    }

    /// Everything at once, each variant against the one at index `control` (the experiment's
    /// declared control, wherever it is in the list).
    public static func report(variants: [VariantTally], shares: [Double], control controlIndex: Int, alpha: Double, tuning: Double) -> Report {
        guard variants.indices.contains(controlIndex) else { return Report(srm: nil, variants: []) }
        let control = variants[controlIndex]
        let summaries = variants.enumerated().map { index, tally in
            VariantSummary(
                exposed: tally.exposed, completed: tally.completed,
                completionRate: completionRate(completed: tally.completed, exposed: tally.exposed),
                secondsToComplete: tally.durations,
                vsControl: index == controlIndex
                    ? nil
                    : compare(
                        control: (exposed: control.exposed, completed: control.completed),
                        variant: (exposed: tally.exposed, completed: tally.completed), alpha: alpha, tuning: tuning))
        }
        return Report(srm: sampleRatio(exposed: variants.map(\.exposed), shares: shares), variants: summaries)
    }

    // MARK: Sample ratio

    /// Nil until every variant has `minimumExposedForSampleRatio` exposed, and for counts that do
    /// not describe a split (fewer than two variants, a share per variant missing, a share that is
    /// not positive and finite, a negative count). Shares are divided by their sum, so weights
    /// (the same numbers `ExperimentHash.ranges` takes) can be passed as they are.
    public static func sampleRatio(exposed: [Int], shares: [Double]) -> SampleRatioCheck? {
        guard exposed.count >= 2, exposed.count == shares.count,
            exposed.allSatisfy({ $0 >= minimumExposedForSampleRatio }),
            shares.allSatisfy({ $0 > 0 && $0.isFinite })
        else { return nil }
        let total = Double(exposed.reduce(0, +))
        let shareTotal = shares.reduce(0, +)
        var chiSquare = 0.0
        for (count, share) in zip(exposed, shares) {
            let expected = total * share / shareTotal
            let deviation = Double(count) - expected
            chiSquare += deviation * deviation / expected
        }
        let pValue = chiSquareSurvival(chiSquare, degreesOfFreedom: exposed.count - 1)
        return SampleRatioCheck(chiSquare: chiSquare, pValue: pValue, mismatch: pValue < sampleRatioMismatchThreshold)
    }

    /// P(X ≥ x) for X chi-square with k degrees of freedom: Q(k/2, x/2).
    public static func chiSquareSurvival(_ x: Double, degreesOfFreedom: Int) -> Double {
        guard degreesOfFreedom > 0, !x.isNaN else { return .nan }
        return regularizedUpperGamma(Double(degreesOfFreedom) / 2, x / 2)
    }

    /// Q(a, x) = Γ(a, x) / Γ(a), for a > 0. The series converges fast below x = a + 1 and the
    /// continued fraction above it (Numerical Recipes' split); each side computes the function
    /// that is not close to 1 there and takes the other as its complement, so neither loses digits
    /// to cancellation. Within 1e-13 relative of a 40-digit reference for a up to 100 (200 degrees
    /// of freedom), 1e-12 up to a = 1000 down to Q ≈ 1e-140: the error grows with ln Γ(a), which
    /// the exponent carries.
    public static func regularizedUpperGamma(_ a: Double, _ x: Double) -> Double {
        guard a > 0, a.isFinite, !x.isNaN else { return .nan }
        if x <= 0 { return 1 }
        if x == .infinity { return 0 }
        // x^a e^-x / Γ(a), in logarithms so large a and x do not overflow on the way.
        let front = exp(a * log(x) - x - logGamma(a))
        if x < a + 1 {
            var term = 1 / a
            var sum = term
            var denominator = a
            for _ in 0..<10_000 {
                denominator += 1
                term *= x / denominator
                sum += term
                if abs(term) < abs(sum) * .ulpOfOne { break }
            }
            return max(0, 1 - sum * front)
        }
        // Modified Lentz evaluation of the continued fraction for Γ(a, x) e^x x^-a.
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var fraction = d
        for step in 1...10_000 {
            let an = -Double(step) * (Double(step) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            fraction *= delta
            if abs(delta - 1) <= .ulpOfOne { break }
        }
        return min(1, front * fraction)
    }

    /// ln Γ(x) for x > 0 (Lanczos, Numerical Recipes 3rd edition's gammln: full double precision).
    /// Written out rather than calling the C library's lgamma, which writes the global `signgam`
    /// on every call: a data race when reports are computed concurrently.
    static func logGamma(_ x: Double) -> Double {
        let coefficients: [Double] = [
            57.1562356658629235, -59.5979603554754912, 14.1360979747417471, -0.491913816097620199,
            0.339946499848118887e-4, 0.465236289270485756e-4, -0.983744753048795646e-4, 0.158088703224912494e-3,
            -0.210264441724104883e-3, 0.217439618115212643e-3, -0.164318106536763890e-3, 0.844182239838527433e-4,
            -0.261908384015814087e-4, 0.368991826595316234e-5,
        ]
        var shifted = x
        let base = x + 5.24218750000000000
        let head = (x + 0.5) * log(base) - base
        var series = 0.999999999999997092
        for coefficient in coefficients {
            shifted += 1
            series += coefficient / shifted
        }
        return head + log(2.5066282746310005 * series / x)
    }

    // MARK: Completion

    public static func completionRate(completed: Int, exposed: Int) -> Double? {
        exposed > 0 ? Double(completed) / Double(exposed) : nil
    }

    /// Nil when nobody has completed.
    public static func secondsToComplete(_ durations: [Double]) -> DurationSummary? {
        guard let median = nearestRank(durations, quantile: 0.5), let p90 = nearestRank(durations, quantile: 0.9) else { return nil }
        return DurationSummary(median: median, p90: p90)
    }

    /// The value at 1-based rank ⌈q·n⌉ of the sorted values (rank 1 for q = 0). NaNs are left
    /// out: they have no place in an order. A product that misses an integer by rounding alone
    /// (0.07 × 100 is 7.000000000000001 in binary) counts as that integer, or the rank would be
    /// one too high.
    public static func nearestRank(_ values: [Double], quantile: Double) -> Double? {
        guard !quantile.isNaN else { return nil }
        let sorted = values.filter { !$0.isNaN }.sorted()
        guard !sorted.isEmpty else { return nil }
        return nearestRankIndex(count: sorted.count, quantile: quantile).map { sorted[$0] }
    }

    /// The 0-based index of the nearest rank ⌈q·n⌉ among `count` sorted values (a store reads the
    /// value there with OFFSET along its index); nil for none.
    public static func nearestRankIndex(count: Int, quantile: Double) -> Int? {
        guard count > 0, !quantile.isNaN else { return nil }
        let product = min(max(quantile, 0), 1) * Double(count)
        let nearest = product.rounded()
        let rank = abs(product - nearest) <= nearest * 4 * .ulpOfOne ? nearest : product.rounded(.up)
        return min(max(Int(rank), 1), count) - 1
    }

    // MARK: Variant against control

    /// The difference of completion rates with an always-valid 1 - α asymptotic confidence
    /// sequence (Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas, "Time-uniform central limit
    /// theory and asymptotic confidence sequences"): the probability that the interval ever
    /// excludes the true difference, over all the times it is read, is about α at most.
    ///
    /// `tuning` is the total sample size (both arms) at which the interval is narrowest; the
    /// sequence stays valid before and after it, only wider. With t = n_c + n_v,
    /// V = p_c(1 - p_c)/n_c + p_v(1 - p_v)/n_v, σ = √(t·V) and
    /// ρ² = (-2 ln α + ln(1 - 2 ln α)) / tuning, the half-width is
    /// σ · √( 2(tρ² + 1) / (t²ρ²) · ln(√(tρ² + 1) / α) ).
    ///
    /// No interval (and so "inconclusive") while either arm has fewer than
    /// `minimumExposedForComparison` exposed, when V is 0 (every rate 0 or 1: no variance to
    /// scale by), or for an α outside (0, 1), a tuning that is not positive, or counts that are
    /// not rates (negative, or more completed than exposed): those last also have no difference.
    public static func compare(
        control: (exposed: Int, completed: Int), variant: (exposed: Int, completed: Int), alpha: Double, tuning: Double
    ) -> Comparison {
        let inconclusive = Comparison(difference: nil, interval: nil, decision: .inconclusive)
        guard control.exposed > 0, variant.exposed > 0,
            (0...control.exposed).contains(control.completed), (0...variant.exposed).contains(variant.completed)
        else { return inconclusive }
        let (nc, nv) = (Double(control.exposed), Double(variant.exposed))
        let (pc, pv) = (Double(control.completed) / nc, Double(variant.completed) / nv)
        let difference = pv - pc
        let variance = pc * (1 - pc) / nc + pv * (1 - pv) / nv
        guard control.exposed >= minimumExposedForComparison, variant.exposed >= minimumExposedForComparison,
            variance > 0, alpha > 0, alpha < 1, tuning > 0, tuning.isFinite
        else { return Comparison(difference: difference, interval: nil, decision: .inconclusive) }
        let t = nc + nv
        let sigma = (t * variance).squareRoot()
        let logAlpha = log(alpha)
        let rho2 = (-2 * logAlpha + log(1 - 2 * logAlpha)) / tuning
        let spread = t * rho2 + 1
        let halfWidth = sigma * (2 * spread / (t * t * rho2) * log(spread.squareRoot() / alpha)).squareRoot()
        let interval = Interval(lower: difference - halfWidth, upper: difference + halfWidth)
        let decision: Decision = interval.lower > 0 ? .better : interval.upper < 0 ? .worse : .inconclusive
        return Comparison(difference: difference, interval: interval, decision: decision)
    }
}
