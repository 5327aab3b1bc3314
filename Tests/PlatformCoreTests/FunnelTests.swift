import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Seven users walk the fixture flow; the funnel is checked figure by figure.
@Suite struct FunnelTests {
    let clock = TestClock()

    /// Submits after `seconds` on the step.
    func after(_ seconds: Double, _ d: FlowDriver, _ view: SessionView, _ values: [String: JSONValue] = [:], action: String = "continue") async throws
        -> SessionView
    {
        clock.advance(seconds: seconds)
        return try await d.submit(view, values, action: action)
    }

    func populate(_ d: FlowDriver) async throws {
        // u1: scenic route, completes.
        var v = try await d.start("u1")
        v = try await after(5, d, v)
        v = try await after(10, d, v, basics)
        v = try await after(3, d, v, ["route": "slow"])
        v = try await after(20, d, v, ["tags": ["a1", "a2"]])
        v = try await after(2, d, v, adultBirthdate)
        v = try await after(1, d, v)
        #expect(v.status == .completed)
        // u2: direct route, completes.
        v = try await d.start("u2")
        v = try await after(1, d, v)
        v = try await after(4, d, v, basics)
        v = try await after(1, d, v, ["route": "fast"])
        v = try await after(2, d, v, adultBirthdate)
        v = try await after(1, d, v)
        #expect(v.status == .completed)
        // u3: goes back from route to basics, comes back and drops at route.
        v = try await d.start("u3")
        v = try await after(1, d, v)
        v = try await after(6, d, v, basics)
        clock.advance(seconds: 2)
        v = try await d.back(v)
        v = try await after(4, d, v, basics)
        #expect(v.stepId == "route")
        // u4: scenic route, skips the extras, completes.
        v = try await d.start("u4")
        v = try await after(1, d, v)
        v = try await after(2, d, v, basics)
        v = try await after(1, d, v, ["route": "slow"])
        v = try await after(3, d, v, action: "skip")
        v = try await after(2, d, v, adultBirthdate)
        v = try await after(1, d, v)
        #expect(v.status == .completed)
        // u5: drops at basics.
        v = try await d.start("u5")
        v = try await after(2, d, v)
        // u6: defers on the welcome screen.
        v = try await d.start("u6")
        v = try await after(7, d, v, action: "later")
        #expect(v.status == .deferred)
        // u7: rejected at the age check.
        v = try await d.start("u7")
        v = try await after(1, d, v)
        v = try await after(1, d, v, basics)
        v = try await after(1, d, v, ["route": "fast"])
        v = try await after(1, d, v, ["birthdate": "2020-02-02"])
        #expect(v.status == .rejected)
    }

    func step(_ funnel: JSONValue, _ id: String) -> JSONValue? {
        funnel["steps"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    @Test(.postgres) func everyFigureOnPostgres() async throws { try await everyFigure(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func everyFigure(kind: StoreKind) async throws {
        let store = try await kind.open()
        let d = try await FlowDriver(plugin: FixturePlugin(), store: store, clock: clock)
        let start = clock.now
        try await populate(d)
        let funnel = try await d.call("analytics.funnel", [:])
        #expect(funnel["started"] == 7)
        #expect(funnel["completed"] == 3)
        #expect(funnel["deferred"] == 1)
        #expect(funnel["rejected"] == 1)
        #expect(funnel["completionRate"] == 0.4286)
        #expect(funnel["steps"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["welcome", "basics", "route", "extras", "birth", "analysis"])
        #expect(step(funnel, "welcome") == ["id": "welcome", "reached": 7, "left": 7, "dropped": 1, "medianSeconds": 1])
        #expect(step(funnel, "basics") == ["id": "basics", "reached": 6, "left": 5, "dropped": 1, "medianSeconds": 4])
        #expect(step(funnel, "route") == ["id": "route", "reached": 5, "left": 5, "dropped": 1, "medianSeconds": 1])
        #expect(step(funnel, "extras") == ["id": "extras", "reached": 2, "left": 2, "dropped": 0, "medianSeconds": 11.5])
        #expect(step(funnel, "birth") == ["id": "birth", "reached": 4, "left": 4, "dropped": 1, "medianSeconds": 2])
        #expect(step(funnel, "analysis") == ["id": "analysis", "reached": 3, "left": 3, "dropped": 0, "medianSeconds": 1])
        #expect(
            funnel["branches"] == [
                ["from": "route", "to": "extras", "count": 2, "completed": 2],
                ["from": "route", "to": "birth", "count": 2, "completed": 1],
            ])
        #expect(funnel["skips"] == [["step": "extras", "count": 1]])

        // The window selects sessions by when they started.
        let none = try await d.call("analytics.funnel", ["since": .string(Timestamp.string(clock.now.addingTimeInterval(60)))])
        #expect(none["started"] == 0)
        #expect(none["completionRate"] == 0)
        #expect(step(none, "welcome") == ["id": "welcome", "reached": 0, "left": 0, "dropped": 0, "medianSeconds": .null])
        let firstTwo = try await d.call(
            "analytics.funnel",
            [
                "since": .string(Timestamp.string(start)), "until": .string(Timestamp.string(start.addingTimeInterval(45))),
            ])
        #expect(firstTwo["started"] == 2)
        #expect(firstTwo["completed"] == 2)
    }

    @Test func badParameters() async throws {
        let d = try await FlowDriver(plugin: FixturePlugin(), clock: clock)
        #expect(await d.error("analytics.funnel", ["since": "yesterday"])?.data?["param"] == "since")
        #expect(await d.error("analytics.funnel", ["flow": "nope"])?.code == -32002)
        #expect(await d.error("analytics.funnel", ["tenant": "nope"])?.code == -32002)
    }
}

@Suite struct FlowDiagramTests {
    @Test func theFixtureFlowIsAValidMermaidChartWithItsBranches() throws {
        let plugin = FixturePlugin()
        let flow = try #require(plugin.flow("onboarding"))
        let chart = try MermaidChecker.check(FlowDiagram(flow: flow, plugin: plugin).mermaid).get()
        #expect(Set(chart.nodes.keys) == Set(flow.steps.map(\.id) + ["done"]))
        #expect(chart.edges.contains { $0.from == "route" && $0.to == "birth" && $0.label == "otherwise" })
        #expect(chart.edges.contains { $0.from == "analysis" && $0.to == "done" })
    }

    @Test func theCheckerRejectsBrokenCharts() {
        #expect(throws: MermaidChecker.Problems.self) { try MermaidChecker.check("graph XY\na --> b").get() }
        #expect(throws: MermaidChecker.Problems.self) { try MermaidChecker.check("flowchart TD\n    a[\"A\"]\n    a --> b").get() }
        #expect(throws: MermaidChecker.Problems.self) { try MermaidChecker.check("flowchart TD\n    a[\"say \"hi\"\"]").get() }
    }
}
