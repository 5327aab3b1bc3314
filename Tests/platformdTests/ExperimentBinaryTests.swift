import Foundation
import PlatformCore
import PlatformProtocol
import PlatformTesting
import Testing

/// An experiment declared in a tenants file, served by the real binary: `flow.start` enrols by
/// the contract's hash and `analytics.experiment` counts what happened.
@Suite("platformd serve: experiments")
struct ExperimentBinaryTests {
    @Test func aDeclaredExperimentEnrolsAndReports() async throws {
        let file = #"""
            { "tenants": [ { "id": "lab", "plugin": "\#(Hosted.plugin)", "experiments": [ {
                "id": "copy-test", "flow": "onboarding", "seed": "phase-a", "control": "a",
                "variants": [ { "id": "a", "flow": "onboarding", "weight": 1 }, { "id": "b", "flow": "onboarding", "weight": 3 } ] } ] } ] }
            """#
        try await withTemporaryDirectory { directory in
            let path = try TenancyTests.write(file, in: directory)
            let db = directory.appendingPathComponent("lab.sqlite").path
            try await PlatformdProcess.with(["serve", "--db", db, "--tenants", path]) { server in
                var expected: [String: Int] = [:]
                for index in 0..<24 {
                    let user = "person-\(index)"
                    let reply = try await server.call("flow.start", ["tenant": "lab", "userId": .string(user)])
                    let variant = ExperimentHash.variantIndex(seed: "phase-a", userId: user, weights: [1, 3], coverage: 1).map { ["a", "b"][$0] }
                    #expect(reply["result"]?["experiment"] == ["id": "copy-test", "variant": .string(variant ?? "")], "\(user)")
                    expected[variant ?? "", default: 0] += 1
                }
                let results = try await server.call("analytics.experiment", ["tenant": "lab", "experiment": "copy-test"])
                let variants = try #require(results["result"]?["variants"]?.arrayValue, "\(results)")
                #expect(variants.map { $0["exposed"]?.intValue ?? -1 } == [expected["a"] ?? 0, expected["b"] ?? 0])
                #expect(variants.map { $0["share"]?.doubleValue ?? -1 } == [0.25, 0.75])
                #expect(variants[1]["vsControl"]?["decision"] == "inconclusive")
                // What the Swift client decodes it as.
                let typed = try #require(results["result"]).decode(ExperimentResults.self)
                #expect(typed.variants.map(\.exposed) == [expected["a"] ?? 0, expected["b"] ?? 0])
                let unknown = try await server.call("analytics.experiment", ["tenant": "lab", "experiment": "nope"])
                #expect(unknown["error"]?["code"] == -32002, "not found")

                // The operator's table, from the same database.
                let table = try await AuthTests.command(["experiments", "lab", "--db", db, "--tenants", path])
                #expect(table.status == 0, "\(table.stderr)")
                #expect(table.stdout.contains("experiment copy-test  seed phase-a  running  control a"), "\(table.stdout)")
                #expect(table.stdout.contains("SRM:"))
                let json = try await AuthTests.command(["experiments", "lab", "--db", db, "--tenants", path, "--json"])
                let parsed = try JSONValue.parse(json.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(parsed["variants"]?.arrayValue?.map { $0["exposed"]?.intValue ?? -1 } == [expected["a"] ?? 0, expected["b"] ?? 0])
            }
        }
    }
}
