import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import Testing

/// What the engine hands a step or a completion handler about its session.
@Suite struct StepContextTests {
    @Test func contextCarriesTheSessionsUserId() throws {
        let plugin = FixturePlugin()
        let flow = try #require(plugin.flow("onboarding"))
        let engine = FlowEngine(plugin: plugin, flow: flow)
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let state = SessionState(
            id: "s1", tenant: "fixture", userId: "user-42", flow: "onboarding", path: ["welcome"],
            arrivedAt: now, createdAt: now, updatedAt: now)
        #expect(engine.context(state, now: now).userId == "user-42")
    }

    @Test func contextsBuiltWithoutASessionHaveNoUserId() {
        let context = StepContext(tenant: "fixture", displayName: "Friend", now: Date(timeIntervalSince1970: 0))
        #expect(context.userId == "")
    }
}
