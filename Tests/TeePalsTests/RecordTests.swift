import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import TeePals

/// The typed records (`PublicProfile`, `PrivateProfile`) read and write exactly the JSON a real
/// completion puts on the wire.
@Suite("Typed records")
struct RecordTests {
    /// Decodes a record from `profile.get` and encodes it again: the same JSON, byte for byte.
    func roundTrip<Record: Codable>(_ type: Record.Type, _ wire: JSONValue?) throws -> Record {
        let wire = try #require(wire)
        let record = try wire.decode(Record.self)
        #expect(try JSONValue(encoding: record).serialized() == wire.serialized())
        return record
    }

    @Test func completionRecordsRoundTrip() async throws {
        let d = try await teePals()
        _ = try await d.completed("u1")
        let records = try await d.profile("u1")["records"]

        let profile = try roundTrip(PublicProfile.self, records?["profile_public"])
        #expect(
            profile
                == PublicProfile(
                    nickname: "Birdie Queen",
                    city: .init(cityId: "4671654", label: "Austin, TX, United States", latitude: 30.26715, longitude: -97.74306, countryCode: "US"),
                    gender: "female"))
        // Not set yet: present and null, not absent.
        #expect(records?["profile_public"]?.objectValue?["photoUrl"] == .null)
        #expect(records?["profile_public"]?.objectValue?["skillLevel"] == .null)

        let check = try roundTrip(PrivateProfile.self, records?["profile_private"])
        #expect(check == PrivateProfile(ageVerified: true, ageVerifiedAt: testDay))
    }

    @Test func updatedProfileRoundTrips() async throws {
        let d = try await teePals()
        _ = try await d.completed("u1")
        let updated = try await d.call(
            "profile.update",
            [
                "userId": "u1", "values": ["photoUrl": "https://cdn.teepals.example/u1/photo.jpg", "skillLevel": "advanced"],
            ])
        let profile = try roundTrip(PublicProfile.self, updated["records"]?["profile_public"])
        #expect(profile.photoUrl == "https://cdn.teepals.example/u1/photo.jpg")
        #expect(profile.skillLevel == "advanced")
        #expect(profile.nickname == "Birdie Queen")
    }
}
