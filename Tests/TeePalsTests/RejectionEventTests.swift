import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// TeePals' `session.rejected` event through the real binary: delivered signed to the tenant's
/// webhook past failing attempts, listed by `events.list`, and carrying nothing of the person.
@Suite("platformd: TeePals rejection events")
struct RejectionEventTests {
    static let secrets = ["TEEPALS_HOOK_SECRET": "tp-secret-9876543210"]

    static func tenantsFile(in directory: URL, url: String) throws -> String {
        let file = directory.appendingPathComponent("tenants.json")
        let text =
            #"{ "tenants": [ { "id": "teepals", "plugin": "TeePals", "webhooks": [ { "url": "\#(url)", "secretEnv": "TEEPALS_HOOK_SECRET", "events": ["session.rejected"] } ] } ] }"#
        try Data(text.utf8).write(to: file)
        return file.path
    }

    /// A TeePals user too young: rejected on the birthdate step.
    static func rejectTeePals(_ server: PlatformdProcess, user: String, tenant: String = "teepals") async throws -> JSONValue {
        let started = try await server.call(
            "flow.start", ["tenant": .string(tenant), "userId": .string(user), "user": ["firstName": "Kiddo", "email": "kid@example.com"]])
        let view = try #require(started["result"], "\(started.serialized())")
        let named = try await server.call(
            "flow.submit",
            [
                "tenant": .string(tenant), "sessionId": view["sessionId"]!, "stepId": "nickname", "revision": 0, "values": ["nickname": "Kiddo"],
            ])
        let rejected = try await server.call(
            "flow.submit",
            [
                "tenant": .string(tenant), "sessionId": view["sessionId"]!, "stepId": "birthdate",
                "revision": named["result"]?["revision"] ?? 1, "values": ["birthdate": "2019-03-04"],
            ])
        #expect(rejected["result"]?["status"] == "rejected", "\(rejected.serialized())")
        return try #require(rejected["result"])
    }

    @Test func aRejectionIsDeliveredSignedWithNothingOfThePerson() async throws {
        try await withTemporaryDirectory { directory in
            // Every event: HTTP 500, then a connection closed with no answer, then 200.
            let receiver = try WebhookReceiver(failFirst: 2)
            defer { receiver.close() }
            let tenants = try Self.tenantsFile(in: directory, url: receiver.url + "?from=teepals")
            let db = directory.appendingPathComponent("events.sqlite").path
            try await PlatformdProcess.with(["serve", "--db", db, "--tenants", tenants], environment: Self.secrets) { server in
                let rejected = try await Self.rejectTeePals(server, user: "kid")
                #expect(await eventually { receiver.delivered.count == 1 }, "\(receiver.requests.map { "\($0.eventId ?? "?") \($0.answered)" })")
                for request in receiver.requests {
                    let event = try #require(request.json)
                    #expect(request.headers["content-type"] == "application/json")
                    #expect(request.eventId == event["id"]?.stringValue)
                    #expect(
                        WebhookReceiver.validSignature(request.headers["platformd-signature"], body: request.body, secret: Self.secrets["TEEPALS_HOOK_SECRET"]!)
                    )
                    #expect(request.path == "/hooks?from=teepals")
                }
                let delivery = try #require(receiver.delivered.values.first)
                #expect(receiver.requests.filter { $0.eventId == delivery.eventId }.map(\.answered) == [500, 0, 200])
                let rejection = try #require(delivery.json)
                #expect(rejection["type"] == "session.rejected")
                #expect(rejection.objectValue?.keys.sorted() == ["data", "id", "occurredAt", "sessionId", "tenant", "type", "userId"])
                #expect(rejection["data"] == ["code": "underage"])
                #expect(rejection["sessionId"] == rejected["sessionId"])
                let text = String(decoding: delivery.body, as: UTF8.self)
                for personal in ["Kiddo", "kid@example.com", "2019", "You must be"] {
                    #expect(!text.contains(personal), "\(personal) in \(text)")
                }
                let listed = try #require(try await server.call("events.list", ["tenant": "teepals"])["result"])
                #expect(listed["events"] == [rejection])
            }
        }
    }
}
