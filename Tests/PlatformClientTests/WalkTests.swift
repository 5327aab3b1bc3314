import Foundation
import PlatformClient
import PlatformClientTesting
import PlatformProtocol
import PlatformTesting
import Testing

/// Every hosted tenant's flow walked to completion through `PlatformClient` against the real
/// `platformd` on a Unix socket, each step answered from its served fields (`GenericAnswers`),
/// then every read the client offers on the result. Each plugin's own walk through the client,
/// with its answers and copy, is in its test target (`ClientWalkTests`).
///
/// The time limit guards against a hang, not a speed: a walk takes about half a second alone, but
/// the first tenant's walk runs in the opening minute of a whole run, when some 80 `platformd`
/// children starting on two cores starve this process (a CI run's took over 120 s).
@Suite("PlatformClient walks", .serialized, .timeLimit(.minutes(5)))  // one tenant at a time
struct WalkTests {
    @Test(arguments: try await Hosted.tenants())
    func walkToCompletionAndReadBack(tenant: String) async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            let first = try await client.start(tenant: tenant, userId: "walker", user: .init(firstName: "Alex"))
            #expect(first.status == .active)
            #expect(first.revision == 0)
            #expect(first.tenant == tenant)

            // Before completion the onboarding gate blocks everything.
            let blocked = try await client.checkGate(tenant: tenant, userId: "walker", action: "any_action")
            #expect(!blocked.allowed)
            #expect(blocked.gate != nil)

            var view = first
            var submits = 0
            while view.status == .active, submits < 80 {
                let revision = view.revision
                (view, _) = try await Hosted.answer(client, view)
                #expect(view.revision == revision + 1)
                submits += 1
            }
            #expect(view.status == .completed, "\(view)")
            #expect(view.step == nil)
            #expect(view.completion?.records.isEmpty == false)

            // The first view is stale now: -32003 with the session as it stands.
            let stale = try await #require(throws: PlatformClientError.self) {
                try await client.submit(first, values: ["note": "resent late"])
            }
            #expect(stale.errorCode == .conflict || stale.errorCode == .invalidState)
            #expect(stale.session?.revision == view.revision)

            // Read back by id and by user.
            #expect(try await client.get(tenant: tenant, sessionId: view.sessionId) == view)
            #expect(try await client.get(tenant: tenant, userId: "walker").sessionId == view.sessionId)

            let profile = try await client.profile(tenant: tenant, userId: "walker")
            #expect(profile.tenant == tenant)
            #expect(profile.userId == "walker")
            #expect(Set(profile.records.keys) == Set(view.completion?.records ?? []))

            // What the app's backend is told: the completion.
            let page = try await client.events(tenant: tenant, limit: 1)
            #expect(page.events.map(\.type) == [.sessionCompleted])
            #expect(page.events.first?.records == profile.records)
            #expect(page.events.first?.sessionId == view.sessionId)
            let rest = try await client.events(tenant: tenant, after: page.next)
            #expect(rest.events.isEmpty)

            // After completion an action no plugin gate guards goes through.
            #expect(try await client.checkGate(tenant: tenant, userId: "walker", action: "any_action").allowed)

            // The flow as data, and the walk in the funnel.
            let description = try await client.describe(tenant: tenant)
            #expect(description.tenant == tenant)
            #expect(description.flow == "onboarding")
            #expect(description.steps.map(\.id).contains(first.step?.id ?? "?"))
            #expect(!description.edges.isEmpty)
            #expect(description.mermaid.hasPrefix("flowchart"))
            let funnel = try await client.funnel(
                tenant: tenant, since: Date().addingTimeInterval(-3600), until: Date().addingTimeInterval(3600))
            #expect(funnel.started == 1)
            #expect(funnel.completed == 1)
            #expect(funnel.completionRate == 1)
            #expect(funnel.steps.first { $0.id == first.step?.id }?.reached == 1)
            let none = try await client.funnel(tenant: tenant, flow: "onboarding", until: Date(timeIntervalSince1970: 0))
            #expect(none.started == 0)

            try await client.close()
        }
    }
}
