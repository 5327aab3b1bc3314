import Foundation
import PlatformClient
import PlatformClientTesting
import PlatformProtocol
import Testing

/// The StatLocker flow walked to completion through `PlatformClient` against the real `platformd` on a
/// Unix socket (moved from PlatformClientTests, which walks every hosted tenant generically).
@Suite("PlatformClient walk: StatLocker", .timeLimit(.minutes(5)))
struct ClientWalkTests {
    @Test func statLocker() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            var view = try await client.start(
                tenant: "statlocker", userId: "walker",
                user: .init(firstName: "Alex", lastName: "Morgan", email: "alex@example.com"))
            let first = view
            #expect(view.status == .active)
            #expect(view.revision == 0)
            #expect(view.step?.id == "sport")
            #expect(view.step?.title == "Hey Alex 👋 What sport do you play?")
            #expect(view.progress.label == "Step 1 of 11")
            #expect(view.locale == "en")

            // Before completion the onboarding gate blocks everything.
            let blocked = try await client.checkGate(tenant: "statlocker", userId: "walker", action: "log_stats")
            #expect(!blocked.allowed)
            #expect(blocked.gate == "onboarding")

            // A locked sport: -32004 with the field's reason and the unchanged session.
            let locked = try await #require(throws: PlatformClientError.self) {
                try await client.submit(view, values: ["sport": "basketball"])
            }
            #expect(locked.kind == .server)
            #expect(locked.code == -32004)
            #expect(locked.errorCode == .validationFailed)
            #expect(locked.fieldErrors.count == 1)
            #expect(locked.fieldErrors.first?.field == "sport")
            #expect(locked.fieldErrors.first?.code == .locked)
            #expect(locked.session?.revision == 0)
            #expect(locked.session?.step?.id == "sport")

            let answers = WalkAnswers.lacrosseMidfielder
            for (index, answer) in answers.enumerated() {
                #expect(view.step?.id == answer.step)
                #expect(view.progress.label == "Step \(index + 1) of 11")
                let revision = view.revision
                view = try await client.submit(view, values: answer.values)
                #expect(view.revision == revision + 1)

                if answer.step == "profile_details" {
                    // Back: the previous step with its answers, then forward again with them.
                    view = try await client.back(view)
                    #expect(view.step?.id == "profile_details")
                    #expect(view.step?.field("gradYear")?.value == 2026)
                    #expect(view.step?.field("level")?.value == "JV")
                    view = try await client.submit(view, values: savedValues(view))
                    #expect(view.step?.id == "position")
                }
            }
            #expect(view.step?.id == "review")
            #expect(view.step?.title == "Review your profile, Alex")

            // The first view is stale now: -32003 with the session as it stands.
            let stale = try await #require(throws: PlatformClientError.self) {
                try await client.submit(first, values: ["sport": "lacrosse", "note": "resent late"])
            }
            #expect(stale.errorCode == .conflict)
            #expect(stale.session?.revision == view.revision)
            #expect(stale.session?.step?.id == "review")
            #expect(stale.fieldErrors.isEmpty)

            // Edit: back to the goals and forward again, with the answers pre-filled.
            view = try await client.goto(view, stepId: "season_goals")
            #expect(view.step?.id == "season_goals")
            #expect(view.step?.field("seasonGoals")?.value?.arrayValue?.count == 3)
            view = try await client.submit(view, values: savedValues(view))
            for step in ["goals_locked_in", "tone_quiz", "almost_there"] {
                #expect(view.step?.id == step)
                view = try await client.submit(view, values: savedValues(view))
            }
            #expect(view.step?.id == "review")
            #expect(view.step?.actions.first == StepAction("continue", "Enter Your Locker"))

            view = try await client.submit(view)
            #expect(view.status == .completed)
            #expect(view.step == nil)
            #expect(view.completion?.message == "Welcome to StatLocker, Alex!")
            #expect(view.completion?.records == ["profile", "team"])
            #expect(view.progress.label == "Step 11 of 11")

            // Read back by id and by user.
            #expect(try await client.get(tenant: "statlocker", sessionId: view.sessionId) == view)
            #expect(try await client.get(tenant: "statlocker", userId: "walker").sessionId == view.sessionId)

            let profile = try await client.profile(tenant: "statlocker", userId: "walker")
            #expect(profile.userId == "walker")
            let record = try #require(profile.records["profile"])
            #expect(record["position"] == "Midfield")
            #expect(record["gradYear"] == 2026)
            #expect(record["seasonGoals"]?.arrayValue?.map { $0["isCustom"] } == [false, false, true])
            #expect(profile.records["team"]?["hsTeamName"] == "Duxbury High School")

            let updated = try await client.updateProfile(tenant: "statlocker", userId: "walker", values: ["aiTone": "Captain"])
            #expect(updated.records["profile"]?["aiTone"] == "Captain")
            // A key the plugin does not let change: -32004 with no session (it is not a flow command).
            let refused = try await #require(throws: PlatformClientError.self) {
                try await client.updateProfile(tenant: "statlocker", userId: "walker", values: ["position": "Attack"])
            }
            #expect(refused.errorCode == .validationFailed)
            #expect(refused.fieldErrors.map(\.code) == [.notEditable])
            #expect(refused.session == nil)

            // What the app's backend is told: the completion, then the update, a page at a time.
            let page = try await client.events(tenant: "statlocker", limit: 1)
            #expect(page.events.map(\.type) == [.sessionCompleted])
            #expect(page.events.first?.records == profile.records)
            #expect(page.events.first?.sessionId == view.sessionId)
            let rest = try await client.events(tenant: "statlocker", after: page.next)
            #expect(rest.events.map(\.type) == [.profileUpdated])
            #expect(rest.events.first?.records == updated.records)

            let open = try await client.checkGate(tenant: "statlocker", userId: "walker", action: "log_stats")
            #expect(open.allowed)

            // The flow as data, and the walk in the funnel.
            let description = try await client.describe(tenant: "statlocker")
            #expect(description.flow == "onboarding")
            #expect(description.steps.first?.id == "sport")
            #expect(description.steps.map(\.id).contains("review"))
            #expect(!description.edges.isEmpty)
            #expect(description.mermaid.contains("sport"))
            let funnel = try await client.funnel(
                tenant: "statlocker", since: Date().addingTimeInterval(-3600), until: Date().addingTimeInterval(3600))
            #expect(funnel.started == 1)
            #expect(funnel.completed == 1)
            #expect(funnel.completionRate == 1)
            #expect(funnel.steps.first?.id == "sport")
            #expect(funnel.steps.first?.reached == 1)
            let none = try await client.funnel(tenant: "statlocker", flow: "onboarding", until: Date(timeIntervalSince1970: 0))
            #expect(none.started == 0)

            // Another user whose app asks for Spanish (as iOS's Locale would name it) reads the same step in it.
            let spanish = try await client.start(tenant: "statlocker", userId: "lector", user: .init(firstName: "Alex"), locale: "es-MX")
            #expect(spanish.locale == "es")
            #expect(spanish.step?.title == "Hola, Alex 👋 ¿Qué deporte practicas?")
            #expect(spanish.progress.label == "Paso 1 de 11")
            #expect(spanish.step?.fields.first?.options?.map(\.value) == first.step?.fields.first?.options?.map(\.value))

            try await client.close()
        }
    }

}
