import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// What experiments need of each store: one assignment per person and phase (two hosts enrolling
/// one person at once store one, and both answer the same session), the figures results are
/// computed from, and a stop the first host to decide it stores.
@Suite("Experiments: stores")
struct ExperimentStoreTests {
    static let experiment = ExperimentEnrolmentTests.experiment(weights: (50, 50))

    static func platform(_ store: any SessionStore, clock: TestClock = TestClock()) -> Platform {
        Platform(
            tenants: [HostedTenant(id: "fixture", pluginName: "Fixture", plugin: FixturePlugin(), experiments: [experiment])], store: store,
            clock: { clock.now })
    }

    @Test(arguments: StoreKind.sqlite)
    func twoHostsEnrollingOnePersonAtOnceStoreOneAssignment(kind: StoreKind) async throws {
        let (a, b, close) = try await kind.twoHosts()
        let (hostA, hostB) = (Self.platform(a), Self.platform(b))
        for index in 0..<20 {
            let user = "race-\(index)"
            async let first = hostA.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
            async let second = hostB.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
            let (viewA, viewB) = try await (first, second)
            #expect(viewA.sessionId == viewB.sessionId, "\(user): one session")
            #expect(viewA.experiment == viewB.experiment)
            #expect(viewA.experiment?.variant == Self.experiment.assignment(of: user)?.id)
            let held = try await a.assignments(tenant: "fixture", userId: user)
            #expect(held.count == 1)
            #expect(held.first?.sessionId == viewA.sessionId)
        }
        try await close()
    }

