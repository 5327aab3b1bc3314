import Foundation
import PlatformCore
import Testing

/// Sessions live in the `--db` file, not in the process.
@Suite("platformd restart")
struct RestartTests {
    /// The first tenant `platform.info` lists with a flow named "onboarding", or nil.
    static func tenantWithOnboardingFlow() async throws -> String? {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.call("platform.info")
            let tenants = reply["result"]?["tenants"]?.arrayValue ?? []
            return tenants.first { $0["flows"]?.arrayValue?.contains("onboarding") == true }?["tenant"]?.stringValue
        }
    }

    @Test(
        .enabled("needs a tenant whose plugin has an \"onboarding\" flow; the registered plugins have no flows yet") {
            try await RestartTests.tenantWithOnboardingFlow() != nil
        })
    func sessionSurvivesARestartOnTheSameDatabase() async throws {
        let tenant = try #require(try await Self.tenantWithOnboardingFlow())
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("restart.sqlite").path
            let started = try await PlatformdProcess.with(["serve", "--db", db]) { server in
                let reply = try await server.call("flow.start", ["tenant": .string(tenant), "userId": "restart-user"])
                let view = try #require(reply["result"], "flow.start failed: \(reply.serialized())")
                try server.closeStdin()
                #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
                return view
            }
            #expect(FileManager.default.fileExists(atPath: db))
            let sessionId = try #require(started["sessionId"]?.stringValue)

            try await PlatformdProcess.with(["serve", "--db", db]) { server in
                let reply = try await server.call("flow.get", ["tenant": .string(tenant), "sessionId": .string(sessionId)])
                let view = try #require(reply["result"], "flow.get after restart failed: \(reply.serialized())")
                #expect(view["sessionId"]?.stringValue == sessionId)
                #expect(view["step"]?["id"] == started["step"]?["id"])
                #expect(view["revision"] == started["revision"])
                #expect(view["status"] == started["status"])
                #expect(view["userId"] == "restart-user")
                try server.closeStdin()
                #expect(try await server.waitForExit() == .init(status: 0, signaled: false))
            }
        }
    }
}
