import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import PlatformTransports
@testable import platformd

/// `platformd info`, `platformd describe` and `flow.describe` for every registered flow.
@Suite("platformd describe")
struct DescribeTests {
    static func output(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await PlatformdProcess.with(arguments) { process in
            let exit = try await process.waitForExit()
            return (exit.status, String(decoding: process.stdoutBytes, as: UTF8.self), process.stderrText)
        }
    }

    /// Every (tenant, flow) the server registers, from platform.info.
    static func registeredFlows() async throws -> [(tenant: String, flow: String)] {
        try await PlatformdProcess.withServer { server in
            let tenants = try await server.call("platform.info")["result"]?["tenants"]?.arrayValue ?? []
            return tenants.flatMap { tenant in
                (tenant["flows"]?.arrayValue ?? []).compactMap { flow in
                    tenant["tenant"]?.stringValue.flatMap { name in flow.stringValue.map { (name, $0) } }
                }
            }
        }
    }

    @Test func everyRegisteredFlowPrintsAValidMermaidFlowchart() async throws {
        let flows = try await Self.registeredFlows()
        #expect(Set(flows.map(\.tenant)) == Set(RegisteredPlugins.registrations.map(\.defaultTenant)))
        for (tenant, flow) in flows {
            let result = try await Self.output(["describe", tenant, "--flow", flow, "--format", "mermaid"])
            #expect(result.status == 0, "\(tenant)/\(flow): \(result.stderr)")
            switch MermaidChecker.check(result.stdout.trimmingCharacters(in: .newlines)) {
            case .success(let chart):
                #expect(chart.nodes.count >= 2, "\(tenant)/\(flow)")
            case .failure(let problems):
                Issue.record("\(tenant)/\(flow) prints an invalid chart: \(problems)\n\(result.stdout)")
            }
            let json = try await Self.output(["describe", tenant, "--flow", flow])
            let description = try JSONValue.parse(json.stdout.trimmingCharacters(in: .newlines))
            #expect(description["steps"]?.arrayValue?.isEmpty == false)
            #expect(description["mermaid"]?.stringValue == result.stdout.trimmingCharacters(in: .newlines))
        }
    }

    /// Each registered plugin's page (`Docs/plugins/<default tenant>.md`) shows its flow's
    /// diagram; it must be the one the server prints. A new plugin is checked as soon as it is
    /// registered.
    @Test(arguments: RegisteredPlugins.registrations.map(\.defaultTenant))
    func pluginDocsShowTheCurrentDiagram(tenant: String) async throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Docs/plugins/\(tenant).md").standardizedFileURL
        let page = try String(contentsOf: docs, encoding: .utf8)
        let block = try #require(
            page.range(of: "```mermaid\n").map { start in
                page[start.upperBound...].prefix { _ in true }
            })
        let diagram = try #require(block.range(of: "```").map { block[..<$0.lowerBound] })
        let live = try await Self.output(["describe", tenant, "--format", "mermaid"])
        #expect(
            diagram.trimmingCharacters(in: .whitespacesAndNewlines) == live.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            "Docs/plugins/\(tenant).md: paste `platformd describe \(tenant) --format mermaid`")
    }

    @Test func infoListsEveryTenant() async throws {
        let result = try await Self.output(["info"])
        #expect(result.status == 0)
        for tenant in RegisteredPlugins.registrations.map(\.defaultTenant) {
            #expect(result.stdout.contains(tenant))
        }
    }

    @Test func unknownTenantOrFlowIsAClearError() async throws {
        let unknown = try await Self.output(["describe", "nope"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("tenant nope"))
        let format = try await Self.output(["describe", RegisteredPlugins.registrations[0].defaultTenant, "--format", "png"])
        #expect(format.status != 0)
    }
}
