import Metrics
import PlatformCore
import PlatformStorage
import Synchronization

/// The contract's metric families, recorded through the swift-metrics API (whatever backend the
/// process bootstraps: `serve` exposes them in Prometheus' text format; tests and one-shot
/// commands leave the no-op backend in place).
///
/// Every label value comes from the configuration or the code: tenants, flows and steps of the
/// hosted plugins, the methods of the method table, transports, error codes. A request naming an
/// unknown method is counted as `other`; an unknown tenant never becomes a label. `prepare` makes
/// every series a request can reach before the first request, so a scrape sees the same series
/// whatever clients send.
public enum PlatformMetrics {
    public static let requests = "platformd_requests_total"
    public static let requestDuration = "platformd_request_duration_seconds"
    public static let sessions = "platformd_sessions_total"
    public static let stepArrivals = "platformd_step_arrivals_total"
    public static let webhookDeliveries = "platformd_webhook_deliveries_total"
    public static let commitDuration = StoreMetrics.commitDuration
    public static let commitBatchSize = StoreMetrics.commitBatchSize
    public static let connections = "platformd_connections"
    public static let experimentExposures = "platformd_experiment_exposures_total"

    /// The `method` label of a request whose method is not in the table (or that had none).
    public static let otherMethod = "other"

    /// `platformd_sessions_total`'s `event` values.
    public enum SessionEvent: String, CaseIterable, Sendable {
        case started, completed, rejected, abandoned, expired, migrated
    }

    /// `platformd_webhook_deliveries_total`'s `outcome` values.
    public enum DeliveryOutcome: String, CaseIterable, Sendable {
        case delivered, retried, failed
    }

    /// The outcomes made ahead for each method: success and the refusals an unknown tenant or a
    /// bad login gives, so random input adds no series.
    static let preparedOutcomes = ["ok", "\(ErrorCode.unauthorized.rawValue)", "\(ErrorCode.notFound.rawValue)", "\(ErrorCode.invalidParams.rawValue)"]
    /// The outcomes of a line with no known method: unknown method, invalid request, parse error, too long.
    static let otherOutcomes = [ErrorCode.methodNotFound, .invalidRequest, .parseError, .payloadTooLarge].map { "\($0.rawValue)" }

    // MARK: - recording

    public static func request(transport: String, method: String, outcome: String, duration: Duration) {
        counters.get([requests, transport, method, outcome]) {
            Counter(label: requests, dimensions: [("transport", transport), ("method", method), ("outcome", outcome)])
        }.increment()
        timers.get([requestDuration, method]) {
            Metrics.Timer(label: requestDuration, dimensions: [("method", method)])
        }.record(duration: duration)
    }

    /// A request refused before it was read as one (HTTP's 401 for its bearer, before the
    /// body): counted, not timed.
    public static func refused(transport: String, method: String = otherMethod, outcome: ErrorCode) {
        let outcome = "\(outcome.rawValue)"
        counters.get([requests, transport, method, outcome]) {
            Counter(label: requests, dimensions: [("transport", transport), ("method", method), ("outcome", outcome)])
        }.increment()
    }

    public static func session(_ event: SessionEvent, tenant: String, flow: String) {
        sessionCounter(event, tenant: tenant, flow: flow).increment()
    }

    /// A person enrolled in an experiment's variant (the labels come from the tenants file).
    public static func exposure(tenant: String, experiment: String, variant: String) {
        counters.get([experimentExposures, tenant, experiment, variant]) {
            Counter(label: experimentExposures, dimensions: [("tenant", tenant), ("experiment", experiment), ("variant", variant)])
        }.increment()
    }

    public static func stepArrival(tenant: String, flow: String, step: String) {
        stepCounter(tenant: tenant, flow: flow, step: step).increment()
    }

    public static func webhookDelivery(_ outcome: DeliveryOutcome, tenant: String) {
        deliveryCounter(outcome, tenant: tenant).increment()
    }

    public static func connectionOpened(transport: String) {
        connectionGauge(transport).increment(by: 1)
    }

    public static func connectionClosed(transport: String) {
        connectionGauge(transport).decrement(by: 1)
    }

    /// What a committed session change tells the funnel's counters: its events, as the engine
    /// produced them.
    static func record(_ commit: SessionCommit) {
        let state = commit.state
        for event in commit.events {
            switch event.kind {
            case .started: session(.started, tenant: state.tenant, flow: state.flow)
            case .completed: session(.completed, tenant: state.tenant, flow: state.flow)
            case .rejected: session(.rejected, tenant: state.tenant, flow: state.flow)
            case .migrated: session(.migrated, tenant: state.tenant, flow: state.flow)
            case .arrived:
                if let step = event.step { stepArrival(tenant: state.tenant, flow: state.flow, step: step) }
            case .exposed:
                if let experiment = state.experiment {
                    exposure(tenant: state.tenant, experiment: experiment.id, variant: experiment.variant)
                }
            case .left, .branch, .deferred: break
            }
        }
    }

    // MARK: - making the series ahead

