import Foundation
import PlatformClient
import PlatformClientTesting
import PlatformProtocol
import Testing

/// The TeePals flow walked to completion through `PlatformClient` against the real `platformd` on a
/// Unix socket (moved from PlatformClientTests, which walks every hosted tenant generically).
@Suite("PlatformClient walk: TeePals", .timeLimit(.minutes(5)))
struct ClientWalkTests {
    @Test func teePals() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            let intro = try await client.describe(tenant: "teepals")
            #expect(intro.intro?.arrayValue?.count == 3)

            var view = try await client.start(tenant: "teepals", userId: "walker", user: .init(firstName: "Sam"))
            #expect(view.step?.id == "nickname")
            #expect(view.progress.label == "1/4")
            view = try await client.submit(view, values: ["nickname": "  Sam   the Slicer "])
            #expect(view.step?.id == "birthdate")
            view = try await client.submit(view, values: ["birthdate": "1991-08-17"])
            #expect(view.step?.id == "location")

            // The city search: a known city with its coordinates, a capped list, and nothing found.
            let portland = try await client.search(view, field: "location", query: "Portland, ME", limit: 5)
            let city = try #require(portland.results.first)
            #expect(city.value == "4975802")
            #expect(city.label == "Portland, ME, United States")
            #expect(city["latitude"] == 43.65737)
            #expect(city["longitude"] == -70.2589)
            let austin = try await client.search(view, field: "location", query: "austin", limit: 5)
            #expect(!austin.results.isEmpty)
            #expect(austin.results.count <= 5)
            let nothing = try await client.search(view, field: "location", query: "Qwxzzy")
            #expect(nothing.results.isEmpty)
            #expect(nothing.message == "No results found")

            let unknown = try await #require(throws: PlatformClientError.self) {
                try await client.submit(view, values: ["location": "Portland, ME"])
            }
            #expect(unknown.errorCode == .validationFailed)
            #expect(unknown.fieldErrors.first?.code == .unknownCity)
            #expect(unknown.session?.step?.id == "location")

            view = try await client.submit(view, values: ["location": .string(city.value)])
            #expect(view.step?.id == "gender")
            #expect(view.step?.actions.first == StepAction("continue", "Complete Setup"))
            view = try await client.submit(view, values: ["gender": "prefer_not_to_say"])
            #expect(view.status == .completed)
            #expect(view.completion?.message == "Welcome to TeePals, Sam the Slicer!")

            let profile = try await client.profile(tenant: "teepals", userId: "walker")
            #expect(profile.records["profile_public"]?["nickname"] == "Sam the Slicer")
            #expect(profile.records["profile_public"]?["cityId"] == "4975802")
            #expect(profile.records["profile_private"]?["ageVerified"] == true)

            // Tier 2 blocks joining a round until the profile has a photo and a skill level.
            let gated = try await client.checkGate(tenant: "teepals", userId: "walker", action: "join_round")
            #expect(!gated.allowed)
            #expect(gated.gate == "tier2")
            #expect(Set(gated.requirements.map(\.id)) == ["photo", "skillLevel"])
            #expect(gated.requirements.allSatisfy { !$0.satisfied })
            let inSpanish = try await client.checkGate(tenant: "teepals", userId: "walker", action: "join_round", locale: "es")
            #expect(inSpanish.title == "Completa tu perfil")
            #expect(gated.title != inSpanish.title)
            let updated = try await client.updateProfile(
                tenant: "teepals", userId: "walker",
                values: ["photoUrl": "https://img.example/sam.jpg", "skillLevel": "advanced"])
            #expect(updated.records["profile_public"]?["skillLevel"] == "advanced")
            let open = try await client.checkGate(tenant: "teepals", userId: "walker", action: "join_round")
            #expect(open.allowed)
            #expect(open.requirements.allSatisfy { $0.satisfied })

            // A child is turned away; the rejected session takes no more answers (-32005).
            var child = try await client.start(tenant: "teepals", userId: "kid")
            child = try await client.submit(child, values: ["nickname": "Kiddo"])
            let birthdateStep = child
            child = try await client.submit(child, values: ["birthdate": "2019-03-04"])
            #expect(child.status == .rejected)
            #expect(child.rejection == Rejection(code: "underage", message: "You must be 13+ to use TeePals"))
            #expect(child.step == nil)
            var late = birthdateStep
            late.revision = child.revision
            let refused = try await #require(throws: PlatformClientError.self) {
                try await client.submit(late, values: ["birthdate": "1990-01-01"])
            }
            #expect(refused.errorCode == .invalidState)
            #expect(refused.session?.status == .rejected)

            try await client.close()
        }
    }

}
