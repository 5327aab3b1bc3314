import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Completion events through the real binary, on the registered tenants (a completion made with
/// generic answers): signed webhook deliveries that survive failing receivers and a kill -9,
/// `events.list` paging, the Python receiver of the docs, and the operators' `platformd events`.
/// The events only some plugins make (a rejection, a profile update) are tested in those plugins'
/// targets.
@Suite("Completion events and webhooks")
struct EventsTests {
    static let secrets = ["PLATFORMD_HOOK_SECRET": "hook-secret-0123456789"]
    static let secret = secrets["PLATFORMD_HOOK_SECRET"]!
    static let allTypes = #"["session.completed", "session.rejected", "profile.updated"]"#

    /// Every registered tenant under its default id, each with a webhook to `url` (with
    /// `?from=TENANT` added) taking every event type, signed with `PLATFORMD_HOOK_SECRET`.
    static func tenantsFile(in directory: URL, url: String) throws -> String {
        let tenants = Hosted.registrations.map { registration in
            #"{ "id": "\#(registration.defaultTenant)", "plugin": "\#(registration.name)", "webhooks": [ { "url": "\#(url)?from=\#(registration.defaultTenant)", "secretEnv": "PLATFORMD_HOOK_SECRET", "events": \#(allTypes) } ] }"#
        }
        return try TenancyTests.write(#"{ "tenants": [ \#(tenants.joined(separator: ", ")) ] }"#, in: directory)
    }

    @Test func aReceiverThatFailsTheFirstAttemptsGetsEveryEventOnceSigned() async throws {
        try await withTemporaryDirectory { directory in
            // Every event: HTTP 500, then a connection closed with no answer, then 200.
            let receiver = try WebhookReceiver(failFirst: 2)
            defer { receiver.close() }
            let tenants = try Self.tenantsFile(in: directory, url: receiver.url)
            let db = directory.appendingPathComponent("events.sqlite").path
            try await PlatformdProcess.with(["serve", "--db", db, "--tenants", tenants], environment: Self.secrets) { server in
                let (tenant, completed) = try await Hosted.complete(on: server, userId: "walker")
                let atCompletion = try #require(try await server.call("profile.get", ["tenant": .string(tenant), "userId": "walker"])["result"])

                // The server's own account of its attempts goes with a failure (once, in a crowded
                // run, the second attempt never reached the receiver).
                #expect(
                    await eventually { receiver.delivered.count == 1 },
                    "\(receiver.requests.map { "\($0.eventId ?? "?") \($0.answered)" })\n\(server.stderrText.suffix(6_000))")
                let delivered = receiver.delivered

                // Every attempt: the event as JSON, its id in a header, a valid signature, its tenant's URL.
                for request in receiver.requests {
                    let event = try #require(request.json)
                    #expect(request.headers["content-type"] == "application/json")
                    #expect(request.eventId == event["id"]?.stringValue)
                    #expect(WebhookReceiver.validSignature(request.headers["platformd-signature"], body: request.body, secret: Self.secret))
                    #expect(request.path == "/hooks?from=\(tenant)")
                }
                // Each event: the two failures, then exactly one success.
                for id in delivered.keys {
                    let answers = receiver.requests.filter { $0.eventId == id }.map(\.answered)
                    #expect(answers == [500, 0, 200], "\(id): \(answers)")
                }

                let completion = try #require(delivered.values.first?.json)
                #expect(completion["type"] == "session.completed")
                #expect(completion["tenant"] == .string(tenant))
                #expect(completion["userId"] == "walker")
                #expect(completion["sessionId"] == completed["sessionId"])
                #expect(completion["data"] == ["records": atCompletion["records"]!, "flowVersion": completed["flowVersion"]!])
                #expect(completion.objectValue?.keys.sorted() == ["data", "id", "occurredAt", "sessionId", "tenant", "type", "userId"])

                // events.list: the same event, a page at a time.
                let first = try #require(try await server.call("events.list", ["tenant": .string(tenant), "limit": 1])["result"])
                #expect(first["events"]?.arrayValue?.map { $0["type"] } == ["session.completed"])
                #expect(first["events"]?.arrayValue?.first == completion)
                let end = try #require(try await server.call("events.list", ["tenant": .string(tenant), "after": first["next"]!])["result"])
                #expect(end == ["events": [], "next": first["next"]!])
                for other in Hosted.tenants where other != tenant {
                    #expect(try await server.call("events.list", ["tenant": .string(other)])["result"]?["events"] == [])
                }

                // The operators' view.
                let listed = try await AuthTests.command(["events", tenant, "--db", db])
                #expect(listed.status == 0, "\(listed.stderr)")
                let rows = listed.stdout.split(separator: "\n").filter { $0.contains("evt_") }
                #expect(rows.count == 1)
                #expect(rows.allSatisfy { $0.contains("delivered") && $0.contains("HTTP 200") })
            }
        }
    }

    @Test func killingPlatformdBetweenACompletionAndItsDeliveryLosesNothing() async throws {
        try await withTemporaryDirectory { directory in
            // Nothing listens there yet: every attempt before the kill fails.
            let port = try WebhookReceiver.freePort()
            let url = "http://127.0.0.1:\(port)/hooks"
            let tenants = try Self.tenantsFile(in: directory, url: url)
            let db = directory.appendingPathComponent("crash.sqlite").path
            let arguments = ["serve", "--db", db, "--tenants", tenants]
            let (eventId, tenant) = try await PlatformdProcess.with(arguments, environment: Self.secrets) { server -> (String, String) in
                let (tenant, _) = try await Hosted.complete(on: server, userId: "survivor")
                let page = try #require(try await server.call("events.list", ["tenant": .string(tenant)])["result"])
                let id = try #require(page["events"]?.arrayValue?.first?["id"]?.stringValue)
                // Wait for a failed attempt to be recorded, then kill -9 before the next succeeds.
                let store = try await SQLiteSessionStore.open(path: db)
                #expect(
                    try await eventually {
                        let delivery = try await store.recentEvents(tenant: tenant, limit: 1, failedOnly: false).first?.deliveries.first
                        return (delivery?.attempts ?? 0) >= 1 && delivery?.state == .pending
                    })
                try await store.close()
                server.send(signal: SIGKILL)
                #expect(try await server.waitForExit() == .init(status: SIGKILL, signaled: true))
                return (id, tenant)
            }
            // In a loaded run the kill can come long after the first failed attempt, with more
            // attempts made meanwhile and the next one backed off (the delay doubles from 1 s):
            // the restarted server sends it when it is due, not before.
            let store = try await SQLiteSessionStore.open(path: db)
            let pending = try await store.recentEvents(tenant: tenant, limit: 1, failedOnly: false).first?.deliveries.first
            try await store.close()
            let due = max(0, pending?.nextAttemptAt?.timeIntervalSinceNow ?? 0)
            let receiver = try WebhookReceiver(port: port)
            defer { receiver.close() }
            try await PlatformdProcess.with(arguments, environment: Self.secrets) { server in
                // Normally within a second or two of being due; the bound allows for a claim the
                // killed process held (its 30 s lease), should the kill have landed mid-attempt.
                let delivered = await eventually(due + 40) { receiver.delivered[eventId] != nil }
                #expect(delivered, "attempts before the kill: \(pending?.attempts ?? 0), next due in \(Int(due)) s")
                let request = try #require(receiver.delivered[eventId])
                #expect(WebhookReceiver.validSignature(request.headers["platformd-signature"], body: request.body, secret: Self.secret))
                #expect(request.json?["type"] == "session.completed")
                #expect(request.json?["userId"] == "survivor")
                try server.closeStdin()
                #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
            }
            #expect(receiver.requests.filter { $0.answered == 200 }.count == 1)
        }
    }

    // MARK: - the Python receiver of the docs

    static let receiverScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Docs/webhooks-receiver.py")

    static func python3() -> URL? {
        for path in ["/usr/bin/python3", "/usr/local/bin/python3"] where FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: path) { return URL(fileURLWithPath: path) }
        }
        return nil
    }

    /// One raw HTTP/1.1 POST to 127.0.0.1:port; the status the server answers with.
    static func post(port: UInt16, body: [UInt8], headers: [String: String]) throws -> Int {
        let client = try SocketClient(tcpPort: Int(port), timeoutSeconds: 10)
        var head = "POST /hooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try client.write(Array((head + "\r\n").utf8) + body)
        let status = try client.readLine() ?? ""
        return Int(status.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    @Test(.enabled(if: EventsTests.python3() != nil, "needs python3 for Docs/webhooks-receiver.py"))
    func theDocsPythonReceiverVerifiesDeduplicatesAndGetsEveryEventOnce() async throws {
        let python = try #require(Self.python3())
        let secret = Self.secret
        try await withTemporaryDirectory { directory in
            try await PlatformdProcess.with(
                [Self.receiverScript.path, "--port", "0", "--secret-env", "PLATFORMD_HOOK_SECRET", "--fail-first", "2"],
                environment: Self.secrets, executable: python
            ) { receiver in
                #expect(await eventually { receiver.stderrText.contains("listening on http://127.0.0.1:") }, "\(receiver.stderrText)")
                let port = try #require(
                    receiver.stderrText.split(separator: "\n").first { $0.contains("listening on") }
                        .flatMap { $0.split(separator: ":").last?.split(separator: "/").first }.flatMap { UInt16($0) })
                let tenants = try Self.tenantsFile(in: directory, url: "http://127.0.0.1:\(port)/hooks")
                try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", tenants], environment: Self.secrets) { server in
                    let (tenant, _) = try await Hosted.complete(on: server, userId: "fan-1")
                    try await server.complete(tenant: tenant, userId: "fan-2")
                    // The receiver prints each event it handled, once: 500 and a closed connection first.
                    let first = try await receiver.readReply()
                    let second = try await receiver.readReply()
                    #expect(Set([first["userId"], second["userId"]]) == ["fan-1", "fan-2"])
                    #expect(first["type"] == "session.completed" && second["type"] == "session.completed")
                    #expect(await eventually { receiver.stderrText.contains("failing delivery 2 of") })

                    // A forged, a stale and a replayed delivery, straight to the receiver.
                    let body = Array(first.serialized().utf8)
                    let id = first["id"]?.stringValue ?? ""
                    func signed(_ time: Date, _ key: String) -> String {
                        WebhookSignature.value(body: body, secret: Array(key.utf8), time: time)
                    }
                    #expect(try Self.post(port: port, body: body, headers: ["Platformd-Event-Id": id, "Platformd-Signature": signed(Date(), "wrong")]) == 401)
                    #expect(
                        try Self.post(
                            port: port, body: body, headers: ["Platformd-Event-Id": id, "Platformd-Signature": signed(Date().addingTimeInterval(-600), secret)])
                            == 401)
                    #expect(try Self.post(port: port, body: body, headers: ["Platformd-Event-Id": id, "Platformd-Signature": signed(Date(), secret)]) == 200)
                    // (Its log line was written before the answer; the test reads the pipe on its own time.)
                    #expect(await eventually { receiver.stderrText.contains("duplicate \(id)") }, "\(receiver.stderrText)")
                    #expect(receiver.stderrText.contains("refused: bad or stale signature"))
                    let lines = String(decoding: receiver.stdoutBytes, as: UTF8.self).split(separator: "\n")
                    #expect(lines.count == 2)
                    try server.closeStdin()
                    #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
                }
            }
        }
    }

    // MARK: - operators

    @Test func operatorsListEventsAndRequeueAFailedOne() async throws {
        let tenant = Hosted.tenant
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("ops.sqlite").path
            let store = try await SQLiteSessionStore.open(path: db)
            let time = Date()
            for (index, webhooks) in [["http://127.0.0.1:9/hooks"], []].enumerated() {
                let state = SessionState(
                    id: "s\(index)", tenant: tenant, userId: "u\(index)", flow: "onboarding", status: .completed,
                    path: [], arrivedAt: time, createdAt: time, updatedAt: time)
                let event = OutboxEvent(
                    event: PlatformEvent(
                        id: "evt_\(index)", type: .sessionCompleted, tenant: tenant, userId: "u\(index)",
                        sessionId: "s\(index)", occurredAt: time, data: ["records": [:]]),
                    webhooks: webhooks, deliverUntil: time.addingTimeInterval(60))
                try await store.updateSession(tenant: tenant, key: .id("s\(index)")) { _ in
                    (SessionCommit(state: state, events: [], outbox: [event]), ())
                }
            }
            let claim = try #require(try await store.claimDeliveries(now: time, limit: 1, lease: 30, host: "test").claims.first)
            try await store.recordAttempt(claim, host: "test", .failed(at: time, status: 502, error: "HTTP 502"))
            try await store.close()

            let all = try await AuthTests.command(["events", tenant, "--db", db])
            #expect(all.status == 0, "\(all.stderr)")
            let lines = all.stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix("cursor") == true)
            #expect(lines.contains { $0.contains("evt_0") && $0.contains("failed") && $0.contains("last: HTTP 502") })
            #expect(lines.contains { $0.contains("evt_1") && $0.contains("no webhook") })
            let failed = try await AuthTests.command(["events", tenant, "--failed", "--db", db])
            #expect(failed.stdout.contains("evt_0") && !failed.stdout.contains("evt_1"))

            let retried = try await AuthTests.command(["events", "retry", "evt_0", "--db", db])
            #expect(retried.status == 0, "\(retried.stderr)")
            #expect(retried.stdout == "re-queued 1 delivery of evt_0\n")
            let again = try await AuthTests.command(["events", "retry", "evt_0", "--db", db])
            #expect(again.status == 64)
            #expect(again.stderr.contains("no failed delivery"))
            let after = try await AuthTests.command(["events", tenant, "--db", db])
            #expect(after.stdout.split(separator: "\n").contains { $0.contains("evt_0") && $0.contains("pending") })
            #expect(try await AuthTests.command(["events", tenant, "--failed", "--db", db]).stdout == "no failed events for \(tenant)\n")
        }
    }
}
