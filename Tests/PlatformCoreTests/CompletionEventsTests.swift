import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// The events the platform writes for the apps' backends: a completion with its records, a
/// rejection with its code and nothing of the person, a profile update with the whole set; none
/// for a command that did not commit; `events.list` pages them with a cursor.
@Suite struct CompletionEventsTests {
    let journal = Journal()
    let store: JournalStore
    let driver: FlowDriver
    static let hook = Webhook(
        url: "http://127.0.0.1:9/all", secretEnv: "HOOK", secret: Array("s3cret".utf8),
        events: Set(PlatformEventType.allCases))
    static let completions = Webhook(
        url: "http://127.0.0.1:9/completions", secretEnv: "HOOK", secret: Array("other".utf8), events: [.sessionCompleted])

    init() async throws {
        store = try JournalStore(journal: journal)
        driver = try await FlowDriver(
            plugin: FixturePlugin(), store: store, newID: SequentialIDs().next, webhooks: [Self.hook, Self.completions])
    }

    func atBirth(_ user: String = "u1") async throws -> SessionView {
        let view = try await driver.submit(try await driver.start(user, user: UserDetails(firstName: "Alex", email: "alex@example.com")))
        return try await driver.walk(view, [["name": "Alex", "age": 30, "kind": "alpha", "hasPet": false], ["route": "fast"]])
    }

    func events(after: String? = nil, limit: Int? = nil) async throws -> EventsPage {
        var params: [String: JSONValue] = [:]
        if let after { params["after"] = .string(after) }
        if let limit { params["limit"] = .int(Int64(limit)) }
        return try await driver.call("events.list", params).decode(EventsPage.self)
    }

    @Test func aCompletionWritesItsRecordsForEveryWebhookThatTakesThem() async throws {
        let analysis = try await driver.submit(try await atBirth(), ["birthdate": "1990-05-01"])
        #expect(try await events().events.isEmpty)
        driver.clock.advance(seconds: 7)
        let done = try await driver.submit(analysis)
        #expect(done.status == .completed)
        let page = try await events()
        let event = try #require(page.events.first)
        #expect(page.events.count == 1)
        #expect(event.type == .sessionCompleted)
        #expect(event.id.hasPrefix("evt_"))
        #expect(event.tenant == "fixture")
        #expect(event.userId == "u1")
        #expect(event.sessionId == done.sessionId)
        #expect(event.occurredAt == driver.clock.now)
        let profile = try await driver.call("profile.get", ["userId": "u1"]).decode(Profile.self)
        #expect(event.data == ["records": .object(profile.records), "flowVersion": .string(done.flowVersion ?? "")])
        #expect(done.flowVersion == "1")
        let deliveries = try await store.delivery.recentEvents(tenant: "fixture", limit: 10, failedOnly: false)
        #expect(deliveries.first?.deliveries.map(\.webhook).sorted() == [Self.hook.url, Self.completions.url])
    }

    @Test func aRejectionCarriesItsCodeAndNothingOfThePerson() async throws {
        let rejected = try await driver.submit(try await atBirth(), ["birthdate": "2020-05-01"])
        #expect(rejected.status == .rejected)
        let event = try #require(try await events().events.first)
        #expect(event.type == .sessionRejected)
        #expect(event.data == ["code": "underage"])
        let json = try JSONValue(encoding: event)
        #expect(json.objectValue?.keys.sorted() == ["data", "id", "occurredAt", "sessionId", "tenant", "type", "userId"])
        let text = json.serialized()
        for personal in ["Alex", "alex@example.com", "2020", "birth", "You must be"] {
            #expect(!text.contains(personal), "\(personal) in \(text)")
        }
        // Only the webhook that takes rejections gets it.
        let deliveries = try await store.delivery.recentEvents(tenant: "fixture", limit: 10, failedOnly: false)
        #expect(deliveries.first?.deliveries.map(\.webhook) == [Self.hook.url])
    }

    @Test func aCommandThatDoesNotCommitWritesNoEvent() async throws {
        let analysis = try await driver.submit(try await atBirth(), ["birthdate": "1990-05-01"])
        store.failNextCommit()
        #expect(await driver.refuse(analysis)?.code == -32008)
        #expect(try await events().events.isEmpty)
        // The resent submit completes, once: one event.
        _ = try await driver.submit(analysis)
        _ = try await driver.submit(analysis)
        #expect(try await events().events.map(\.type) == [.sessionCompleted])
    }

    @Test func aProfileUpdateReportsTheWholeSetAndOnlyWhenItChanges() async throws {
        _ = try await driver.submit(try await driver.submit(try await atBirth(), ["birthdate": "1990-05-01"]))
        _ = try await driver.call("profile.update", ["userId": "u1", "values": ["photoUrl": "https://x.test/p.png"]])
        _ = try await driver.call("profile.update", ["userId": "u1", "values": ["photoUrl": "https://x.test/p.png"]])
        #expect(await driver.error("profile.update", ["userId": "u1", "values": ["photoUrl": "http://x.test"]])?.code == -32004)
        let page = try await events()
        #expect(page.events.map(\.type) == [.sessionCompleted, .profileUpdated])
        let updated = try #require(page.events.last)
        #expect(updated.sessionId == nil)
        let profile = try await driver.call("profile.get", ["userId": "u1"]).decode(Profile.self)
        #expect(updated.records == profile.records)
        #expect(updated.records?["account"]?["photoUrl"] == "https://x.test/p.png")
        let deliveries = try await store.delivery.recentEvents(tenant: "fixture", limit: 10, failedOnly: false)
        #expect(deliveries.last?.deliveries.map(\.webhook) == [Self.hook.url])
    }

    @Test func eventsListPagesWithAnOpaqueCursor() async throws {
        for user in ["u1", "u2", "u3"] {
            _ = try await driver.submit(try await atBirth(user), ["birthdate": "2020-05-01"])
        }
        let empty = try await events(after: nil, limit: 1)
        #expect(empty.events.map(\.userId) == ["u1"])
        let second = try await events(after: empty.next, limit: 1)
        #expect(second.events.map(\.userId) == ["u2"])
        let rest = try await events(after: second.next, limit: 100)
        #expect(rest.events.map(\.userId) == ["u3"])
        // Past the end: nothing, and the same cursor to poll with again.
        let end = try await events(after: rest.next)
        #expect(end.events.isEmpty)
        #expect(end.next == rest.next)
        #expect(try await events(after: EventCursor.start).events.count == 3)
        _ = try await driver.submit(try await atBirth("u4"), ["birthdate": "2020-05-01"])
        #expect(try await events(after: end.next).events.map(\.userId) == ["u4"])
    }

    @Test func eventsListParamsAreChecked() async throws {
        #expect(await driver.error("events.list", ["after": "nope"])?.code == -32602)
        #expect(await driver.error("events.list", ["after": 3])?.code == -32602)
        #expect(await driver.error("events.list", ["limit": 0])?.code == -32602)
        #expect(await driver.error("events.list", ["limit": 1001])?.code == -32602)
        #expect(await driver.error("events.list", ["tenant": "nope"])?.code == -32002)
        let page = try await events(limit: 1000)
        #expect(page == EventsPage(events: [], next: EventCursor.start))
    }
}

extension JournalStore {
    /// The SQLite store under the journal, for its delivery rows.
    var delivery: any DeliveryStore { inner as! SQLiteSessionStore }
}
