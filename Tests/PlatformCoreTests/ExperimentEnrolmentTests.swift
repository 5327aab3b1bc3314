import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Enrolment at `flow.start`: the contract's hash decides, the assignment sticks, the view and
/// completion events carry the experiment, and export and erasure include assignments.
@Suite("Experiments: enrolment")
struct ExperimentEnrolmentTests {
    /// `quick` split between itself (control `a`) and the `planner` flow (`b`).
    static func experiment(weights: (Double, Double) = (50, 50), coverage: Double = 1, status: Experiment.Status = .running) -> Experiment {
        Experiment(
            id: "quick-vs-planner", flow: "quick",
            variants: [.init(id: "a", flow: "quick", weight: weights.0), .init(id: "b", flow: "planner", weight: weights.1)],
            control: "a", coverage: coverage, seed: "phase-1", status: status, winner: status == .shipped ? "b" : nil)
    }

    static func driver(_ experiments: [Experiment], store: (any SessionStore)? = nil, clock: TestClock = TestClock()) async throws -> FlowDriver {
        try await FlowDriver(plugin: FixturePlugin(), store: store, clock: clock, experiments: experiments)
    }

    @Test func eachPersonGetsTheVariantTheHashGivesThem() async throws {
        let experiment = Self.experiment(weights: (30, 70))
        let d = try await Self.driver([experiment])
        var counts: [String: Int] = [:]
        for index in 0..<200 {
            let user = "person-\(index)"
            let expected = try #require(experiment.assignment(of: user))
            let view = try await d.start(user, flow: "quick")
            #expect(view.json["experiment"] == ["id": "quick-vs-planner", "variant": .string(expected.id)], "\(user)")
            #expect(view.json["flow"] == .string(expected.flow))
            counts[expected.id, default: 0] += 1
        }
        // 30/70 by weight: the hash spreads 200 people near it.
        #expect((40...80).contains(counts["a"] ?? 0), "\(counts)")
        // Asking again answers the same session, on whichever variant's flow it is.
        for index in 0..<20 {
            let user = "person-\(index)"
            let again = try await d.start(user, flow: "quick")
            #expect(again.json["experiment"]?["variant"] == .string(experiment.assignment(of: user)?.id ?? ""))
        }
    }

    @Test func outsideTheCoverageIsTheControlsFlowUnenrolled() async throws {
        let experiment = Self.experiment(coverage: 0.2)
        let d = try await Self.driver([experiment])
        var enrolled = 0
        for index in 0..<100 {
            let user = "c-\(index)"
            let view = try await d.start(user, flow: "quick")
            if let variant = experiment.assignment(of: user) {
                enrolled += 1
                #expect(view.json["experiment"]?["variant"] == .string(variant.id))
            } else {
                #expect(view.json["experiment"] == nil)
                #expect(view.json["flow"] == "quick", "the control's flow")
            }
        }
        #expect((5...40).contains(enrolled), "\(enrolled) of 100 at coverage 0.2")
    }

    /// New weights move nobody already assigned, on a restart over the same database.
    @Test func anAssignmentSticksAcrossWeightChangesAndRestarts() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("exp-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before = Self.experiment(weights: (50, 50))
        var first: [String: String] = [:]
        do {
            let store = try await SQLiteSessionStore.open(path: path)
            let d = try await Self.driver([before], store: store)
            for index in 0..<60 {
                let view = try await d.start("s-\(index)", flow: "quick")
                first["s-\(index)"] = view.json["experiment"]?["variant"]?.stringValue
            }
            try await store.close()
        }
        let after = Self.experiment(weights: (1, 99))
        let store = try await SQLiteSessionStore.open(path: path)
        let d = try await Self.driver([after], store: store)
        var moved = 0
        for index in 0..<60 {
            let view = try await d.start("s-\(index)", flow: "quick")
            #expect(view.json["experiment"]?["variant"]?.stringValue == first["s-\(index)"])
            if after.assignment(of: "s-\(index)")?.id != first["s-\(index)"] { moved += 1 }
        }
        #expect(moved > 0, "the new weights would have moved someone")
        try await store.close()
    }

