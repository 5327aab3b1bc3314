import PlatformCore

/// An experiment a tenants file declares: the people who start `flow` are split between variants,
/// each a flow (and optionally a kept version of it) of the tenant's plugin, and each person stays
/// on theirs. Assignment is GrowthBook's (`ExperimentHash`), so analysts can recompute it.
public struct Experiment: Sendable, Hashable {
    public struct Variant: Sendable, Hashable {
        public var id: String
        /// A flow of the tenant's plugin.
        public var flow: String
        /// A version of that flow the plugin keeps (a ramp of a new version against it); nil: the
        /// newest.
        public var version: String?
        /// Positive; the variant's share is its weight over the sum.
        public var weight: Double

        public init(id: String, flow: String, version: String? = nil, weight: Double) {
            self.id = id
            self.flow = flow
            self.version = version
            self.weight = weight
        }
    }

    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// Enrols new people.
        case running
        /// New people get the control's flow.
        case stopped
        /// New people get the winner's flow.
        case shipped
    }

    public var id: String
    /// The flow clients ask for in `flow.start`.
    public var flow: String
    public var variants: [Variant]
    public var control: String
    /// The part (0 to 1) of the people in the namespace who are enrolled.
    public var coverage: Double
    public var namespace: ExperimentNamespace?
    /// A new seed is a new phase: people enrolled from then on are assigned by it.
    public var seed: String
    public var status: Status
    /// The variant new people get once `shipped`.
    public var winner: String?
    public var completedWithinHours: Double
    public var alpha: Double
    public var tuning: Double
    /// A variant found `worse` stops the experiment.
    public var autoStop: Bool

    public init(
        id: String, flow: String, variants: [Variant], control: String, coverage: Double = 1, namespace: ExperimentNamespace? = nil,
        seed: String? = nil, status: Status = .running, winner: String? = nil, completedWithinHours: Double = 72, alpha: Double = 0.05,
        tuning: Double = 5000, autoStop: Bool = false
    ) {
        self.id = id
        self.flow = flow
        self.variants = variants
        self.control = control
        self.coverage = coverage
        self.namespace = namespace
        self.seed = seed ?? id
        self.status = status
        self.winner = winner
        self.completedWithinHours = completedWithinHours
        self.alpha = alpha
        self.tuning = tuning
        self.autoStop = autoStop
    }

    /// Each variant's share of the people enrolled, in declared order.
    public var shares: [Double] {
        let total = variants.reduce(0) { $0 + $1.weight }
        return variants.map { total > 0 ? $0.weight / total : 0 }
    }

    public var controlVariant: Variant? { variant(control) }

    public func variant(_ id: String) -> Variant? {
        variants.first { $0.id == id }
    }

    /// The variant the contract's hash gives the person, or nil when they fall outside the
    /// namespace or the coverage (they then get the control's flow, unenrolled).
    public func assignment(of userId: String) -> Variant? {
        let index = ExperimentHash.variantIndex(
            seed: seed, userId: userId, weights: variants.map(\.weight), coverage: coverage, namespace: namespace)
        return index.map { variants[$0] }
    }

    /// The flows a person's one session for this experiment may be on: the experiment's own and
    /// every variant's, without repeats, the experiment's first.
    public var flows: [String] {
        var seen: Set<String> = []
        return ([flow] + variants.map(\.flow)).filter { seen.insert($0).inserted }
    }

    /// Whether two experiments could enrol one person: without namespaces, or in different ones
    /// (independent hashes), they can; in one namespace only when their ranges overlap.
    func overlaps(_ other: Experiment) -> Bool {
        guard let mine = namespace, let theirs = other.namespace, mine.id == theirs.id else { return true }
        return mine.range.lower < theirs.range.upper && theirs.range.lower < mine.range.upper
    }
}
