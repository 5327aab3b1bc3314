import PlatformCore

extension Experiment {
    static let keys = [
        "id", "flow", "variants", "control", "coverage", "namespace", "seed", "status", "winner", "completedWithinHours", "sequential", "autoStop",
    ]

    /// A tenant's `experiments`, checked against its plugin's flows and the versions it keeps:
    /// anything that cannot be served stops the start with the key at fault, here rather than on
    /// the first person who starts the flow.
    static func parse(
        _ value: JSONValue?, plugin: any OnboardingPlugin, tenant: String, fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> [Experiment] {
        guard let value, !value.isNull else { return [] }
        guard let entries = value.arrayValue else { throw fail(tenant, "experiments", "must be an array of experiments") }
        var experiments: [Experiment] = []
        for (index, entry) in entries.enumerated() {
            let experiment = try parseOne(entry, position: index + 1, plugin: plugin, tenant: tenant, fail: fail)
            if experiments.contains(where: { $0.id == experiment.id }) {
                throw fail(tenant, "experiments.\(experiment.id).id", "is used by another experiment of the tenant")
            }
            if experiment.status == .running,
                let other = experiments.first(where: { $0.status == .running && $0.flow == experiment.flow && $0.overlaps(experiment) })
            {
                throw fail(
                    tenant, "experiments.\(experiment.id).namespace",
                    "overlaps running experiment \(other.id) on flow \(experiment.flow) (give both one namespace with ranges that do not overlap)")
            }
            experiments.append(experiment)
        }
        return experiments
    }

    static func parseOne(
        _ entry: JSONValue, position: Int, plugin: any OnboardingPlugin, tenant: String, fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> Experiment {
        guard let fields = entry.objectValue else { throw fail(tenant, "experiments.#\(position)", "must be an object") }
        guard let id = fields["id"]?.stringValue, TenantsConfiguration.isValidID(id) else {
            throw fail(tenant, "experiments.#\(position).id", "is required: 1-63 characters of a-z, 0-9 and -")
        }
        func key(_ name: String) -> String { "experiments.\(id).\(name)" }
        if let unknown = fields.keys.sorted().first(where: { !keys.contains($0) }) {
            throw fail(tenant, key(unknown), "unknown key (an experiment has \(keys.joined(separator: ", ")))")
        }
        func number(_ name: String, in range: ClosedRange<Double>, default fallback: Double, _ fields: [String: JSONValue], at path: String)
            throws(ConfigurationError) -> Double
        {
            guard let value = fields[name], !value.isNull else { return fallback }
            guard value.boolValue == nil, let number = value.doubleValue, range.contains(number) else {
                throw fail(tenant, key(path), "must be a number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        let served = Dictionary(plugin.flows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        guard let flow = fields["flow"]?.stringValue else { throw fail(tenant, key("flow"), "is required and must be a flow id") }
        guard served[flow] != nil else {
            throw fail(tenant, key("flow"), "unknown flow \(flow) (the plugin serves \(plugin.flows.map(\.id).joined(separator: ", ")))")
        }
        let variants = try parseVariants(fields["variants"], plugin: plugin, key: key, tenant: tenant, fail: fail)
        let control = fields["control"]?.stringValue ?? variants[0].id
        guard variants.contains(where: { $0.id == control }) else {
            throw fail(tenant, key("control"), "unknown control \(control) (variants: \(variants.map(\.id).joined(separator: ", ")))")
        }
        let coverage = try number("coverage", in: 0...1, default: 1, fields, at: "coverage")
        let namespace = try parseNamespace(fields["namespace"], key: key, tenant: tenant, fail: fail)
        let seed: String
        switch fields["seed"] {
        case nil, .null?: seed = id
        case .string(let given)? where !given.isEmpty: seed = given
        default: throw fail(tenant, key("seed"), "must be a non-empty string")
        }
        let statusName = fields["status"]?.stringValue ?? Status.running.rawValue
        guard let status = Status(rawValue: statusName), fields["status"].map({ $0.isNull || $0.stringValue != nil }) ?? true else {
            throw fail(tenant, key("status"), "must be running, stopped or shipped")
        }
        let winner = fields["winner"]?.stringValue
        if let winner, !variants.contains(where: { $0.id == winner }) {
            throw fail(tenant, key("winner"), "unknown winner \(winner) (variants: \(variants.map(\.id).joined(separator: ", ")))")
        }
        if status == .shipped, winner == nil {
            throw fail(tenant, key("winner"), "is required when the status is shipped")
        }
        let hours = try number("completedWithinHours", in: 0.001...87_600, default: 72, fields, at: "completedWithinHours")
        var alpha = 0.05
        var tuning = 5000.0
        switch fields["sequential"] {
        case nil, .null?: break
        case .object(let sequential)?:
            if let unknown = sequential.keys.sorted().first(where: { !["alpha", "tuning"].contains($0) }) {
                throw fail(tenant, key("sequential.\(unknown)"), "unknown key (sequential has alpha and tuning)")
            }
            alpha = try number("alpha", in: 0.000_001...0.5, default: 0.05, sequential, at: "sequential.alpha")
            tuning = try number("tuning", in: 1...1_000_000_000, default: 5000, sequential, at: "sequential.tuning")
        default: throw fail(tenant, key("sequential"), "must be an object: { \"alpha\": 0.05, \"tuning\": 5000 }")
        }
        let autoStop: Bool
        switch fields["autoStop"] {
        case nil, .null?: autoStop = false
        case .bool(let given)?: autoStop = given
        default: throw fail(tenant, key("autoStop"), "must be true or false")
        }
        return Experiment(
            id: id, flow: flow, variants: variants, control: control, coverage: coverage, namespace: namespace, seed: seed, status: status,
            winner: winner, completedWithinHours: hours, alpha: alpha, tuning: tuning, autoStop: autoStop)
    }

    static func parseVariants(
        _ value: JSONValue?, plugin: any OnboardingPlugin, key: (String) -> String, tenant: String,
        fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> [Variant] {
        guard let entries = value?.arrayValue, entries.count >= 2 else {
            throw fail(tenant, key("variants"), "must be an array of at least two variants")
        }
        let flows = plugin.flows
        var variants: [Variant] = []
        for (index, entry) in entries.enumerated() {
            let at = key("variants.#\(index + 1)")
            guard let fields = entry.objectValue else { throw fail(tenant, at, "must be an object") }
            if let unknown = fields.keys.sorted().first(where: { !["id", "flow", "version", "weight"].contains($0) }) {
                throw fail(tenant, "\(at).\(unknown)", "unknown key (a variant has id, flow, version, weight)")
            }
            guard let id = fields["id"]?.stringValue, !id.isEmpty, id.utf8.count <= 63 else {
                throw fail(tenant, "\(at).id", "is required: a name of 1-63 characters")
            }
            guard !variants.contains(where: { $0.id == id }) else { throw fail(tenant, "\(at).id", "variant \(id) is listed twice") }
            guard let flow = fields["flow"]?.stringValue, let served = flows.first(where: { $0.id == flow }) else {
                throw fail(
                    tenant, "\(at).flow",
                    "unknown flow \(fields["flow"]?.stringValue ?? "(none)") (the plugin serves \(flows.map(\.id).joined(separator: ", ")))")
            }
            var version: String?
            if let given = fields["version"], !given.isNull {
                let kept = [served.version] + plugin.olderFlows.filter { $0.id == flow }.map(\.version)
                guard let name = given.stringValue, kept.contains(name) else {
                    throw fail(
                        tenant, "\(at).version", "unknown version \(given.stringValue ?? "\(given)") of flow \(flow) (kept: \(kept.joined(separator: ", ")))")
                }
                version = name
            }
            guard let weightValue = fields["weight"], weightValue.boolValue == nil, let weight = weightValue.doubleValue, weight > 0, weight.isFinite
            else {
                throw fail(tenant, "\(at).weight", "must be a positive number")
            }
            variants.append(Variant(id: id, flow: flow, version: version, weight: weight))
        }
        return variants
    }

    static func parseNamespace(
        _ value: JSONValue?, key: (String) -> String, tenant: String, fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> ExperimentNamespace? {
        guard let value, !value.isNull else { return nil }
        let shape = "must be { \"id\": NAME, \"range\": [FROM, TO] } with 0 <= FROM <= TO <= 1"
        guard let fields = value.objectValue, let id = fields["id"]?.stringValue, !id.isEmpty,
            let range = fields["range"]?.arrayValue, range.count == 2,
            range.allSatisfy({ $0.boolValue == nil }),
            let lower = range[0].doubleValue, let upper = range[1].doubleValue,
            Set(fields.keys).isSubset(of: ["id", "range"])
        else { throw fail(tenant, key("namespace"), shape) }
        guard 0 <= lower, lower <= upper, upper <= 1 else { throw fail(tenant, key("namespace.range"), shape) }
        return ExperimentNamespace(id: id, range: BucketRange(lower: lower, upper: upper))
    }
}
