import Foundation

/// Who sees which variant of an experiment. The arithmetic is GrowthBook's (hash version 2 for the
/// variant, version 1 for namespaces, its bucket ranges and variation choice), so a split configured
/// here puts each person where a GrowthBook SDK given the same seed, weights and coverage would, and
/// an assignment can be checked by hand or against their published test cases. Nothing is stored:
/// the same seed and user id always land on the same point, on any host.
public enum ExperimentHash {
    /// FNV-1a, 32 bits, over the UTF-8 bytes. GrowthBook's JavaScript SDK feeds UTF-16 code units
    /// instead; the two agree on ASCII, which user ids, seeds and namespace ids are in practice.
    public static func fnv1a32(_ text: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash &*= 16_777_619
        }
        return hash
    }

    /// GrowthBook's hash version 2: a point in [0, 1) on a grid of 1/10000. Hashing the decimal
    /// digits of the first hash again is what removes version 1's bias between nearby seeds; the
    /// division stays decimal (n / 10000) so the points compare exactly with GrowthBook's.
    public static func point(seed: String, userId: String) -> Double {
        let first = fnv1a32(seed + userId)
        return Double(fnv1a32(String(first)) % 10_000) / 10_000
    }

    /// GrowthBook's hash version 1 with the seed "__" + namespace id, which is what its namespaces
    /// still use: changing it would move people between mutually exclusive experiments.
    public static func namespacePoint(userId: String, namespace: String) -> Double {
        versionOnePoint(seed: "__" + namespace, value: userId)
    }

    /// GrowthBook's hash version 1, on a grid of 1/1000. Its seed goes after the value, unlike
    /// version 2's; kept apart so it can be checked against GrowthBook's version 1 cases.
    static func versionOnePoint(seed: String, value: String) -> Double {
        Double(fnv1a32(value + seed) % 1_000) / 1_000
    }

    public static func inNamespace(userId: String, namespace: String, range: BucketRange) -> Bool {
        range.contains(namespacePoint(userId: userId, namespace: namespace))
    }

    /// One range per weight, in the order declared. Each range starts at the cumulative share of
    /// the variants before it, not at the cumulative covered share, so lowering the coverage only
    /// shortens the ranges: a person enrolled at a low coverage keeps their variant when the
    /// coverage is raised (GrowthBook's getBucketRanges).
    ///
    /// Weights are divided by their sum, so [1, 1] and [0.5, 0.5] split alike (GrowthBook instead
    /// falls back to equal weights when they do not add up to 1 ± 0.01). Weights no share can be
    /// made from (a negative or non-finite weight, or a sum that is not positive) fall back to
    /// equal shares, as GrowthBook does with weights it cannot use. The coverage is clamped to
    /// [0, 1]; a NaN coverage enrols nobody, as it does in GrowthBook, where no point is in a NaN range.
    public static func ranges(weights: [Double], coverage: Double) -> [BucketRange] {
        guard !weights.isEmpty else { return [] }
        let covered = coverage.isNaN ? 0 : min(max(coverage, 0), 1)
        let total = weights.reduce(0, +)
        let usable = total > 0 && total.isFinite && weights.allSatisfy { $0 >= 0 && $0.isFinite }
        let shares = usable ? weights.map { $0 / total } : Array(repeating: 1 / Double(weights.count), count: weights.count)
        var cumulative = 0.0
        return shares.map { share in
            let start = cumulative
            cumulative += share
            return BucketRange(lower: start, upper: start + covered * share)
        }
    }

    /// The first range holding the point, or nil: a point outside the covered part of every
    /// range is not enrolled (GrowthBook's chooseVariation, whose -1 is nil here).
    public static func variantIndex(point: Double, ranges: [BucketRange]) -> Int? {
        ranges.firstIndex { $0.contains(point) }
    }

    /// The whole assignment: the namespace first (outside it a person is in none of the
    /// experiment's variants), then the person's point against the variants' ranges.
    /// The seed is the experiment's own (GrowthBook's default is the experiment key), so two
    /// experiments split the same people independently.
    public static func variantIndex(
        seed: String, userId: String, weights: [Double], coverage: Double, namespace: ExperimentNamespace? = nil
    ) -> Int? {
        if let namespace, !inNamespace(userId: userId, namespace: namespace.id, range: namespace.range) {
            return nil
        }
        return variantIndex(point: point(seed: seed, userId: userId), ranges: ranges(weights: weights, coverage: coverage))
    }
}

/// A half-open stretch [lower, upper) of the unit interval. Half-open so that on a border between
/// two variants the point belongs to exactly one of them, the later one.
public struct BucketRange: Sendable, Hashable {
    public var lower: Double
    public var upper: Double

    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    public func contains(_ point: Double) -> Bool {
        lower <= point && point < upper
    }
}

/// A share of all users set aside for a group of mutually exclusive experiments: experiments in
/// the same namespace with disjoint ranges never enrol the same person.
public struct ExperimentNamespace: Sendable, Hashable {
    public var id: String
    public var range: BucketRange

    public init(id: String, range: BucketRange) {
        self.id = id
        self.range = range
    }
}
