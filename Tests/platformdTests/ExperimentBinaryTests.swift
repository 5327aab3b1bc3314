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
                let unknownTenant = try await AuthTests.command(["experiments", "nope", "--db", db, "--tenants", path])
                #expect(unknownTenant.status == 64)
                #expect(unknownTenant.stderr.split(separator: "\n") == ["Error: no tenant nope (hosted: lab)"], "one line, no usage")
                let json = try await AuthTests.command(["experiments", "lab", "--db", db, "--tenants", path, "--json"])
                let parsed = try JSONValue.parse(json.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
                #expect(parsed["variants"]?.arrayValue?.map { $0["exposed"]?.intValue ?? -1 } == [expected["a"] ?? 0, expected["b"] ?? 0])
            }
        }
    }

    /// Over HTTP: the exposure counter per variant, and the dashboard's page of the experiment.
    @Test func theDashboardAndMetricsShowTheExperiment() async throws {
        let file = #"""
            { "tenants": [ { "id": "lab", "plugin": "\#(Hosted.plugin)", "experiments": [ {
                "id": "copy-test", "flow": "onboarding", "control": "a",
                "variants": [ { "id": "a", "flow": "onboarding", "weight": 1 }, { "id": "b", "flow": "onboarding", "weight": 1 } ] } ] } ] }
            """#
        try await withTemporaryDirectory { directory in
            let path = try TenancyTests.write(file, in: directory)
            let db = directory.appendingPathComponent("web.sqlite").path
            let admin = try await AuthTests.createKey(db, ["--admin"])
            try await HTTPServing.with(["--db", db, "--http", "127.0.0.1:0", "--tenants", path]) { http in
                let before = try await http.metrics()
                let series = { (variant: String) in #"platformd_experiment_exposures_total{tenant="lab",experiment="copy-test",variant="\#(variant)"}"# }
                #expect(before[series("a")] == 0 && before[series("b")] == 0, "made at zero")
                var exposed: [String: Double] = [:]
                for index in 0..<12 {
                    let started = try await http.call("flow.start", ["tenant": "lab", "userId": .string("m-\(index)")], bearer: admin)
                    exposed[started["result"]?["experiment"]?["variant"]?.stringValue ?? "", default: 0] += 1
                }
                let after = try await http.metrics()
                #expect(after[series("a")] == exposed["a"] ?? 0)
                #expect(after[series("b")] == exposed["b"] ?? 0)

                let browser = HostedFlowTests.Browser(base: http.base)
                defer { Task { try? await browser.shutdown() } }
                let login = try await browser.request(.GET, "/admin")
                let csrf = try #require(HostedFlowTests.Browser.csrf(login.text))
                #expect(try await browser.request(.POST, "/admin/login", form: [("_csrf", csrf), ("secret", admin)]).status == 303)
                let home = try await browser.request(.GET, "/admin")
                #expect(home.text.contains("/admin/lab/experiments/copy-test"))
                let page = try await browser.request(.GET, "/admin/lab/experiments/copy-test")
                #expect(page.status == 200)
                #expect(page.text.contains("class=\"rates\"") && page.text.contains("class=\"funnel\""))
                #expect(page.text.contains("data-variant=\"a\"") && page.text.contains("data-variant=\"b\""))
                #expect(page.text.contains("The exposed counts match the shares") || page.text.contains("checked once every variant has 8"))
                #expect(try await browser.request(.GET, "/admin/lab/experiments/nope").status == 404)
                #expect(!page.text.contains(admin))
            }
        }
    }
}
