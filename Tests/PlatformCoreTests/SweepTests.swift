import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Abandonment, expiry and retention with an injected clock, on SQLite and PostgreSQL, and on
/// two hosts sweeping one database at once.
@Suite("The sweeper: abandoned, expired, pruned")
struct SweepTests {
    static let policy = DataPolicy(abandonedAfterHours: 24, expireAfterDays: 30, keepCompletedAnswersDays: 90, eventsDays: 180)
    static let hook = Webhook(
        url: "http://127.0.0.1:9/all", secretEnv: "HOOK", secret: Array("s3cret".utf8), events: Set(PlatformEventType.allCases))

    func platform(_ store: any SessionStore, _ clock: TestClock) -> Platform {
        Platform(
            tenants: [HostedTenant(id: "fixture", pluginName: "Fixture", plugin: FixturePlugin(), webhooks: [Self.hook], dataPolicy: Self.policy)],
            store: store, clock: { clock.now })
    }

    func answer(_ platform: Platform, _ view: SessionView) async throws -> SessionView {
        let step = try #require(view.step?.id)
        return try await platform.submit(
            tenant: "fixture", sessionId: view.sessionId,
            command: .init(stepId: step, revision: view.revision, values: ["\(step)Answer": "Quentin"]))
    }

    func events(_ store: any SessionStore, _ type: PlatformEventType) async throws -> [PlatformEvent] {
        try await store.outbox(tenant: "fixture", after: 0, limit: 1000).map(\.event).filter { $0.type == type }
    }

    @Test(.postgres) func abandonedOncePerIdlePeriodThenExpiredAndStartedAfreshOnPostgres() async throws {
        try await abandonedOncePerIdlePeriodThenExpiredAndStartedAfresh(kind: .postgres)
    }

    @Test(arguments: [StoreKind.file])
    func abandonedOncePerIdlePeriodThenExpiredAndStartedAfresh(kind: StoreKind) async throws {
        let store = try await kind.open()
        let clock = TestClock()
        let host = platform(store, clock)
        let t0 = clock.now
        var view = try await host.start(tenant: "fixture", userId: "idle", flow: "quick", user: UserDetails(firstName: "Quentin"))
        view = try await answer(host, view)

        #expect(try await host.sweep(now: t0.addingTimeInterval(23 * 3600)).tenants.isEmpty, "not idle long enough")
        let first = try await host.sweep(now: t0.addingTimeInterval(25 * 3600))
        #expect(first.tenants.first?.abandoned == 1)
        let abandoned = try await events(store, .sessionAbandoned)
        #expect(abandoned.count == 1 && abandoned.first?.sessionId == view.sessionId)
        #expect(abandoned.first?.data["step"] == "two" && abandoned.first?.data["progress"]?["index"] == 2)
        #expect(abandoned.first?.data.objectValue?.keys.sorted() == ["progress", "step"], "nothing the person typed")
        // Once per idle period.
        #expect(try await host.sweep(now: t0.addingTimeInterval(40 * 3600)).tenants.isEmpty)
        // A write, then a new idle period: another.
        clock.advance(seconds: 41 * 3600)
        view = try await answer(host, view)
        _ = try await host.sweep(now: clock.now.addingTimeInterval(25 * 3600))
        #expect(try await events(store, .sessionAbandoned).count == 2)

        // Past expireAfterDays: expired, answers and details gone, session.expired written.
        let expiry = clock.now.addingTimeInterval(31 * 86_400)
        #expect(try await host.sweep(now: expiry).tenants.first?.expired == 1)
        let stored = try #require(try await store.session(tenant: "fixture", key: .id(view.sessionId)))
        #expect(stored.status == .expired && stored.answers.isEmpty && stored.user == .empty && stored.path.isEmpty)
        #expect(try await events(store, .sessionExpired).count == 1)
        clock.advance(seconds: 32 * 86_400)
        let read = try await host.get(tenant: "fixture", key: .id(view.sessionId))
        #expect(read.status == .expired && read.step == nil)
        await expectError(.invalidState) {
            _ = try await host.submit(tenant: "fixture", sessionId: view.sessionId, command: .init(stepId: "three", revision: read.revision))
        }
        // flow.start for that user starts a new session.
        let fresh = try await host.start(tenant: "fixture", userId: "idle", flow: "quick", user: nil)
        #expect(fresh.sessionId != view.sessionId && fresh.status == .active && fresh.step?.id == "one")
        #expect(try await store.session(tenant: "fixture", key: .id(view.sessionId)) == nil)
        try await store.close()
    }

    /// An operator replaying a day ahead (`sessions sweep --now T`): the events happen at T, but
    /// their deliveries are due now, when the sweep runs, and retried for the window from now.
    @Test(.postgres) func deliveriesASweepRaisesAreDueWhenItRunsWhateverNowSaysOnPostgres() async throws {
        try await deliveriesASweepRaisesAreDueWhenItRunsWhateverNowSays(kind: .postgres)
    }