    @Test(.postgres) func twoHostsEnrollingOnePersonAtOnceStoreOneAssignmentOnPostgres() async throws {
        try await twoHostsEnrollingOnePersonAtOnceStoreOneAssignment(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func figuresCountExposuresCompletionsWithinTheWindowAndEachArmsFunnel(kind: StoreKind) async throws {
        let store = try await kind.open()
        let clock = TestClock()
        let platform = Self.platform(store, clock: clock)
        var completedSeconds: [String: [Double]] = [:]
        var exposed: [String: Int] = [:]
        for index in 0..<30 {
            let user = "f-\(index)"
            var view = try await platform.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
            let variant = try #require(view.experiment?.variant)
            exposed[variant, default: 0] += 1
            guard index % 3 != 0 else { continue }
            // Two of three finish; those after index 20 take longer than the window.
            let started = clock.now
            clock.advance(seconds: index > 20 ? 4000 : 60)
            var values = GenericAnswers().valuesWithoutSearch(for: try JSONValue(encoding: view)["step"]?["fields"]?.arrayValue ?? [])
            while view.status == .active, let step = view.step {
                values = GenericAnswers().valuesWithoutSearch(for: try JSONValue(encoding: step)["fields"]?.arrayValue ?? [])
                view = try await platform.submit(
                    tenant: "fixture", sessionId: view.sessionId, command: .init(stepId: step.id, revision: view.revision, values: values))
            }
            #expect(view.status == .completed)
            if index <= 20 { completedSeconds[variant, default: []].append(clock.now.timeIntervalSince(started)) }
        }
        let experiments: any ExperimentStore = store
        let figures = try await experiments.experimentFigures(
            tenant: "fixture", experiment: Self.experiment.id, seed: Self.experiment.seed,
            arms: [.init(variant: "a", flow: "quick"), .init(variant: "b", flow: "planner")], window: 3600)
        for variant in ["a", "b"] {
            #expect(figures[variant]?.exposed == exposed[variant] ?? 0, "\(variant)")
            #expect(figures[variant]?.completed == completedSeconds[variant]?.count ?? 0, "\(variant)")
            #expect(figures[variant]?.durations == ExperimentStatistics.secondsToComplete(completedSeconds[variant] ?? []), "\(variant)")
            #expect(figures[variant]?.funnel.started == exposed[variant] ?? 0, "\(variant): its funnel counts its sessions only")
        }
        try await store.close()
    }

    /// The rollup each commit moves gives each arm the funnel `analytics.funnel` folds from the
    /// events of its flow (every session of these flows is enrolled), with people going Back,
    /// leaving mid-flow and completing.
    @Test(arguments: StoreKind.sqlite)
    func eachArmsFunnelIsTheEventsFunnelOfItsSessions(kind: StoreKind) async throws {
        let store = try await kind.open()
        let clock = TestClock()
        let d = try await ExperimentEnrolmentTests.driver([Self.experiment], store: store, clock: clock)
        try await ExperimentRollupFoldTests.walk(d, clock: clock, count: 40, prefix: "w", seed: 5)
        let results = try await d.call("analytics.experiment", ["experiment": .string(Self.experiment.id)])
        let variants = results["variants"]?.arrayValue ?? []
        #expect(variants.count == 2)
        for variant in variants {
            let flow = try #require(variant["flow"]?.stringValue)
            let funnel = try await d.call("analytics.funnel", ["flow": .string(flow)])
            #expect(variant["steps"] == funnel["steps"], "\(flow): \(variant["steps"] ?? .null) vs \(funnel["steps"] ?? .null)")
            #expect(variant["exposed"] == funnel["started"] && variant["completed"] == funnel["completed"], "\(flow)")
        }
        try await store.close()
    }

    @Test(.postgres) func eachArmsFunnelIsTheEventsFunnelOfItsSessionsOnPostgres() async throws {
        try await eachArmsFunnelIsTheEventsFunnelOfItsSessions(kind: .postgres)
    }

    @Test(.postgres) func figuresCountExposuresCompletionsWithinTheWindowAndEachArmsFunnelOnPostgres() async throws {
        try await figuresCountExposuresCompletionsWithinTheWindowAndEachArmsFunnel(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func theFirstStopHolds(kind: StoreKind) async throws {
        let store = try await kind.open()
        func report(_ id: String) -> OutboxEvent {
            OutboxEvent(
                event: PlatformEvent(id: id, type: .userErased, tenant: "fixture", userId: "", occurredAt: epoch, data: [:]), webhooks: [],
                deliverUntil: epoch)
        }
        let first = ExperimentStop(
            tenant: "fixture", experiment: "x", seed: "s", at: epoch, variant: "b", reason: "worse", interval: [-0.2, -0.01])
        var second = first
        second.variant = "c"
        #expect(try await store.experimentStop(tenant: "fixture", experiment: "x", seed: "s") == nil)
        let stored = try await store.recordExperimentStop(first, report: report("evt_1"))
        #expect(stored.stored)
        let again = try await store.recordExperimentStop(second, report: report("evt_2"))
        #expect(!again.stored)
        #expect(again.stop.variant == "b")
        #expect(try await store.experimentStop(tenant: "fixture", experiment: "x", seed: "s")?.interval == [-0.2, -0.01])
        #expect(try await store.experimentStop(tenant: "fixture", experiment: "x", seed: "next") == nil, "a new seed is a new phase")
        #expect(try await store.outbox(tenant: "fixture", after: 0, limit: 10).map(\.event.id) == ["evt_1"])
        try await store.close()
    }

    @Test(.postgres) func theFirstStopHoldsOnPostgres() async throws { try await theFirstStopHolds(kind: .postgres) }

    /// What `flow.start` reads before it enrols, in one read: the person's sessions on the
    /// experiment's flows, the phase's stop and the person's assignment, each only for its own
    /// phase and person.
    @Test(arguments: StoreKind.sqlite)
    func anEnrolmentReadsThePhasesStopAndThePersonsAssignment(kind: StoreKind) async throws {
        let store = try await kind.open()
        let phase = ExperimentPhase(experiment: Self.experiment.id, seed: Self.experiment.seed)
        let flows = ["quick", "planner"]
        let view = try await Self.platform(store).start(tenant: "fixture", userId: "enrolled", flow: "quick", user: nil)
        let before = try await store.enrolment(tenant: "fixture", userId: "enrolled", flows: flows, phase: phase)
        #expect(before.stop == nil)
        #expect(before.assignment?.sessionId == view.sessionId)
        #expect(before.assignment?.variant == Self.experiment.assignment(of: "enrolled")?.id)
        #expect(before.sessions.map(\.id) == [view.sessionId], "the one session, on the variant's flow")
        #expect(before.sessions.first?.flow == view.flow)

        let stop = ExperimentStop(
            tenant: "fixture", experiment: phase.experiment, seed: phase.seed, at: epoch, variant: "b", reason: "worse", interval: [-0.3, -0.1])
        let report = OutboxEvent(
            event: PlatformEvent(id: "evt_stop", type: .userErased, tenant: "fixture", userId: "", occurredAt: epoch, data: [:]), webhooks: [],
            deliverUntil: epoch)
        _ = try await store.recordExperimentStop(stop, report: report)
        let after = try await store.enrolment(tenant: "fixture", userId: "enrolled", flows: flows, phase: phase)
        #expect(after == ExperimentEnrolment(sessions: before.sessions, stop: stop, assignment: before.assignment))
        let someoneElse = try await store.enrolment(tenant: "fixture", userId: "new", flows: flows, phase: phase)
        #expect(someoneElse == ExperimentEnrolment(stop: stop, assignment: nil))
        let nextPhase = try await store.enrolment(
            tenant: "fixture", userId: "enrolled", flows: flows, phase: ExperimentPhase(experiment: phase.experiment, seed: "next"))
        #expect(nextPhase == ExperimentEnrolment(sessions: before.sessions, stop: nil, assignment: nil), "a new seed is a new phase")
        let sessionsOnly = try await store.enrolment(tenant: "fixture", userId: "enrolled", flows: ["planner", "quick"], phase: nil)
        #expect(sessionsOnly == ExperimentEnrolment(sessions: before.sessions, stop: nil, assignment: nil))
        try await store.close()
    }

    @Test(.postgres) func anEnrolmentReadsThePhasesStopAndThePersonsAssignmentOnPostgres() async throws {
        try await anEnrolmentReadsThePhasesStopAndThePersonsAssignment(kind: .postgres)
    }
}
