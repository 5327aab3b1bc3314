import Foundation
import PlatformCore
import Testing

/// `platformd funnel`: the same figures as analytics.funnel, read from a database file.
@Suite("platformd funnel")
struct FunnelCommandTests {
    static func submit(_ server: PlatformdProcess, _ session: String, _ step: String, _ revision: Int, _ values: String = "{}") async throws -> JSONValue {
        try await server.request(#"{"jsonrpc":"2.0","id":\#(revision + 100),"method":"flow.submit","params":{"tenant":"aflfantasy","sessionId":"\#(session)","stepId":"\#(step)","revision":\#(revision),"values":\#(values)}}"#)
    }

    static func start(_ server: PlatformdProcess, _ user: String) async throws -> String {
        let reply = try await server.call("flow.start", ["tenant": "aflfantasy", "userId": .string(user)])
        return try #require(reply["result"]?["sessionId"]?.stringValue)
    }

    @Test func printsTheFunnelOfADatabaseAsATableAndAsJSON() async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("funnel.sqlite").path
            let live: JSONValue = try await PlatformdProcess.with(["serve", "--db", db]) { server in
                let finisher = try await Self.start(server, "fan-1")
                _ = try await Self.submit(server, finisher, "splash", 0)
                _ = try await Self.submit(server, finisher, "welcome", 1)
                _ = try await Self.submit(server, finisher, "team_choice", 2, #"{"hasExistingTeam":true}"#)
                _ = try await Self.submit(server, finisher, "personal_info", 3, #"{"firstName":"Sam","email":"sam@example.com"}"#)
                _ = try await Self.submit(server, finisher, "credentials", 4, #"{"teamId":"123456"}"#)
                let done = try await Self.submit(server, finisher, "validation", 5)
                #expect(done["result"]?["status"] == "completed")
                let dropper = try await Self.start(server, "fan-2")
                _ = try await Self.submit(server, dropper, "splash", 0)
                let funnel = try await server.call("analytics.funnel", ["tenant": "aflfantasy"])
                try server.closeStdin()
                #expect(try await server.waitForExit().status == 0)
                return try #require(funnel["result"])
            }
            #expect(live["started"] == 2)
            #expect(live["completed"] == 1)

            let json = try await PlatformdProcess.with(["funnel", "aflfantasy", "--db", db, "--json"]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status == 0)
                return try JSONValue.parse(String(decoding: process.stdoutBytes, as: UTF8.self).trimmingCharacters(in: .newlines))
            }
            #expect(json == live)

            let table = try await PlatformdProcess.with(["funnel", "aflfantasy", "--db", db]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status == 0)
                return String(decoding: process.stdoutBytes, as: UTF8.self)
            }
            #expect(table.contains("started 2  completed 1  deferred 0  rejected 0  completion 50.0%"))
            let welcome = table.split(separator: "\n").first { $0.hasPrefix("welcome ") }
            // step, reached, left, dropped (the median is real elapsed time, so only its presence is checked).
            let cells = welcome?.split(separator: " ").map(String.init) ?? []
            #expect(cells.prefix(4) == ["welcome", "2", "1", "1"])
            #expect(cells.count == 5 && Double(cells[4]) != nil)
            #expect(table.contains("team_choice -> personal_info"))

            let empty = try await PlatformdProcess.with(["funnel", "aflfantasy", "--db", db, "--since", "2999-01-01T00:00:00Z", "--json"]) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status == 0)
                return try JSONValue.parse(String(decoding: process.stdoutBytes, as: UTF8.self).trimmingCharacters(in: .newlines))
            }
            #expect(empty["started"] == 0)
        }
    }

    @Test func badArgumentsAreRefused() async throws {
        for arguments in [["funnel", "aflfantasy", "--db", ":memory:", "--since", "last week"], ["funnel", "nope", "--db", ":memory:"]] {
            try await PlatformdProcess.with(arguments) { process in
                let exit = try await process.waitForExit()
                #expect(exit.status != 0, "\(arguments)")
                #expect(!process.stderrText.isEmpty)
            }
        }
    }
}
