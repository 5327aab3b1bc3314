import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AirFit

/// The typed records (`AirFitUser`, `OnboardingProfile` with its `PersonaProfile` and
/// `CommunicationPreferences`) read and write exactly the JSON a real completion puts on the wire.
@Suite struct RecordTests {
    /// Decodes a record from `profile.get` and encodes it again: the same JSON, byte for byte.
    func roundTrip<Record: Codable>(_ type: Record.Type, _ wire: JSONValue?) throws -> Record {
        let wire = try #require(wire)
        let record = try wire.decode(Record.self)
        #expect(try JSONValue(encoding: record).serialized() == wire.serialized())
        return record
    }

    @Test func anAnalysedAspirationRoundTrips() async throws {
        let d = try await driver()
        _ = try await complete(d)
        let records = try await d.profile("u1")["records"]

        #expect(try roundTrip(AirFitUser.self, records?["user"]) == AirFitUser(preferredUnits: .metric))
        let onboarding = try roundTrip(OnboardingProfile.self, records?["onboarding_profile"])
        #expect(onboarding.establishBaseline)
        let persona = onboarding.personaProfile
        #expect(persona.schemaVersion == 1)
        #expect(persona.lifeContext.count == LifeSnapshotFlag.allCases.count)
        #expect(persona.lifeContext[.hasChildren] == true)
        #expect(persona.coachingBlend.values.reduce(0, +) == 100)
        #expect(persona.goal.text == "Run a sub-25 minute 5k in 12 weeks")
        #expect(
            persona.goal.structured
                == StructuredGoal(
                    goalType: .endurance, primaryMetric: .raceTime, target: GoalTarget(value: 25, unit: .min), timeframeWeeks: 12))
        #expect(persona.goal.analysis == .analysis(analyzer: "offline", fellBack: false))
        #expect(persona.availability.map(\.dayOfWeek) == [1, 3])
        #expect(onboarding.communicationPreferences.quietHours == .init(start: "23:15", end: "06:45", durationMinutes: 450))
        #expect(onboarding.communicationPreferences.insightCadence == .weekly)
    }

    @Test func aPresetAspirationRoundTripsWithANullText() async throws {
        let d = try await driver()
        _ = try await complete(d, replacing: [.coreAspiration: ["aspirationPreset": "build_strength"], .typicalAvailability: [:]])
        let wire = try await d.profile("u1")["records"]?["onboarding_profile"]
        let persona = try roundTrip(OnboardingProfile.self, wire).personaProfile
        #expect(persona.goal.text == nil)
        #expect(wire?["personaProfile"]?["goal"]?.objectValue?["text"] == .null)
        #expect(persona.goal.analysis == .preset)
        #expect(wire?["personaProfile"]?["goal"]?["analysis"] == ["source": "preset"])
        #expect(persona.availability.isEmpty)
    }

    @Test func aFallbackAnalysisRoundTrips() async throws {
        let d = try await driver(AirFitPlugin(analyzer: ThrowingAnalyzer()))
        _ = try await complete(
            d,
            replacing: [
                .coreAspiration: [
                    "aspirationPreset": "describe_own", "aspirationText": "Deadlift 140.5 kg by next year",
                ]
            ])
        let persona = try roundTrip(OnboardingProfile.self, try await d.profile("u1")["records"]?["onboarding_profile"]).personaProfile
        #expect(persona.goal.analysis == .analysis(analyzer: "offline", fellBack: true))
        #expect(persona.goal.structured.target == GoalTarget(value: 140.5, unit: .kg))
    }

    @Test func profileUpdateRewritesTheTypedRecord() async throws {
        let d = try await driver()
        _ = try await complete(d)
        var expected = try #require(try await d.profile("u1")["records"]?["onboarding_profile"]?.decode(OnboardingProfile.self))
        let updated = try await d.call("profile.update", ["userId": "u1", "values": ["establishBaseline": false]])
        expected.establishBaseline = false
        #expect(try roundTrip(OnboardingProfile.self, updated["records"]?["onboarding_profile"]) == expected)
    }
}
