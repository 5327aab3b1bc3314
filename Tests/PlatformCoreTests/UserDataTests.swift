import Foundation
import GRDB
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

@testable import SQLiteStore

/// `user.export` and `user.erase` on every store: the export is everything the tables hold about
/// the person, the erasure removes it in one go (with `user.erased`), is idempotent, and on a
/// SQLite file leaves none of the person's bytes in the database or its WAL.
@Suite("The person's data: export and erasure")
struct UserDataTests {
    static let hook = Webhook(
        url: "http://127.0.0.1:9/all", secretEnv: "HOOK", secret: Array("s3cret".utf8), events: Set(PlatformEventType.allCases))

    /// A completed session (a profile with records, a pending completion delivery) and a second,
    /// unfinished one in another flow, for a user whose name is `marker`.
    func personWithData(_ driver: FlowDriver, user: String, marker: String) async throws {
        var view = try await driver.submit(try await driver.start(user, user: UserDetails(firstName: marker, email: "\(marker)@example.com")))
        view = try await driver.walk(
            view, [["name": .string(marker), "age": 30, "kind": "alpha", "hasPet": false], ["route": "fast"], ["birthdate": "1990-05-01"]])
        view = try await driver.submit(view)
        #expect(view.status == .completed)
        let quick = try await driver.call("flow.start", ["userId": .string(user), "flow": "quick", "user": ["firstName": .string(marker)]])
        let sessionId = try #require(quick["sessionId"]?.stringValue)
        _ = try await driver.call("flow.submit", ["sessionId": .string(sessionId), "stepId": "one", "revision": 0, "values": ["oneAnswer": .string(marker)]])
    }

