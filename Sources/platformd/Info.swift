import ArgumentParser
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore

struct Info: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the tenants and their flows.")

    @OptionGroup var tenantOptions: TenantOptions

    func run() async throws {
        for tenant in tenantOptions.load() {
            let flows = tenant.plugin.flows.map(\.id).joined(separator: ", ")
            StandardOutput.writeLine("\(tenant.id)\t\(tenant.pluginName) \(tenant.plugin.version)\tflows: \(flows)")
        }
    }
}

struct Describe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a tenant's flow as JSON or as a Mermaid flowchart.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case json, mermaid }

    @OptionGroup var tenantOptions: TenantOptions
    @Argument(help: "The tenant, e.g. statlocker.") var tenant: String
    @Option(help: "The flow id.") var flow = "onboarding"
    @Option(help: "json or mermaid.") var format: Format = .json

    func run() async throws {
        let platform = Platform(tenants: tenantOptions.load(), store: try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath))
        let description: FlowDescription
        switch Result(catching: { () throws(FlowError) in try platform.describe(tenant: tenant, flow: flow) }) {
        case .success(let value): description = value
        case .failure(let error): throw CommandRefusal.exit(RPCError(error).message)
        }
        switch format {
        case .json: StandardOutput.writeLine(try JSONValue(encoding: description).serialized())
        case .mermaid: StandardOutput.writeLine(description.mermaid)
        }
    }
}
