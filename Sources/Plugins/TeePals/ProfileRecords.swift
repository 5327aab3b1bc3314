import Foundation
import PlatformCore

/// The `profile_public` record: what other golfers see (the seed's `profiles_public/{uid}`).
/// Written at tier 1's completion; `profile.update` sets the photo and skill level tier 2 asks for.
struct PublicProfile: Codable, Sendable, Hashable {
    static let recordName = "profile_public"

    var nickname: String
    /// The chosen city, as the `location` answer keeps it (`CitySearch.resolve`): its GeoNames id.
    var cityId: String
    /// "Austin, TX, United States".
    var label: String
    var latitude: Double
    var longitude: Double
    /// ISO 3166-1 alpha-2.
    var countryCode: String
    /// `male`, `female`, `non_binary` or `prefer_not_to_say`.
    var gender: String
    /// An https URL; nil (written as `null`) until set.
    var photoUrl: String?
    /// `beginner`, `intermediate`, `advanced` or `expert`; nil (written as `null`) until set.
    var skillLevel: String?

    /// The stored `location` answer's keys, copied into the profile.
    struct City: Codable, Sendable, Hashable {
        var cityId: String
        var label: String
        var latitude: Double
        var longitude: Double
        var countryCode: String
    }

    init(nickname: String, city: City, gender: String, photoUrl: String? = nil, skillLevel: String? = nil) {
        self.nickname = nickname
        self.cityId = city.cityId
        self.label = city.label
        self.latitude = city.latitude
        self.longitude = city.longitude
        self.countryCode = city.countryCode
        self.gender = gender
        self.photoUrl = photoUrl
        self.skillLevel = skillLevel
    }

    /// Every key is written; a photo or skill level not set is `null`, not absent.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(nickname, forKey: .nickname)
        try container.encode(cityId, forKey: .cityId)
        try container.encode(label, forKey: .label)
        try container.encode(latitude, forKey: .latitude)
        try container.encode(longitude, forKey: .longitude)
        try container.encode(countryCode, forKey: .countryCode)
        try container.encode(gender, forKey: .gender)
        try container.encode(photoUrl, forKey: .photoUrl)
        try container.encode(skillLevel, forKey: .skillLevel)
    }
}

/// The `profile_private` record: the fact of the age check and its time, never the birthdate.
/// The `birthdate` step saves its answer in this shape (`BirthdateStep.stored`).
struct PrivateProfile: Codable, Sendable, Hashable {
    static let recordName = "profile_private"

    /// Always true in a record: under 13 the session is rejected and nothing is written.
    var ageVerified: Bool
    /// A contract timestamp (ISO 8601 UTC, whole seconds).
    var ageVerifiedAt: Date
}