    /// A hosted flow's labels.
    public struct FlowLabels: Sendable {
        public var tenant: String
        public var flow: String
        public var steps: [String]

        public init(tenant: String, flow: String, steps: [String]) {
            self.tenant = tenant
            self.flow = flow
            self.steps = steps
        }
    }

    /// Makes every series the configuration allows at zero, so the first request of a kind does
    /// not add one: `methods` by transport (the line transports serve the platform's methods,
    /// `mcp` the MCP server's), the transports that hold connections, the hosted flows.
    public static func prepare(
        methods: [String: [String]], connections: [String], flows: [FlowLabels], exposures: [(tenant: String, experiment: String, variant: String)] = []
    ) {
        var durations = Set([otherMethod])
        for (transport, names) in methods {
            for method in names {
                durations.insert(method)
                for outcome in preparedOutcomes {
                    counters.get([requests, transport, method, outcome]) {
                        Counter(label: requests, dimensions: [("transport", transport), ("method", method), ("outcome", outcome)])
                    }
                }
            }
            for outcome in otherOutcomes {
                counters.get([requests, transport, otherMethod, outcome]) {
                    Counter(label: requests, dimensions: [("transport", transport), ("method", otherMethod), ("outcome", outcome)])
                }
            }
        }
        for transport in connections { connectionGauge(transport).increment(by: 0) }
        for method in durations.sorted() {
            timers.get([requestDuration, method]) { Metrics.Timer(label: requestDuration, dimensions: [("method", method)]) }
        }
        for labels in flows {
            for event in SessionEvent.allCases { _ = sessionCounter(event, tenant: labels.tenant, flow: labels.flow) }
            for step in labels.steps { _ = stepCounter(tenant: labels.tenant, flow: labels.flow, step: step) }
        }
        for tenant in Set(flows.map(\.tenant)) {
            for outcome in DeliveryOutcome.allCases { _ = deliveryCounter(outcome, tenant: tenant) }
        }
        for exposure in exposures {
            counters.get([experimentExposures, exposure.tenant, exposure.experiment, exposure.variant]) {
                Counter(
                    label: experimentExposures,
                    dimensions: [("tenant", exposure.tenant), ("experiment", exposure.experiment), ("variant", exposure.variant)])
            }.increment(by: 0)
        }
        StoreMetrics.prepare()
    }

    // MARK: - the series, made once each

    private static let counters = MetricHandles<Counter>()
    private static let timers = MetricHandles<Metrics.Timer>()
    private static let meters = MetricHandles<Meter>()

    private static func sessionCounter(_ event: SessionEvent, tenant: String, flow: String) -> Counter {
        counters.get([sessions, tenant, flow, event.rawValue]) {
            Counter(label: sessions, dimensions: [("tenant", tenant), ("flow", flow), ("event", event.rawValue)])
        }
    }

    private static func stepCounter(tenant: String, flow: String, step: String) -> Counter {
        counters.get([stepArrivals, tenant, flow, step]) {
            Counter(label: stepArrivals, dimensions: [("tenant", tenant), ("flow", flow), ("step", step)])
        }
    }

    private static func deliveryCounter(_ outcome: DeliveryOutcome, tenant: String) -> Counter {
        counters.get([webhookDeliveries, tenant, outcome.rawValue]) {
            Counter(label: webhookDeliveries, dimensions: [("tenant", tenant), ("outcome", outcome.rawValue)])
        }
    }

    private static func connectionGauge(_ transport: String) -> Meter {
        meters.get([connections, transport]) { Meter(label: connections, dimensions: [("transport", transport)]) }
    }
}

/// Metric handles by name and label values: the backend is asked once per series, not per event.
final class MetricHandles<Handle: Sendable>: Sendable {
    private let handles = Mutex<[[String]: Handle]>([:])

    @discardableResult
    func get(_ key: [String], make: () -> Handle) -> Handle {
        handles.withLock { handles in
            if let handle = handles[key] { return handle }
            let handle = make()
            handles[key] = handle
            return handle
        }
    }
}

extension Platform {
    /// Every tenant, flow and step the hosted plugins serve (all versions of each flow): the
    /// only label values the session and step metrics take.
    /// Every declared experiment's variants, for `platformd_experiment_exposures_total` at zero.
    public var exposureLabels: [(tenant: String, experiment: String, variant: String)] {
        hosted.flatMap { entry in
            entry.experiments.flatMap { experiment in experiment.variants.map { (entry.id, experiment.id, $0.id) } }
        }
    }

    public var metricLabels: [PlatformMetrics.FlowLabels] {
        hosted.flatMap { entry -> [PlatformMetrics.FlowLabels] in
            guard let tenant = tenants[entry.id] else { return [] }
            return tenant.flowIDs.map { flow in
                let engines = (tenant.engines[flow].map { [$0] } ?? []) + (tenant.olderEngines[flow] ?? [])
                var steps: [String] = []
                for step in engines.flatMap(\.flow.steps) where !steps.contains(step.id) { steps.append(step.id) }
                return PlatformMetrics.FlowLabels(tenant: entry.id, flow: flow, steps: steps)
            }
        }
    }
}
