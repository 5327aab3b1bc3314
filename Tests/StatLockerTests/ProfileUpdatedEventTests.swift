import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// StatLocker's `profile.update` (an editable `aiTone`) through the real binary: a
/// `profile.updated` event with the whole record set and no session, delivered signed after the
/// completion's, and listed after it by `events.list`.
@Suite("platformd: StatLocker profile events")
struct ProfileUpdatedEventTests {
    static let secrets = ["STATLOCKER_HOOK_SECRET": "sl-secret-0123456789"]

    static let answers: [JSONValue] = [
        ["sport": "lacrosse"], [:], ["teamGender": "girls"], ["gradYear": 2026, "level": "JV"], ["position": "Midfield"],
        ["hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": false],
        ["seasonGoals": ["g-mid-jv-dc-50", "g-mid-jv-goals-28", "g-mid-jv-gb-28"]], [:], ["aiTone": "Analyst"], [:], [:],
    ]

    /// Walks a StatLocker user to completion; returns the completed SessionView.
    static func complete(_ server: PlatformdProcess, user: String) async throws -> JSONValue {
        let started = try await server.call("flow.start", ["tenant": "statlocker", "userId": .string(user), "user": ["firstName": "Alex"]])
        var view = try #require(started["result"], "\(started.serialized())")
        for values in answers {
            let reply = try await server.call(
                "flow.submit",
                [
                    "tenant": "statlocker", "sessionId": view["sessionId"]!, "stepId": view["step"]?["id"] ?? .null,
                    "revision": view["revision"]!, "values": values,
                ])
            view = try #require(reply["result"], "\(reply.serialized())")
        }
        #expect(view["status"] == "completed")
        return view
    }

    @Test func aProfileUpdateIsDeliveredAfterTheCompletionAndListedInOrder() async throws {
        try await withTemporaryDirectory { directory in
            let receiver = try WebhookReceiver(failFirst: 2)
            defer { receiver.close() }
            let file = directory.appendingPathComponent("tenants.json")
            let text =
                #"{ "tenants": [ { "id": "statlocker", "plugin": "StatLocker", "webhooks": [ { "url": "\#(receiver.url)", "secretEnv": "STATLOCKER_HOOK_SECRET", "events": ["session.completed", "session.rejected", "profile.updated"] } ] } ] }"#
            try Data(text.utf8).write(to: file)
            let db = directory.appendingPathComponent("events.sqlite").path
            try await PlatformdProcess.with(["serve", "--db", db, "--tenants", file.path], environment: Self.secrets) { server in
                _ = try await Self.complete(server, user: "walker")
                let updated = try await server.call("profile.update", ["tenant": "statlocker", "userId": "walker", "values": ["aiTone": "Captain"]])
                #expect(updated["result"]?["records"]?["profile"]?["aiTone"] == "Captain")

                #expect(await eventually { receiver.delivered.count == 2 }, "\(receiver.requests.map { "\($0.eventId ?? "?") \($0.answered)" })")
                for request in receiver.requests {
                    #expect(
                        WebhookReceiver.validSignature(
                            request.headers["platformd-signature"], body: request.body, secret: Self.secrets["STATLOCKER_HOOK_SECRET"]!))
                }
                for id in receiver.delivered.keys {
                    #expect(receiver.requests.filter { $0.eventId == id }.map(\.answered) == [500, 0, 200], "\(id)")
                }
                let update = try #require(receiver.delivered.values.compactMap(\.json).first { $0["type"] == "profile.updated" })
                #expect(update["data"]?["records"]?["profile"]?["aiTone"] == "Captain")
                #expect(update["data"]?["records"] == updated["result"]?["records"])
                #expect(update["sessionId"] == nil)

                // events.list: the completion, then the update, a page at a time.
                let first = try #require(try await server.call("events.list", ["tenant": "statlocker", "limit": 1])["result"])
                #expect(first["events"]?.arrayValue?.map { $0["type"] } == ["session.completed"])
                let second = try #require(try await server.call("events.list", ["tenant": "statlocker", "after": first["next"]!, "limit": 1])["result"])
                #expect(second["events"]?.arrayValue?.map { $0["type"] } == ["profile.updated"])
                #expect(second["events"]?.arrayValue?.first == update)
                let end = try #require(try await server.call("events.list", ["tenant": "statlocker", "after": second["next"]!])["result"])
                #expect(end == ["events": [], "next": second["next"]!])

                // The operators' view: both delivered.
                let listed = try await PlatformdProcess.with(["events", "statlocker", "--db", db]) { process in
                    _ = try await process.waitForExit()
                    return String(decoding: process.stdoutBytes, as: UTF8.self)
                }
                let rows = listed.split(separator: "\n").filter { $0.contains("evt_") }
                #expect(rows.count == 2)
                #expect(rows.allSatisfy { $0.contains("delivered") && $0.contains("HTTP 200") })
            }
        }
    }
}
