import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// `platformd funnel`: the same figures as analytics.funnel, read from a database file.
@Suite("platformd funnel")
struct FunnelCommandTests {
    /// Tenants whose flow branches (an edge with a `when`) first, so the table's branch lines are
    /// checked wherever the registry has a branching flow.
    static func tenantsBranchingFirst(_ server: PlatformdProcess) async throws -> (all: [String], branching: Set<String>) {
        var branching: [String] = []
        var straight: [String] = []
        for tenant in Hosted.tenants {
            let description = try await server.call("flow.describe", ["tenant": .string(tenant)])
            let edges = description["result"]?["edges"]?.arrayValue ?? []
            if edges.contains(where: { $0["when"].nonNull != nil }) { branching.append(tenant) } else { straight.append(tenant) }
        }
        return (branching + straight, Set(branching))
    }

    @Test func printsTheFunnelOfADatabaseAsATableAndAsJSON() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("funnel.sqlite").path
            let (tenant, live, dropped, branches): (String, JSONValue, String, Bool) = try await PlatformdProcess.with(["serve", "--db", db]) { server in
                // One session completes (generic answers), another stops after its first step.
                let tenants = try await Self.tenantsBranchingFirst(server)
                let (tenant, done) = try await Hosted.complete(on: server, userId: "fan-1", among: tenants.all)
                #expect(done["status"] == "completed")
                let dropper = try await server.walk(tenant: tenant, userId: "fan-2") { $0["revision"] == 1 }
                let dropped = try #require(dropper["step"]?["id"]?.stringValue)
                let funnel = try await server.call("analytics.funnel", ["tenant": .string(tenant)])
                try server.closeStdin()
                #expect(try await server.waitForExit().status == 0)
                return (tenant, try #require(funnel["result"]), dropped, tenants.branching.contains(tenant))
            }
            #expect(live["started"] == 2)
            #expect(live["completed"] == 1)

            let json = try await PlatformdProcess.with(["funnel", tenant, "--db", db, "--json"]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status == 0)
                return try JSONValue.parse(String(decoding: process.stdoutBytes, as: UTF8.self).trimmingCharacters(in: .newlines))
            }
            #expect(json == live)

            let table = try await PlatformdProcess.with(["funnel", tenant, "--db", db]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status == 0)
                return String(decoding: process.stdoutBytes, as: UTF8.self)
            }
            #expect(table.contains("started 2  completed 1  deferred 0  rejected 0  completion 50.0%"))
            // The step the second session stopped on: reached by both, left by one, dropped by one.
            let row = table.split(separator: "\n").first { $0.hasPrefix(dropped + " ") }
            // step, reached, left, dropped (the median is real elapsed time, so only its presence is checked).
            let cells = row?.split(separator: " ").map(String.init) ?? []
            #expect(cells.prefix(4) == [dropped, "2", "1", "1"], "\(table)")
            #expect(cells.count == 5 && Double(cells[4]) != nil)
            // Each branch taken has its line (a branching flow's walk takes one).
            if branches { #expect(live["branches"]?.arrayValue?.isEmpty == false, "\(live.serialized())") }
            for branch in live["branches"]?.arrayValue ?? [] {
                let line = "\(branch["from"]?.stringValue ?? "?") -> \(branch["to"]?.stringValue ?? "?")"
                #expect(table.contains(line), "\(line) in \(table)")
            }

            let empty = try await PlatformdProcess.with(["funnel", tenant, "--db", db, "--since", "2999-01-01T00:00:00Z", "--json"]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status == 0)
                return try JSONValue.parse(String(decoding: process.stdoutBytes, as: UTF8.self).trimmingCharacters(in: .newlines))
            }
            #expect(empty["started"] == 0)
        }
    }

    @Test func badArgumentsAreRefused() async throws {
        for arguments in [["funnel", Hosted.tenant, "--db", ":memory:", "--since", "last week"], ["funnel", "nope", "--db", ":memory:"]] {
            try await PlatformdProcess.with(arguments) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status != 0, "\(arguments)")
                #expect(!process.stderrText.isEmpty)
            }
        }
    }
}
