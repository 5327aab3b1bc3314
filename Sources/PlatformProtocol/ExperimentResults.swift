/// `analytics.experiment`: each variant's exposures, completions within the window, time to
/// complete, funnel, and its difference from the control as an always-valid confidence sequence.
public struct ExperimentResults: Sendable, Hashable, Codable {
    public struct SampleRatio: Sendable, Hashable, Codable {
        public var chiSquare: Double
        public var pValue: Double
        /// pValue < 0.001: the split itself is broken; no comparison can be trusted.
        public var mismatch: Bool

        public init(chiSquare: Double, pValue: Double, mismatch: Bool) {
            self.chiSquare = chiSquare
            self.pValue = pValue
            self.mismatch = mismatch
        }
    }

    public struct Duration: Sendable, Hashable, Codable {
        public var median: Double
        public var p90: Double

        public init(median: Double, p90: Double) {
            self.median = median
            self.p90 = p90
        }
    }

    public struct Comparison: Sendable, Hashable, Codable {
        /// The variant's completion rate minus the control's.
        public var difference: Double?
        /// [lower, upper]; null while either arm has fewer than 30 exposed or no variance.
        public var interval: [Double]?
        /// `better`, `worse` or `inconclusive`.
        public var decision: String

        public init(difference: Double?, interval: [Double]?, decision: String) {
            self.difference = difference
            self.interval = interval
            self.decision = decision
        }

        enum CodingKeys: String, CodingKey { case difference, interval, decision }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeNullable(difference, forKey: .difference)
            try container.encodeNullable(interval, forKey: .interval)
            try container.encode(decision, forKey: .decision)
        }
    }

    public struct Variant: Sendable, Hashable, Codable {
        public var id: String
        public var flow: String
        public var version: String
        public var share: Double
        public var exposed: Int
        public var completed: Int
        public var completionRate: Double?
        public var secondsToComplete: Duration?
        public var steps: [Funnel.Step]
        /// Null for the control.
        public var vsControl: Comparison?

        public init(
            id: String, flow: String, version: String, share: Double, exposed: Int, completed: Int, completionRate: Double?,
            secondsToComplete: Duration?, steps: [Funnel.Step], vsControl: Comparison?
        ) {
            self.id = id
            self.flow = flow
            self.version = version
            self.share = share
            self.exposed = exposed
            self.completed = completed
            self.completionRate = completionRate
            self.secondsToComplete = secondsToComplete
            self.steps = steps
            self.vsControl = vsControl
        }

        enum CodingKeys: String, CodingKey { case id, flow, version, share, exposed, completed, completionRate, secondsToComplete, steps, vsControl }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(flow, forKey: .flow)
            try container.encode(version, forKey: .version)
            try container.encode(share, forKey: .share)
            try container.encode(exposed, forKey: .exposed)
            try container.encode(completed, forKey: .completed)
            try container.encodeNullable(completionRate, forKey: .completionRate)
            try container.encodeNullable(secondsToComplete, forKey: .secondsToComplete)
            try container.encode(steps, forKey: .steps)
            try container.encodeNullable(vsControl, forKey: .vsControl)
        }
    }

    /// A stop the server decided (`autoStop`).
    public struct Stop: Sendable, Hashable, Codable {
        public var at: String
        public var variant: String
        public var reason: String

        public init(at: String, variant: String, reason: String) {
            self.at = at
            self.variant = variant
            self.reason = reason
        }
    }

    public var experiment: String
    public var seed: String
    /// `running`, `stopped` or `shipped`: the tenants file's, or `stopped` once the server stopped it.
    public var status: String
    public var control: String
    /// Null until every variant has 8 or more exposed.
    public var srm: SampleRatio?
    public var variants: [Variant]
    public var stopped: Stop?

    public init(
        experiment: String, seed: String, status: String, control: String, srm: SampleRatio?, variants: [Variant], stopped: Stop?
    ) {
        self.experiment = experiment
        self.seed = seed
        self.status = status
        self.control = control
        self.srm = srm
        self.variants = variants
        self.stopped = stopped
    }

    enum CodingKeys: String, CodingKey { case experiment, seed, status, control, srm, variants, stopped }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(experiment, forKey: .experiment)
        try container.encode(seed, forKey: .seed)
        try container.encode(status, forKey: .status)
        try container.encode(control, forKey: .control)
        try container.encodeNullable(srm, forKey: .srm)
        try container.encode(variants, forKey: .variants)
        try container.encodeNullable(stopped, forKey: .stopped)
    }
}

/// `analytics.experiment`'s params.
public struct ExperimentParams: MethodParams, Hashable {
    public static let members: [ParamMember] = [
        .tenant, ParamMember("experiment", required: true, schema: ParamBounds.experiment.schema),
    ]

    public var tenant: String
    public var experiment: String

    public init(tenant: String, experiment: String) {
        self.tenant = tenant
        self.experiment = experiment
    }
}
