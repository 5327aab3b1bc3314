import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore

struct Funnel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a flow's funnel from the events in the database as a table.",
        discussion: "The funnel covers the sessions started in [--since, --until), with everything that happened to them.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var tenantOptions: TenantOptions
    @Argument(help: "The tenant, e.g. aflfantasy.") var tenant: String
    @Option(help: "The flow id.") var flow = "onboarding"
    @Option(help: "Only sessions started at or after this ISO 8601 time (2026-11-01T00:00:00Z).") var since: String?
    @Option(help: "Only sessions started before this ISO 8601 time.") var until: String?
    @Option(help: "Only sessions started on this version of the flow.") var flowVersion: String?
    @Flag(help: "Print the analytics.funnel JSON instead of a table.") var json = false

    func validate() throws {
        let from = try since.map { try Self.parse($0, "--since") }
        let to = try until.map { try Self.parse($0, "--until") }
        // An empty window is a mistyped one: zeros would pass for a funnel no one entered.
        if let from, let to, from >= to { throw ValidationError("--since must be before --until") }
    }

    func run() async throws {
        let sinceDate = try since.map { try Self.parse($0, "--since") }
        let untilDate = try until.map { try Self.parse($0, "--until") }
        let funnel = try await store.withPlatform(tenantOptions) { platform in
            try await platform.funnel(tenant: tenant, flow: flow, since: sinceDate, until: untilDate, version: flowVersion)
        }
        StandardOutput.writeLine(json ? try JSONValue(encoding: funnel).serialized() : FunnelTable(funnel).text)
    }

    static func parse(_ text: String, _ option: String) throws -> Date {
        guard let date = Timestamp.date(text) else {
            throw ValidationError("\(option) must be an ISO 8601 time such as 2026-11-01T00:00:00Z")
        }
        return date
    }
}

/// The funnel as aligned text columns.
struct FunnelTable {
    let funnel: FunnelFigures.Result

    init(_ funnel: FunnelFigures.Result) {
        self.funnel = funnel
    }

    var text: String {
        let rate = funnel.completionRate * 100
        var lines = [
            "started \(funnel.started)  completed \(funnel.completed)  deferred \(funnel.deferred)  rejected \(funnel.rejected)  completion \(String(format: "%.1f", rate))%",
            "",
        ]
        lines += Self.table(
            ["step", "reached", "left", "dropped", "median s"],
            funnel.steps.map { step in
                [
                    step.id, String(step.reached), String(step.left), String(step.dropped),
                    step.medianSeconds.map { String(format: "%.1f", $0) } ?? "-",
                ]
            })
        if !funnel.branches.isEmpty {
            lines.append("")
            lines += Self.table(
                ["branch", "sessions", "completed"],
                funnel.branches.map { branch in
                    ["\(branch.from) -> \(branch.to)", String(branch.count), String(branch.completed)]
                })
        }
        if !funnel.skips.isEmpty {
            lines.append("")
            lines += Self.table(["skipped step", "sessions"], funnel.skips.map { [$0.step, String($0.count)] })
        }
        if let versions = funnel.versions, !versions.isEmpty {
            lines.append("")
            lines += Self.table(
                ["started on version", "started", "completed"],
                versions.map { version in
                    [version.version.isEmpty ? "(none)" : version.version, String(version.started), String(version.completed)]
                })
        }
        return lines.joined(separator: "\n")
    }

    /// The first column names, the others are figures.
    static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        TextTable.lines(header, rows, rightAlignedFrom: 1)
    }
}
