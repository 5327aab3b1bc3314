import Foundation
import GRDB
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

func sampleEvent(
    _ id: String, type: PlatformEventType = .sessionCompleted, tenant: String = "t1", user: String = "u1",
    session: String? = "s1", at: Date = epoch, webhooks: [String] = ["http://127.0.0.1:9/hooks"]
) -> OutboxEvent {
    let data: JSONValue = type == .sessionRejected ? ["code": "underage"] : ["records": ["profile": ["name": "Alex"]]]
    return OutboxEvent(
        event: PlatformEvent(id: id, type: type, tenant: tenant, userId: user, sessionId: session, occurredAt: at, data: data),
        webhooks: webhooks, deliverUntil: at.addingTimeInterval(24 * 3600))
}

/// The outbox in the store: events are written in the transaction of the change they report,
/// never for one that rolled back; they read back in order after a cursor; deliveries are
/// claimed by one host at a time and keep their attempts through a restart.
@Suite struct OutboxStoreTests {
    func commit(_ store: any PlatformStore, _ state: SessionState, _ events: [OutboxEvent]) async throws {
        try await store.updateSession(tenant: state.tenant, key: .id(state.id)) { _ in
            (SessionCommit(state: state, events: [], outbox: events), ())
        }
    }

    @Test(.postgres) func anEventIsWrittenWithTheChangeItReportsOnPostgres() async throws { try await anEventIsWrittenWithTheChangeItReports(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func anEventIsWrittenWithTheChangeItReports(kind: StoreKind) async throws {
        let store = try await kind.open()
        var completed = sampleState()
        completed.status = .completed
        let state = completed
        let event = sampleEvent("evt_1")
        try await store.updateSession(tenant: "t1", key: .id("s1")) { _ in
            (SessionCommit(state: state, events: [], outbox: [event]), ())
        }
        #expect(try await store.session(tenant: "t1", key: .id("s1"))?.status == .completed)
        let entries = try await store.outbox(tenant: "t1", after: 0, limit: 10)
        #expect(entries.map(\.event) == [event.event])
        #expect(try await store.outbox(tenant: "t2", after: 0, limit: 10).isEmpty)
    }

    @Test(.postgres) func aRolledBackChangeLeavesNoEventOnPostgres() async throws { try await aRolledBackChangeLeavesNoEvent(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func aRolledBackChangeLeavesNoEvent(kind: StoreKind) async throws {
        let store = try await kind.open()
        try await commit(store, sampleState(), [sampleEvent("evt_1")])
        // The body decides, then throws: nothing of the commit is written.
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.updateSession(tenant: "t1", key: .id("s2")) { _ -> (SessionCommit?, Void) in
                _ = SessionCommit(state: sampleState(id: "s2"), events: [], outbox: [sampleEvent("evt_2", session: "s2")])
                throw Refused()
            }
        }
        // The write itself fails (the event's id is taken): the session's change rolls back with it.
        var changed = sampleState()
        changed.revision = 9
        await #expect(throws: (any Error).self) {
            try await commit(store, changed, [sampleEvent("evt_3"), sampleEvent("evt_1")])
        }
        #expect(try await store.session(tenant: "t1", key: .id("s1"))?.revision == 3)
        #expect(try await store.outbox(tenant: "t1", after: 0, limit: 10).map(\.event.id) == ["evt_1"])
        #expect(try await store.claimDeliveries(now: epoch.addingTimeInterval(1), limit: 10, lease: 30, host: "a").claims.count == 1)
    }

    @Test(.postgres) func aProfileUpdateWritesItsEventInItsTransactionOnPostgres() async throws {
        try await aProfileUpdateWritesItsEventInItsTransaction(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func aProfileUpdateWritesItsEventInItsTransaction(kind: StoreKind) async throws {
        let store = try await kind.open()
        let profile = Profile(tenant: "t1", userId: "u1", completedAt: epoch, records: ["profile": ["name": "Alex"]])
        try await store.updateSession(tenant: "t1", key: .id("s1")) { _ in
            (SessionCommit(state: sampleState(), events: [], profile: profile), ())
        }
        let updated = Profile(tenant: "t1", userId: "u1", completedAt: epoch, records: ["profile": ["name": "Sam"]])
        let event = sampleEvent("evt_p", type: .profileUpdated, session: nil)
        try await store.updateProfile(tenant: "t1", userId: "u1", at: epoch) { _ in
            (ProfileCommit(profile: updated, outbox: [event]), ())
        }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.updateProfile(tenant: "t1", userId: "u1", at: epoch) { _ -> (ProfileCommit?, Void) in throw Refused() }
        }
        #expect(try await store.profile(tenant: "t1", userId: "u1")?.records == updated.records)
        #expect(try await store.outbox(tenant: "t1", after: 0, limit: 10).map(\.event) == [event.event])
    }

    @Test(.postgres) func eventsPageOldestFirstAfterACursorPerTenantOnPostgres() async throws {
        try await eventsPageOldestFirstAfterACursorPerTenant(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func eventsPageOldestFirstAfterACursorPerTenant(kind: StoreKind) async throws {
        let store = try await kind.open()
        for index in 1...7 {
            let tenant = index % 3 == 0 ? "t2" : "t1"
            try await commit(
                store, sampleState(id: "s\(index)", tenant: tenant, user: "u\(index)"), [sampleEvent("evt_\(index)", tenant: tenant, session: "s\(index)")])
        }
        var seen: [String] = []
        var after: Int64 = 0
        var pages = 0
        while true {
            let page = try await store.outbox(tenant: "t1", after: after, limit: 2)
            guard let last = page.last else { break }
            #expect(page.count <= 2)
            seen += page.map(\.event.id)
            #expect(last.sequence > after)
            after = last.sequence
            pages += 1
        }
        #expect(seen == ["evt_1", "evt_2", "evt_4", "evt_5", "evt_7"])
        #expect(pages == 3)
        #expect(try await store.outbox(tenant: "t2", after: 0, limit: 10).map(\.event.id) == ["evt_3", "evt_6"])
        // The cursor is stable: the same position gives the same page.
        let first = try await store.outbox(tenant: "t1", after: 0, limit: 2)
        #expect(try await store.outbox(tenant: "t1", after: 0, limit: 2) == first)
        #expect(try await store.outbox(tenant: "t1", after: first[1].sequence, limit: 1).map(\.event.id) == ["evt_4"])
    }

    @Test func cursorsAreOpaqueStringsThatReadBack() {
        #expect(EventCursor.string(42) == "c42")
        #expect(EventCursor.sequence("c42") == 42)
        #expect(EventCursor.sequence(EventCursor.start) == 0)
        for bad in ["", "c", "42", "c-1", "c01", "cx", "c99999999999999999999", "C42", " c42"] {
            #expect(EventCursor.sequence(bad) == nil, "\(bad)")
        }
    }

    @Test(.postgres) func aDeliveryIsClaimedByOneHostAtATimeOnPostgres() async throws { try await aDeliveryIsClaimedByOneHostAtATime(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func aDeliveryIsClaimedByOneHostAtATime(kind: StoreKind) async throws {
        let store = try await kind.open()
        try await commit(store, sampleState(), [sampleEvent("evt_1", webhooks: ["http://a.test/h", "http://b.test/h"])])
        let now = epoch.addingTimeInterval(1)
        let first = try await store.claimDeliveries(now: now, limit: 10, lease: 30, host: "a")
        #expect(first.claims.map(\.webhook).sorted() == ["http://a.test/h", "http://b.test/h"])
        #expect(first.claims.allSatisfy { $0.eventId == "evt_1" && $0.attempts == 0 })
        // Held: nobody else gets them, and nothing is due for the holder either.
        let second = try await store.claimDeliveries(now: now, limit: 10, lease: 30, host: "b")
        #expect(second.claims.isEmpty)
        #expect(second.nextDue == now.addingTimeInterval(30))
        #expect(try await store.claimDeliveries(now: now, limit: 10, lease: 30, host: "a").nextDue == nil)
        // The lease runs out (host a died): host b takes them over; a's late outcome is not recorded.
        let later = now.addingTimeInterval(31)
        let takeover = try await store.claimDeliveries(now: later, limit: 1, lease: 30, host: "b")
        #expect(takeover.claims.count == 1)
        let claim = try #require(takeover.claims.first)
        #expect(try await store.recordAttempt(claim, host: "a", .delivered(at: later, status: 200)) == false)
        #expect(try await store.recordAttempt(claim, host: "b", .delivered(at: later, status: 204)) == true)
        let report = try await store.recentEvents(tenant: "t1", limit: 10, failedOnly: false)
        let states = report.first?.deliveries.map { "\($0.webhook) \($0.state.rawValue) \($0.attempts)" }
        #expect(states?.contains("\(claim.webhook) delivered 1") == true)
    }

    @Test(.postgres) func retriesAreScheduledFailuresKeptAndRequeuedOnPostgres() async throws {
        try await retriesAreScheduledFailuresKeptAndRequeued(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func retriesAreScheduledFailuresKeptAndRequeued(kind: StoreKind) async throws {
        let store = try await kind.open()
        try await commit(store, sampleState(), [sampleEvent("evt_1")])
        let t0 = epoch.addingTimeInterval(1)
        let claim = try #require(try await store.claimDeliveries(now: t0, limit: 1, lease: 30, host: "a").claims.first)
        try await store.recordAttempt(claim, host: "a", .retry(at: t0, next: t0.addingTimeInterval(5), status: 500, error: "HTTP 500"))
        let early = try await store.claimDeliveries(now: t0.addingTimeInterval(4), limit: 1, lease: 30, host: "a")
        #expect(early.claims.isEmpty)
        #expect(early.nextDue == t0.addingTimeInterval(5))
        let again = try #require(try await store.claimDeliveries(now: t0.addingTimeInterval(5), limit: 1, lease: 30, host: "a").claims.first)
        #expect(again.attempts == 1)
        try await store.recordAttempt(again, host: "a", .failed(at: t0.addingTimeInterval(6), status: nil, error: "connection refused"))
        #expect(try await store.claimDeliveries(now: t0.addingTimeInterval(99_999), limit: 1, lease: 30, host: "a").claims.isEmpty)

        let failed = try await store.recentEvents(tenant: "t1", limit: 10, failedOnly: true)
        #expect(failed.map(\.entry.event.id) == ["evt_1"])
        #expect(failed.first?.deliveries.first?.state == .failed)
        #expect(failed.first?.deliveries.first?.attempts == 2)
        #expect(failed.first?.deliveries.first?.lastError == "connection refused")

        let t1 = t0.addingTimeInterval(100)
        #expect(try await store.requeueFailed(eventId: "evt_1", now: t1, deliverUntil: t1.addingTimeInterval(86400)) == 1)
        #expect(try await store.requeueFailed(eventId: "evt_1", now: t1, deliverUntil: t1) == 0)
        #expect(try await store.requeueFailed(eventId: "evt_nope", now: t1, deliverUntil: t1) == 0)
        #expect(try await store.recentEvents(tenant: "t1", limit: 10, failedOnly: true).isEmpty)
        let requeued = try #require(try await store.claimDeliveries(now: t1, limit: 1, lease: 30, host: "a").claims.first)
        #expect(requeued.attempts == 0)
        #expect(requeued.expiresAt == t1.addingTimeInterval(86400))
    }

    @Test func attemptsAndTheirScheduleSurviveARestart() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("outbox.sqlite").path
        let t0 = epoch.addingTimeInterval(1)
        do {
            let store = try await SQLiteSessionStore.open(path: path)
            try await commit(store, sampleState(), [sampleEvent("evt_1")])
            let claim = try #require(try await store.claimDeliveries(now: t0, limit: 1, lease: 30, host: "a").claims.first)
            try await store.recordAttempt(claim, host: "a", .retry(at: t0, next: t0.addingTimeInterval(2), status: nil, error: "refused"))
            // A second claim held when the process dies.
            try await commit(store, sampleState(id: "s2", user: "u2"), [sampleEvent("evt_2", session: "s2")])
            #expect(try await store.claimDeliveries(now: t0, limit: 1, lease: 30, host: "a").claims.map(\.eventId) == ["evt_2"])
            try await store.close()
        }
        let reopened = try await SQLiteSessionStore.open(path: path)
        let round = try await reopened.claimDeliveries(now: t0.addingTimeInterval(2), limit: 10, lease: 30, host: "b")
        #expect(round.claims.map(\.eventId) == ["evt_1"])
        #expect(round.claims.first?.attempts == 1)
        #expect(round.nextDue == t0.addingTimeInterval(30))
        try await reopened.close()
    }
}
