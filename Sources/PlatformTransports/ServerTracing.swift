import Foundation
import Logging
import OTel
import PlatformCore
import PlatformServer
import PlatformStorage
import ServiceLifecycle

/// Exporting the request spans: when the environment names an OTLP endpoint
/// (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` for traces alone),
/// swift-otel is bootstrapped as the tracer, exporting over OTLP/HTTP; the other `OTEL_*`
/// variables (sampler, batch delay, headers, protocol) apply as OpenTelemetry defines them. Logs
/// and metrics stay where they are (stderr, `/metrics`). Without an endpoint there is no tracer
/// and a span costs next to nothing.
package enum ServerTracing {
    static let endpointVariables = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]

    /// The exporter's service (to run beside the transports, so its last spans are flushed at a
    /// stop), or nil when tracing is off.
    package static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) -> (any Service)? {
        guard let endpoint = endpointVariables.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "platformd"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.enabled = true
        // Its own lines go through the server's logger (stderr), never to stdout.
        configuration.diagnosticLogger = .custom(logger)
        do {
            let service = try OTel.bootstrap(configuration: configuration, environment: environment)
            RequestTracing.enable()
            logger.notice("exporting traces over OTLP/HTTP to \(endpoint)")
            return service
        } catch {
            logger.error("traces are not exported: the OTLP exporter could not be set up: \(error)")
            return nil
        }
    }
}
