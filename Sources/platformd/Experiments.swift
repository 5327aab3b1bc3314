import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports

struct Experiments: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a tenant's experiments' results from the database, one table per experiment.",
        discussion: """
            The same figures as analytics.experiment: each variant's exposed, completed within the window, completion rate, \
            interval against the control and decision, and the sample ratio check. Experiments are declared in the tenants file \
            (--tenants). Reading results may stop an autoStop experiment whose variant is worse, as on a server.
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var tenantOptions: TenantOptions
    @Argument(help: "The tenant, e.g. statlocker.") var tenant: String
    @Flag(help: "Print the analytics.experiment JSON of each experiment, one per line, instead of tables.") var json = false

    func run() async throws {
        let hosted = tenantOptions.load()
        guard let entry = hosted.first(where: { $0.id == tenant }) else {
            throw CommandRefusal.exit("no tenant \(tenant) (hosted: \(hosted.map(\.id).joined(separator: ", ")))")
        }
        guard !entry.experiments.isEmpty else {
            StandardOutput.writeLine("tenant \(tenant) declares no experiments (add \"experiments\" to its entry in the tenants file)")
            return
        }
        let results = try await store.withPlatform(tenantOptions) { platform in
            var all: [ExperimentResults] = []
            for experiment in entry.experiments {
                all.append(try await platform.experimentResults(tenant: tenant, experiment: experiment.id))
            }
            return all
        }
        if json {
            for result in results { StandardOutput.writeLine(try JSONValue(encoding: result).serialized()) }
        } else {
            StandardOutput.writeLine(results.map(ExperimentTable.text).joined(separator: "\n\n"))
        }
    }
}

/// One experiment's results as aligned text.
enum ExperimentTable {
    static func text(_ results: ExperimentResults) -> String {
        func percent(_ value: Double?) -> String { value.map { String(format: "%.1f%%", $0 * 100) } ?? "-" }
        func points(_ value: Double) -> String { String(format: "%+.1f", value * 100) }
        var lines = ["experiment \(results.experiment)  seed \(results.seed)  \(results.status)  control \(results.control)"]
        if let stopped = results.stopped {
            lines.append("stopped \(stopped.at): \(stopped.reason)")
        }
        lines.append(
            results.srm.map { srm in
                "SRM: chi-square \(String(format: "%.2f", srm.chiSquare)), p \(String(format: "%.4g", srm.pValue))"
                    + (srm.mismatch ? "  MISMATCH: the split is broken; do not trust the comparison (see Docs/experiments.md)" : "  ok")
            } ?? "SRM: not yet (every variant needs 8 exposed)")
        lines.append("")
        lines += TextTable.lines(
            ["variant", "flow", "share", "exposed", "completed", "rate", "vs control (points)", "decision"],
            results.variants.map { variant in
                let interval = variant.vsControl?.interval.map { "[\(points($0[0])), \(points($0[1]))]" } ?? (variant.vsControl == nil ? "control" : "-")
                return [
                    variant.id, "\(variant.flow) v\(variant.version)", percent(variant.share), String(variant.exposed), String(variant.completed),
                    percent(variant.completionRate), interval, variant.vsControl?.decision ?? "-",
                ]
            }, rightAlignedFrom: 2)
        return lines.joined(separator: "\n")
    }
}
