import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// The contract: "A person whose session expired or was erased starts afresh and is enrolled as
/// a new person." Their stored assignment named the session that expired; the restart is enrolled
/// by the hash as anyone new is, its assignment replaces the old one (one a person and phase), and
/// its completion is what the results count.
@Suite("Experiments: a restart after expiry")
struct ExperimentRestartTests {
    static let policy = DataPolicy(abandonedAfterHours: 24, expireAfterDays: 30, keepCompletedAnswersDays: 90, eventsDays: 180)
    static let before = ExperimentEnrolmentTests.experiment(weights: (50, 50))

    static func platform(_ store: any SessionStore, _ experiment: Experiment, clock: TestClock) -> Platform {
        Platform(
            tenants: [HostedTenant(id: "fixture", pluginName: "Fixture", plugin: FixturePlugin(), dataPolicy: policy, experiments: [experiment])],
            store: store, clock: { clock.now })
    }

    static func complete(_ platform: Platform, _ start: SessionView) async throws -> SessionView {
        var view = start
        while view.status == .active, let step = view.step {
            let values = GenericAnswers().valuesWithoutSearch(for: try JSONValue(encoding: step)["fields"]?.arrayValue ?? [])
            view = try await platform.submit(
                tenant: "fixture", sessionId: view.sessionId, command: .init(stepId: step.id, revision: view.revision, values: values))
        }
        return view
    }

    /// What the experiment is on the restart's host: the same, new weights that move the person,
    /// or a coverage that no longer takes them.
    enum Change: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case none, weights, coverage
        var testDescription: String { rawValue }

        var experiment: Experiment {
            switch self {
            case .none: ExperimentRestartTests.before
            case .weights: ExperimentEnrolmentTests.experiment(weights: (1, 99))
            case .coverage: ExperimentEnrolmentTests.experiment(coverage: 0)
            }
        }
    }

    @Test(arguments: StoreKind.sqlite, Change.allCases)
    func someoneWhoseSessionExpiredIsEnrolledAsSomeoneNew(kind: StoreKind, change: Change) async throws {
        let store = try await kind.open()
        let clock = TestClock()
        let after = change.experiment
        // Someone on the control before, whom the changed weights would put on `b`.
        let user = try #require(
            (0..<1000).map { "restart-\(change)-\($0)" }.first {
                Self.before.assignment(of: $0)?.id == "a" && ExperimentEnrolmentTests.experiment(weights: (1, 99)).assignment(of: $0)?.id == "b"
            })
        let firstHost = Self.platform(store, Self.before, clock: clock)
        let first = try await firstHost.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
        #expect(first.experiment?.variant == "a")
        // Counted before it expires: the results' rollup holds the first session, which the
        // restart must take away with its assignment.
        let before = try await firstHost.experimentResults(tenant: "fixture", experiment: Self.before.id)
        #expect(before.variants.first { $0.id == "a" }?.exposed == 1)

        clock.advance(seconds: 31 * 86_400)
        let host = Self.platform(store, after, clock: clock)
        #expect(try await host.sweep(now: clock.now).tenants.first?.expired == 1)
        clock.advance(seconds: 60)
        let restarted = try await host.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
        #expect(restarted.sessionId != first.sessionId)
        let expected = after.assignment(of: user)
        #expect(restarted.experiment?.variant == expected?.id, "the hash with the experiment as it is now")
        #expect(restarted.flow == expected?.flow ?? "quick")

        let held = try await store.assignments(tenant: "fixture", userId: user)
        if let expected {
            #expect(held.map(\.sessionId) == [restarted.sessionId], "the old assignment gave way")
            #expect(held.first?.variant == expected.id)
            #expect(held.first?.assignedAt == clock.now, "exposed at the restart")
        } else {
            #expect(held.isEmpty, "not enrolled now: the old assignment is gone too")
        }

        let done = try await Self.complete(host, restarted)
        #expect(done.status == .completed)
        let results = try await host.experimentResults(tenant: "fixture", experiment: after.id)
        let counts = Dictionary(uniqueKeysWithValues: results.variants.map { ($0.id, ($0.exposed, $0.completed)) })
        for variant in ["a", "b"] {
            let mine = variant == expected?.id
            #expect(counts[variant]?.0 == (mine ? 1 : 0), "\(variant) exposed")
            #expect(counts[variant]?.1 == (mine ? 1 : 0), "\(variant) completed: the restart's completion counts")
        }
        try await store.close()
    }

    @Test(.postgres, arguments: Change.allCases)
    func someoneWhoseSessionExpiredIsEnrolledAsSomeoneNewOnPostgres(change: Change) async throws {
        try await someoneWhoseSessionExpiredIsEnrolledAsSomeoneNew(kind: .postgres, change: change)
    }

    /// Two hosts restarting one expired person at once: one session, one assignment naming it.
    @Test(arguments: StoreKind.sqlite)
    func twoHostsRestartingOnePersonAtOnceStoreOneAssignment(kind: StoreKind) async throws {
        let (a, b, close) = try await kind.twoHosts()
        let clock = TestClock()
        let (hostA, hostB) = (Self.platform(a, Self.before, clock: clock), Self.platform(b, Self.before, clock: clock))
        let users = (0..<12).map { "again-\($0)" }
        var first: [String: String] = [:]
        for user in users { first[user] = try await hostA.start(tenant: "fixture", userId: user, flow: "quick", user: nil).sessionId }
        clock.advance(seconds: 31 * 86_400)
        #expect(try await hostA.sweep(now: clock.now).tenants.first?.expired == users.count)
        for user in users {
            async let one = hostA.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
            async let other = hostB.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
            let (viewA, viewB) = try await (one, other)
            #expect(viewA.sessionId == viewB.sessionId, "\(user): one session")
            #expect(viewA.sessionId != first[user])
            #expect(viewA.experiment == viewB.experiment)
            let held = try await a.assignments(tenant: "fixture", userId: user)
            #expect(held.map(\.sessionId) == [viewA.sessionId], "\(user)")
        }
        try await close()
    }

    @Test(.postgres) func twoHostsRestartingOnePersonAtOnceStoreOneAssignmentOnPostgres() async throws {
        try await twoHostsRestartingOnePersonAtOnceStoreOneAssignment(kind: .postgres)
    }
}
