import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Sessions live in the `--db` file, not in the process.
@Suite("platformd restart", .serialized)  // one tenant at a time: fewer servers at once on a small machine
struct RestartTests {
    /// On each registered tenant: the first step that asks something is answered (with
    /// `GenericAnswers`), the server stops, and a new one on the same file shows the moved session,
    /// resumes it, and goes back to the answered step with the answers kept.
    @Test(arguments: Hosted.tenants)
    func sessionSurvivesARestartOnTheSameDatabase(tenant: String) async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("restart.sqlite").path
            let (moved, answered) = try await PlatformdProcess.with(["serve", "--db", db]) { server -> (JSONValue, [String: JSONValue]) in
                let reply = try await server.call("flow.start", ["tenant": .string(tenant), "userId": "restart-user", "user": ["firstName": "Alex"]])
                var view = try #require(reply["result"], "flow.start failed: \(reply.serialized())")
                var id: Int64 = 1
                // Past the steps that ask nothing, to the first one with fields.
                while view["step"]?["fields"]?.arrayValue?.isEmpty != false {
                    id += 1
                    let next = try await server.call(
                        "flow.submit",
                        [
                            "tenant": .string(tenant), "sessionId": view["sessionId"]!, "stepId": view["step"]?["id"] ?? .null,
                            "revision": view["revision"]!,
                        ], id: .int(id))
                    view = try #require(next["result"], "flow.submit failed: \(next.serialized())")
                    try #require(view["status"] == "active" && id < 20, "no step with fields: \(view.serialized())")
                }
                let answered = view
                var answers = GenericAnswers()
                var values: [String: JSONValue] = [:]
                while true {
                    values = try await answers.values(for: answered["step"]?["fields"]?.arrayValue ?? [])
                    id += 1
                    let submitted = try await server.call(
                        "flow.submit",
                        [
                            "tenant": .string(tenant), "sessionId": answered["sessionId"]!, "stepId": answered["step"]?["id"] ?? .null,
                            "revision": answered["revision"]!, "values": .object(values),
                        ], id: .int(id))
                    if let next = submitted["result"] {
                        view = next
                        break
                    }
                    let again = answers.retry(after: submitted["error"]?["data"]?["errors"]?.arrayValue ?? [])
                    try #require(again, "\(submitted.serialized())")
                }
                #expect(view["revision"] == .int((answered["revision"]?.intValue).map { Int64($0 + 1) } ?? -1))
                #expect(view["step"]?["id"] != answered["step"]?["id"])
                try server.closeStdin()
                #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
                // The fields always shown (a hidden field's value is dropped, not kept).
                let shown = (answered["step"]?["fields"]?.arrayValue ?? []).filter { $0["visibleWhen"].nonNull == nil }.compactMap { $0["id"]?.stringValue }
                return (view, values.filter { shown.contains($0.key) })
            }
            #expect(FileManager.default.fileExists(atPath: db))
            let sessionId = try #require(moved["sessionId"]?.stringValue)
            let revision = try #require(moved["revision"]?.intValue)

            try await PlatformdProcess.with(["serve", "--db", db]) { server in
                let reply = try await server.call("flow.get", ["tenant": .string(tenant), "sessionId": .string(sessionId)])
                let view = try #require(reply["result"], "flow.get after restart failed: \(reply.serialized())")
                #expect(view == moved)
                let resumed = try await server.call("flow.start", ["tenant": .string(tenant), "userId": "restart-user"], id: 2)
                #expect(resumed["result"]?["sessionId"]?.stringValue == sessionId)
                #expect(resumed["result"]?["step"]?["id"] == moved["step"]?["id"])
                #expect(resumed["result"]?["revision"] == moved["revision"])
                let back = try await server.call(
                    "flow.back", ["tenant": .string(tenant), "sessionId": .string(sessionId), "revision": .int(Int64(revision))], id: 3)
                let fields = back["result"]?["step"]?["fields"]?.arrayValue ?? []
                #expect(!answered.isEmpty)
                for (field, value) in answered {
                    // The server may store an answer normalised (trimmed); the generic answers are already plain.
                    #expect(fields.first { $0["id"] == .string(field) }?["value"] == value, "\(tenant).\(field): \(back.serialized())")
                }
                try server.closeStdin()
                #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
            }
        }
    }
}
