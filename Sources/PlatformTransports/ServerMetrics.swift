import Logging
import Metrics
import PlatformCore
import PlatformServer
import PlatformStorage
import Prometheus

/// The process's metrics backend for `serve --http`: swift-metrics bootstrapped with a
/// Prometheus registry, which `/metrics` writes out in the text format.
package enum ServerMetrics {
    /// Request and commit latencies: from a cached read (well under a millisecond) to a slow
    /// disk or a remote database's commit.
    static let durationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2.5), .seconds(5),
    ]
    /// Writes per group commit: one on a quiet server, hundreds under load.
    static let batchBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]

    package static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        factory.valueHistogramBuckets[PlatformMetrics.commitBatchSize] = batchBuckets
        MetricsSystem.bootstrap(factory)
        return registry
    }

    /// What each family counts, for its `# HELP` line (swift-metrics' factory creates the
    /// families without one).
    static let help: [String: String] = [
        PlatformMetrics.requests:
            "JSON-RPC requests answered (and HTTP requests refused at the door), by transport, method and outcome (ok or the error code).",
        PlatformMetrics.requestDuration: "Time to answer a request, by method.",
        PlatformMetrics.sessions: "Sessions started, completed, rejected, abandoned, expired and migrated, by tenant and flow.",
        PlatformMetrics.stepArrivals: "Arrivals on each step of each flow.",
        PlatformMetrics.webhookDeliveries: "Webhook delivery attempts by outcome, by tenant.",
        PlatformMetrics.commitDuration: "Time of one store commit (a group commit on SQLite).",
        PlatformMetrics.commitBatchSize: "Writes carried by one store commit.",
        PlatformMetrics.connections: "Connections open now, by transport.",
    ]

    /// The exposition with a `# HELP` line before each family's `# TYPE` line.
    static func withHelp(_ exposition: [UInt8]) -> [UInt8] {
        var lines: [String] = []
        for line in String(decoding: exposition, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.split(separator: " ").dropFirst(2).first, let text = help[String(name)] {
                lines.append("# HELP \(name) \(text)")
            }
            lines.append(String(line))
        }
        return Array(lines.joined(separator: "\n").utf8)
    }

    /// Every series the configuration allows, at zero, before the first request.
    package static func prepare(platform: Platform, server: RPCServer, lineTransports: [String], logger: Logger) {
        // The MCP server's method table is the same for every user: one made here names it.
        let mcpMethods = MCPServer(platform: platform, tenant: "", userId: "", logger: logger).methods.keys.sorted()
        var methods = Dictionary(uniqueKeysWithValues: lineTransports.map { ($0, server.methodNames) })
        methods["mcp"] = mcpMethods
        PlatformMetrics.prepare(methods: methods, connections: lineTransports, flows: platform.metricLabels, exposures: platform.exposureLabels)
    }
}