    @Test(arguments: [StoreKind.file])
    func deliveriesASweepRaisesAreDueWhenItRunsWhateverNowSays(kind: StoreKind) async throws {
        let store = try await kind.open()
        let clock = TestClock()
        let host = platform(store, clock)
        let view = try await host.start(tenant: "fixture", userId: "ahead", flow: "quick", user: nil)
        _ = try await answer(host, view)
        let ahead = clock.now.addingTimeInterval(26 * 3600)
        #expect(try await host.sweep(now: ahead).tenants.first?.abandoned == 1)
        let raised = try await events(store, .sessionAbandoned)
        #expect(raised.first?.occurredAt == ahead, "it happened at the time the sweep was told")
        // Due at the clock's time: a delivery worker claims it now, not in 26 hours.
        let claimed = try await store.claimDeliveries(now: clock.now, limit: 10, lease: 30, host: "h")
        #expect(claimed.claims.contains { $0.eventId == raised.first?.id }, "\(claimed.claims.map(\.eventId))")
        try await store.close()
    }

    @Test(.postgres) func completedDetailsAndOldEventsAreDeletedRecordsStayOnPostgres() async throws {
        try await completedDetailsAndOldEventsAreDeletedRecordsStay(kind: .postgres)
    }

    @Test(arguments: [StoreKind.file])
    func completedDetailsAndOldEventsAreDeletedRecordsStay(kind: StoreKind) async throws {
        let store = try await kind.open()
        let clock = TestClock()
        let host = platform(store, clock)
        var view = try await host.start(tenant: "fixture", userId: "done", flow: "quick", user: UserDetails(firstName: "Quentin", email: "q@example.com"))
        for _ in 0..<4 { view = try await answer(host, view) }
        #expect(view.status == .completed)
        #expect(try await host.sweep(now: clock.now.addingTimeInterval(89 * 86_400)).tenants.first?.pruned ?? 0 == 0)
        let report = try await host.sweep(now: clock.now.addingTimeInterval(91 * 86_400))
        #expect(report.tenants.first?.pruned == 1)
        let stored = try #require(try await store.session(tenant: "fixture", key: .id(view.sessionId)))
        #expect(stored.user == .empty && stored.answers.isEmpty && stored.status == .completed)
        #expect(
            stored.completion?.message == "" && stored.completion?.screen == nil && stored.completion?.records.isEmpty == false,
            "the completion's copy (which may name the person) goes; the records' names stay")
        #expect(try await host.sweep(now: clock.now.addingTimeInterval(92 * 86_400)).tenants.first?.pruned ?? 0 == 0, "pruned once")
        #expect(try await store.profile(tenant: "fixture", userId: "done")?.records.isEmpty == false, "records stay")
        // Events older than eventsDays go: funnel events, and completion events no longer being delivered.
        let old = try await host.sweep(now: clock.now.addingTimeInterval(181 * 86_400))
        #expect((old.tenants.first?.events ?? 0) > 0)
        #expect(try await store.events(tenant: "fixture", flow: nil, since: nil, until: nil).isEmpty)
        #expect(old.tenants.first?.completionEvents == 0, "the completion's delivery is still pending: kept")
        try await store.close()
    }

    @Test("two hosts sweeping one database raise each event once, on PostgreSQL", .postgres) func twoHostsRaiseEachEventOnceOnPostgres() async throws {
        try await twoHostsRaiseEachEventOnce(kind: .postgres)
    }

    @Test("two hosts sweeping one database raise each event once", arguments: [StoreKind.file])
    func twoHostsRaiseEachEventOnce(kind: StoreKind) async throws {
        let stores: (any SessionStore, any SessionStore)
        switch kind {
        case .postgres:
            let schema = TestPostgres.freshSchema()
            guard let one = try await TestPostgres.store(schema: schema), let two = try await TestPostgres.store(schema: schema) else { return }
            stores = (one, two)
        default:
            let path = try TemporaryDirectory.make().appendingPathComponent("sweep.sqlite").path
            stores = (try await SQLiteSessionStore.open(path: path), try await SQLiteSessionStore.open(path: path))
        }
        let clock = TestClock()
        let one = platform(stores.0, clock)
        let two = platform(stores.1, clock)
        for index in 0..<30 {
            _ = try await one.start(tenant: "fixture", userId: "u\(index)", flow: "quick", user: nil)
        }
        let later = clock.now.addingTimeInterval(25 * 3600)
        async let first = one.sweep(now: later)
        async let second = two.sweep(now: later)
        let total = (try await first.tenants.first?.abandoned ?? 0) + (try await second.tenants.first?.abandoned ?? 0)
        #expect(total == 30)
        #expect(try await events(stores.0, .sessionAbandoned).count == 30)
        // The lease: one host at a time.
        #expect(try await stores.0.claimSweep(host: "a", now: later, lease: 60))
        #expect(try await !stores.1.claimSweep(host: "b", now: later, lease: 60))
        #expect(try await stores.1.claimSweep(host: "b", now: later.addingTimeInterval(61), lease: 60))
        try await stores.0.close()
        try await stores.1.close()
    }
}
