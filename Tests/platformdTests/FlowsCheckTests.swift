import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// `platformd flows check` before a deploy, and `serve` after it, on a database with sessions in
/// flight: one on the version served, one on a version no longer served whose step is gone.
@Suite("platformd flows check")
struct FlowsCheckTests {
    /// A session of an older version of the tenant's flow, as an earlier binary left it: on a
    /// step that no longer exists, with an answer to it.
    static func plantOldSession(db: String, tenant: String, firstStep: String) async throws -> String {
        let store = try await SQLiteSessionStore.open(path: db)
        let now = Date()
        let old = SessionState(
            id: "old-session", tenant: tenant, userId: "old-user", flow: "onboarding", flowVersion: "0", flowFingerprint: "0000000000000000",
            revision: 3, path: [firstStep, "retired-step"], answers: ["retired-step": ["retiredField": "kept?"]],
            arrivedAt: now, createdAt: now, updatedAt: now)
        try await store.updateSession(tenant: tenant, key: .id(old.id)) { _ in (SessionCommit(state: old, events: []), ()) }
        try await store.close()
        return old.id
    }

    static func check(_ db: String, json: Bool = false) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await AuthTests.command(["flows", "check", "--db", db] + (json ? ["--json"] : []))
    }

    @Test func sessionsOnTheServedVersionPassAndAMovedBackOneFailsWith65() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("flows.sqlite").path
            let tenant = Hosted.tenant
            let firstStep = try await Hosted.firstStep(of: tenant)
            let current = try await PlatformdProcess.with(["serve", "--db", db]) { server in
                let started = try await server.call("flow.start", ["tenant": .string(tenant), "userId": "current-user"])
                try server.closeStdin()
                _ = try await server.waitForExit()
                return try #require(started["result"])
            }
            let version = try #require(current["flowVersion"]?.stringValue)

            let safe = try await Self.check(db)
            #expect(safe.status == 0, "\(safe.stdout)\(safe.stderr)")
            #expect(safe.stdout.contains("1 on version \(version)"), "\(safe.stdout)")
            #expect(safe.stdout.contains("ok: "), "\(safe.stdout)")

            let oldID = try await Self.plantOldSession(db: db, tenant: tenant, firstStep: firstStep)
            let unsafe = try await Self.check(db)
            #expect(unsafe.status == 65, "\(unsafe.stdout)\(unsafe.stderr)")
            #expect(unsafe.stdout.contains("resume at \(firstStep) instead of retired-step"), "\(unsafe.stdout)")
            #expect(unsafe.stdout.contains("retired-step.retiredField (not declared)"), "\(unsafe.stdout)")
            #expect(unsafe.stdout.contains("not safe: 1 session(s)"), "\(unsafe.stdout)")

            let report = try await Self.check(db, json: true)
            #expect(report.status == 65)
            let json = try JSONValue.parse(report.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(json["ok"] == false && json["unsafeSessions"] == 1)
            let flow = try #require(json["flows"]?.arrayValue?.first { $0["tenant"] == .string(tenant) })
            #expect(flow["version"] == .string(version))
            let move = try #require(flow["moves"]?[0])
            #expect(move["fromVersion"] == "0" && move["sessions"] == 1 && move["declared"] == 0)
            #expect(move["resumed"] == [["from": "retired-step", "to": .string(firstStep), "sessions": 1, "declared": false]])
            #expect(move["dropped"] == [["step": "retired-step", "field": "retiredField", "sessions": 1, "declared": false]])
            #expect(Set(flow["inFlight"]?.arrayValue?.compactMap { $0["fate"]?.stringValue } ?? []) == ["served", "moves"])

            // After the "deploy": serve warns at start, and the old session is moved on its first
            // read, onto a step of the served flow, never a blank view or -32603.
            try await PlatformdProcess.with(["serve", "--db", db]) { server in
                let moved = try await server.call("flow.get", ["tenant": .string(tenant), "sessionId": .string(oldID)])
                #expect(moved["result"]?["flowVersion"] == .string(version), "\(moved.serialized())")
                #expect(moved["result"]?["step"]?["id"] == .string(firstStep), "\(moved.serialized())")
                #expect(moved["result"]?["revision"] == 4)
                #expect(
                    server.stderrText.split(separator: "\n").contains { $0.contains("warning platformd:") && $0.contains("flows: not safe") },
                    "\(server.stderrText)")
                try server.closeStdin()
                _ = try await server.waitForExit()
            }
            let after = try await Self.check(db)
            #expect(after.status == 0, "moved for good: \(after.stdout)")
        }
    }

    @Test func aMissingDatabaseIsExit66() async throws {
        try await withTemporaryDirectory { directory in
            let result = try await Self.check(directory.appendingPathComponent("nope.sqlite").path)
            #expect(result.status == 66)
        }
    }
}