    @Test func stoppedSendsNewPeopleToTheControlAndShippedToTheWinner() async throws {
        let stopped = try await Self.driver([Self.experiment(weights: (1, 99), status: .stopped)])
        for index in 0..<10 {
            let view = try await stopped.start("n-\(index)", flow: "quick")
            #expect(view.json["flow"] == "quick")
            #expect(view.json["experiment"] == nil)
        }
        let shipped = try await Self.driver([Self.experiment(weights: (99, 1), status: .shipped)])
        for index in 0..<10 {
            let view = try await shipped.start("w-\(index)", flow: "quick")
            #expect(view.json["flow"] == "planner")
            #expect(view.json["experiment"] == nil)
        }
    }

    @Test func completionEventsExportAndErasureCarryTheAssignment() async throws {
        let experiment = Self.experiment()
        let user = (0..<50).map { "e-\($0)" }.first { experiment.assignment(of: $0)?.id == "a" }!
        let d = try await Self.driver([experiment])
        var view = try await d.start(user, flow: "quick")
        #expect(view.json["experiment"]?["variant"] == "a")
        while view.status == .active {
            view = try await d.submit(view, [(view.stepId ?? "") + "Answer": "x"])
        }
        #expect(view.status == .completed)
        let events = try await d.call("events.list", [:])
        let completed = try #require(events["events"]?.arrayValue?.first { $0["type"] == "session.completed" })
        #expect(completed["data"]?["experiment"] == ["id": "quick-vs-planner", "variant": "a"])

        let exported = try await d.call("user.export", ["userId": .string(user)])
        let assignment = try #require(exported["assignments"]?.arrayValue?.first)
        #expect(assignment["experiment"] == "quick-vs-planner")
        #expect(assignment["seed"] == "phase-1")
        #expect(assignment["variant"] == "a")
        #expect(assignment["flow"] == "quick")
        let funnelKinds = exported["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } ?? []
        #expect(funnelKinds.contains("exposed"))

        _ = try await d.call("user.erase", ["userId": .string(user)])
        let afterErasure = try await d.call("user.export", ["userId": .string(user)])
        #expect(afterErasure["assignments"] == [])
        // Back after the erasure: enrolled as someone new, with a new session and exposure.
        let again = try await d.start(user, flow: "quick")
        #expect(again.sessionId != view.sessionId)
        #expect(again.json["experiment"]?["variant"] == "a")
        let reExported = try await d.call("user.export", ["userId": .string(user)])
        #expect(reExported["assignments"]?.arrayValue?.count == 1)
    }

    /// A ramp: a new version of a flow against the version the plugin keeps. Each person's session
    /// starts, and stays, on their variant's version.
    @Test func aRampStartsEachPersonOnTheirVariantsVersion() async throws {
        let plugin = VersionedPlugin(flows: [Versions.changes[0].flow], olderFlows: [Versions.v1()])
        let ramp = Experiment(
            id: "ramp", flow: "onboarding",
            variants: [.init(id: "v1", flow: "onboarding", version: "1", weight: 1), .init(id: "v2", flow: "onboarding", weight: 1)], control: "v1")
        let d = try await FlowDriver(plugin: plugin, experiments: [ramp])
        var seen: Set<String> = []
        for index in 0..<30 {
            let user = "r-\(index)"
            let variant = try #require(ramp.assignment(of: user)).id
            let view = try await d.start(user)
            #expect(view.json["experiment"]?["variant"] == .string(variant))
            #expect(view.json["flowVersion"] == .string(variant == "v1" ? "1" : "2"), "\(user) on \(variant)")
            let again = try await d.get(view)
            #expect(again.json["flowVersion"] == view.json["flowVersion"], "a session stays on the version it started on")
            seen.insert(variant)
        }
        #expect(seen == ["v1", "v2"])
        let results = try await d.call("analytics.experiment", ["experiment": "ramp"])
        #expect(results["variants"]?.arrayValue?.map { $0["version"]?.stringValue ?? "" } == ["1", "2"])
    }
}