    @Test(.postgres) func anExportHoldsEverythingAndAnErasureRemovesItOnceOnPostgres() async throws {
        try await anExportHoldsEverythingAndAnErasureRemovesItOnce(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func anExportHoldsEverythingAndAnErasureRemovesItOnce(kind: StoreKind) async throws {
        let store = try await kind.open()
        let driver = try await FlowDriver(plugin: FixturePlugin(), store: store, webhooks: [Self.hook])
        try await personWithData(driver, user: "erase-me", marker: "Quixotica")
        try await personWithData(driver, user: "keep-me", marker: "Keepsake")

        // The export against the tables: every session with its answers, the profile, every event.
        let export = try await driver.call("user.export", ["userId": "erase-me"]).decode(UserExport.self)
        let stored = try await store.userData(tenant: "fixture", userId: "erase-me")
        #expect(export.sessions.count == 2 && stored.sessions.count == 2)
        for session in export.sessions {
            let state = try #require(stored.sessions.first { $0.id == session.sessionId })
            #expect(session.answers == state.answers && session.user == state.user && session.flowVersion == state.flowVersion)
        }
        #expect(export.sessions.contains { $0.answers["one"]?["oneAnswer"] == "Quixotica" })
        #expect(export.profile == stored.profile && export.profile?.records.isEmpty == false)
        #expect(export.events.count == stored.events.count + stored.outbox.count)
        #expect(export.events.contains { $0.type == "session.completed" } && export.events.contains { $0.type == "arrived" && $0.step == "basics" })

        let erased = try await driver.call("user.erase", ["userId": "erase-me"]).decode(UserErasure.self)
        #expect(erased.erased.sessions == 2)
        #expect(erased.erased.records == export.profile?.records.count)
        #expect(erased.erased.events == stored.events.count)
        #expect(erased.erased.deliveries == 1, "the completion's delivery was still pending")
        let after = try await store.userData(tenant: "fixture", userId: "erase-me")
        #expect(after.sessions.isEmpty && after.profile == nil && after.events.isEmpty)
        #expect(after.outbox.map(\.type) == [.userErased] && after.outbox.first?.data == [:])
        // Nobody else is touched.
        let kept = try await store.userData(tenant: "fixture", userId: "keep-me")
        #expect(kept.sessions.count == 2 && kept.profile != nil)
        // user.erased reaches events.list and the webhooks that take it.
        let page = try await driver.call("events.list", ["limit": 100]).decode(EventsPage.self)
        #expect(page.events.last?.type == .userErased && page.events.last?.userId == "erase-me")
        #expect(!page.events.contains { $0.userId == "erase-me" && $0.type == .sessionCompleted }, "the payload about the person is gone")

        // Idempotent: erasing again (or an unknown user) answers zeros.
        let again = try await driver.call("user.erase", ["userId": "erase-me"]).decode(UserErasure.self)
        #expect(again.erased == .init())
        let unknown = try await driver.call("user.erase", ["userId": "nobody"]).decode(UserErasure.self)
        #expect(unknown.erased == .init())
        // Erasing what is no longer held records no second erasure.
        let events = try await driver.call("events.list", ["limit": 100]).decode(EventsPage.self).events
        #expect(events.filter { $0.type == .userErased }.map(\.userId) == ["erase-me"], "\(events.map(\.type))")
        // The same id may start afresh.
        let fresh = try await driver.start("erase-me")
        #expect(fresh.status == .active && fresh.revision == 0)
        try await store.close()
    }

    @Test(.postgres) func theEventsOfASessionTheRestartReplacedAreExportedAndErasedOnPostgres() async throws {
        try await theEventsOfASessionTheRestartReplacedAreExportedAndErased(kind: .postgres)
    }

    /// The contract: an erasure deletes every funnel event of the person. A session that expired
    /// and made way for the person's next one of its flow leaves its row, not its events (the
    /// funnel's history): they were the person's, so export lists them and erasure deletes them.
    @Test(arguments: StoreKind.sqlite)
    func theEventsOfASessionTheRestartReplacedAreExportedAndErased(kind: StoreKind) async throws {
        let store = try await kind.open()
        let clock = TestClock()
        let policy = DataPolicy(abandonedAfterHours: 24, expireAfterDays: 30, keepCompletedAnswersDays: 90, eventsDays: 365)
        let platform = Platform(
            tenants: [HostedTenant(id: "fixture", pluginName: "Fixture", plugin: FixturePlugin(), dataPolicy: policy)], store: store,
            clock: { clock.now })
        let user = "replaced-\(kind)"
        let first = try await platform.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
        _ = try await platform.submit(
            tenant: "fixture", sessionId: first.sessionId, command: .init(stepId: "one", revision: first.revision, values: ["oneAnswer": "x"]))
        let bystander = try await platform.start(tenant: "fixture", userId: "bystander-\(kind)", flow: "quick", user: nil)
        clock.advance(seconds: 31 * 86_400)
        #expect(try await platform.sweep(now: clock.now).tenants.first?.expired == 2)
        clock.advance(seconds: 60)
        let second = try await platform.start(tenant: "fixture", userId: user, flow: "quick", user: nil)
        #expect(second.sessionId != first.sessionId)

        let stored = try await store.userData(tenant: "fixture", userId: user)
        #expect(stored.sessions.map(\.id) == [second.sessionId])
        let firstEvents = stored.events.filter { $0.sessionId == first.sessionId }
        #expect(firstEvents.count >= 3, "started, arrived and left the first step: \(stored.events.map(\.event.kind))")
        #expect(stored.events.first?.sessionId == first.sessionId, "the replaced session's events come first")
        let export = try await platform.exportUser(tenant: "fixture", userId: user)
        #expect(export.events.count == stored.events.count + stored.outbox.count)

        let erased = try await platform.eraseUser(tenant: "fixture", userId: user)
        #expect(erased.erased.sessions == 1)
        #expect(erased.erased.events == stored.events.count, "the replaced session's events too")
        let after = try await store.userData(tenant: "fixture", userId: user)
        #expect(after.events.isEmpty && after.sessions.isEmpty)
        // Erased, the person's first session's events are gone from the funnel's table too.
        let funnel = try await store.events(tenant: "fixture", flow: "quick", since: nil, until: nil)
        #expect(!funnel.contains { $0.sessionId == first.sessionId }, "no event of the replaced session is left")
        #expect(funnel.contains { $0.sessionId == bystander.sessionId }, "the bystander's stay")
        try await store.close()
    }

    /// Recorded by a trigger, an expired session row deleted by any process (a host of an older
    /// version replacing it, say) is found; an erasure's deletion of an active one is not
    /// recorded; once a prune has taken all its events, the row naming the person goes too.
    @Test func anExpiredSessionRowDeletedByAnyProcessIsRecordedAndForgottenWithItsEvents() async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let driver = try await FlowDriver(plugin: FixturePlugin(), store: store)
        let view = try await driver.start("elsewhere", flow: "quick")
        let active = try await driver.start("still-active", flow: "quick")
        try await store.committer.write { db in
            try db.execute(sql: "UPDATE sessions SET status = 'expired' WHERE id = ?", arguments: [view.sessionId])
            try db.execute(sql: "DELETE FROM sessions WHERE id IN (?, ?)", arguments: [view.sessionId, active.sessionId])
        }
        let held = try await store.userData(tenant: "fixture", userId: "elsewhere")
        #expect(held.sessions.isEmpty)
        #expect(!held.events.isEmpty && held.events.allSatisfy { $0.sessionId == view.sessionId })
        let replaced = { try await store.writer.read { db in try String.fetchAll(db, sql: "SELECT user_id FROM replaced_sessions") } }
        #expect(try await replaced() == ["elsewhere"])

        let pruned = try await store.pruneEvents(tenant: "fixture", flows: ["quick"], before: Date().addingTimeInterval(86_400), limit: 1_000)
        #expect(pruned.events > held.events.count, "theirs and the erased active session's")
        #expect(try await replaced().isEmpty, "no event left to lead to: the person's id goes")
        try await store.close()
    }

    @Test func onASQLiteFileNoByteOfThePersonRemainsInTheDatabaseOrItsWALEvenUnderAReader() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("erase.sqlite").path
            let store = try await SQLiteSessionStore.open(path: path)
            let driver = try await FlowDriver(plugin: FixturePlugin(), store: store, webhooks: [Self.hook])
            let marker = "Zyxwvutsrq" + String(UUID().uuidString.prefix(8))
            try await personWithData(driver, user: "erase-me", marker: marker)
            // The WAL holds the person's pages: the marker is in the files before the erasure.
            #expect(Self.filesContain(path, marker))

            // A reader on another connection holds a snapshot from before the erasure for a while.
            let reader = try DatabaseQueue(path: path)
            // On a thread of its own: the reader blocks while it holds its snapshot.
            let holding = Task {
                try await BlockingWork.run {
                    try reader.read { db in
                        _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sessions")
                        Thread.sleep(forTimeInterval: 1)
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            let erased = try await driver.call("user.erase", ["userId": "erase-me"]).decode(UserErasure.self)
            #expect(erased.erased.sessions == 2)
            try await holding.value
            try reader.close()
            // Within 5 seconds of the reply, no byte of the person is in the files.
            #expect(await eventually(5) { !Self.filesContain(path, marker) }, "the marker is still in \(path) or its WAL")
            try await store.close()
        }
    }

    static func filesContain(_ path: String, _ marker: String) -> Bool {
        let needle = Data(marker.utf8)
        return ["", "-wal"].contains { suffix in
            (FileManager.default.contents(atPath: path + suffix)?.range(of: needle)) != nil
        }
    }
}
