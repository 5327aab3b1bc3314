import Foundation
import PlatformClient
import PlatformClientTesting
import PlatformProtocol
import PlatformTesting
import Testing

/// The AirFit flow walked to completion through `PlatformClient` against the real `platformd` on a
/// Unix socket (moved from PlatformClientTests, which walks every hosted tenant generically).
@Suite("PlatformClient walk: AirFit", .timeLimit(.minutes(5)))
struct ClientWalkTests {
    /// Every step's answers, `describe_own` at the aspiration (so the goal is analysed).
    static let steps: [(id: String, values: [String: JSONValue])] = [
        ("opening_screen", [:]),
        ("life_snapshot", ["lifeSnapshot": ["frequentTravel", "prefersEvening"]]),
        ("core_aspiration", ["aspirationPreset": "describe_own", "aspirationText": "Lose 10 pounds by summer"]),
        ("coaching_style", ["authoritativeDirect": 0, "empatheticEncouraging": 0, "analyticalInsightful": 0, "playfullyProvocative": 0]),
        ("engagement_preferences", ["engagementPreset": "consistentBalanced"]),
        (
            "typical_availability",
            [
                "availability": [
                    ["dayOfWeek": 6, "startTime": "09:00", "endTime": "10:30"],
                    ["dayOfWeek": 2, "startTime": "19:00", "endTime": "20:00"],
                ]
            ]
        ),
        ("sleep_and_boundaries", ["sleepBedtime": "23:30", "sleepWakeTime": "07:00"]),
        ("motivation_and_checkins", ["preferredUnits": "metric"]),
        ("generating_coach", [:]),
    ]

    @Test func airFit() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            var view = try await client.start(tenant: "airfit", userId: "walker", user: .init(firstName: "Jordan Lee"))
            #expect(view.step?.id == "opening_screen")
            #expect(view.step?.title == "Let's design your AirFit Coach.")
            #expect(view.progress.label == "1 of 8")

            // Maybe Later, then flow.start returns the deferred session.
            view = try await client.submit(view, action: .later)
            #expect(view.status == .deferred)
            let resumed = try await client.start(tenant: "airfit", userId: "walker")
            #expect(resumed.status == .deferred)
            #expect(resumed.sessionId == view.sessionId)

            let steps = Self.steps
            for step in steps {
                #expect(view.step?.id == step.id)
                if step.id == "typical_availability" {
                    // Overlapping windows are refused with a reason for the person.
                    let overlap = try await #require(throws: PlatformClientError.self) {
                        try await client.submit(
                            view,
                            values: [
                                "availability": [
                                    ["dayOfWeek": 1, "startTime": "07:00", "endTime": "08:00"],
                                    ["dayOfWeek": 1, "startTime": "07:30", "endTime": "09:00"],
                                ]
                            ])
                    }
                    #expect(
                        overlap.fieldErrors == [
                            FieldError(
                                field: "availability", code: .overlap,
                                message: "Monday 07:00–08:00 overlaps Monday 07:30–09:00. Adjust or remove one of them.")
                        ])
                    #expect(overlap.session?.revision == view.revision)
                }
                view = try await client.submit(view, values: step.values)
            }
            #expect(view.status == .completed)
            #expect(view.progress.label == "8 of 8")
            #expect(view.completion?.message == "Your AirFit Coach is ready, Jordan.")
            #expect(view.completion?.records == ["onboarding_profile", "user"])
            #expect(view.completion?.screen?.title == "Your AirFit Coach Is Ready")
            #expect(
                view.completion?.screen?.actions == [
                    StepAction("begin", "Begin with My Coach"), StepAction("refine", "Review & Refine Settings"),
                ])

            let profile = try await client.profile(tenant: "airfit", userId: "walker")
            #expect(profile.records["user"] == ["preferredUnits": "metric"])
            let persona = try #require(profile.records["onboarding_profile"]?["personaProfile"])
            #expect(persona["goal"]?["text"] == "Lose 10 pounds by summer")
            #expect(persona["coachingBlend"]?["authoritativeDirect"] == 25)
            let updated = try await client.updateProfile(tenant: "airfit", userId: "walker", values: ["establishBaseline": false])
            #expect(updated.records["onboarding_profile"]?["establishBaseline"] == false)

            try await client.close()
        }
    }

    /// The server hands AirFit its own HTTP client (`ServerOutboundHTTP`): a tenant's analyzer
    /// sends through it, its User-Agent says so (Foundation's `URLSession` sends its own), and
    /// the stub's goal is the one kept.
    @Test func theAnalyzerSendsThroughTheServersClient() async throws {
        let content = #"{"goal_type":"strength","primary_metric":"one_rep_max","target":{"value":225,"unit":"lb"}}"#
        let completion: JSONValue = ["choices": [["index": 0, "message": ["role": "assistant", "content": .string(content)]]]]
        let stub = try StubHTTPServer { _ in .json(status: 200, body: completion.serialized()) }
        defer { stub.close() }
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("tenants.json")
            let tenants: JSONValue = [
                "tenants": [
                    ["id": "airfit", "plugin": "AirFit", "settings": ["analyzerUrl": .string(stub.baseURL.absoluteString), "analyzerModel": "stub-model"]]
                ]
            ]
            try Data(tenants.serializedBytes()).write(to: file)
            try await PlatformdServer.with(arguments: ["--db", ":memory:", "--tenants", file.path]) { server in
                let client = try await server.connect()
                var view = try await client.start(tenant: "airfit", userId: "analysed", user: .init(firstName: "Sam"))
                for step in Self.steps { view = try await client.submit(view, values: step.values) }
                #expect(view.status == .completed)
                let profile = try await client.profile(tenant: "airfit", userId: "analysed")
                let goal = profile.records["onboarding_profile"]?["personaProfile"]?["goal"]
                #expect(goal?["analysis"] == ["source": "analysis", "analyzer": "openai-compatible", "fellBack": false])
                #expect(goal?["structured"]?["target"] == ["value": 225, "unit": "lb"])
                let received = stub.received
                #expect(received.count == 1)
                #expect(received.first?.head.lowercased().contains("user-agent: platformd/") == true, "\(received.first?.head ?? "")")
                try await client.close()
            }
        }
    }
}
