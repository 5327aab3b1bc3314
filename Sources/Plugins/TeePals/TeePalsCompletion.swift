import Logging
import PlatformCore

/// Tier 1 complete: the public profile other golfers see, and the private record of the age check.
struct TeePalsCompletion: CompletionHandler {
    let logger: Logger

    static let locationKeys = ["cityId", "label", "latitude", "longitude", "countryCode"]

    func complete(_ context: StepContext) throws -> CompletionResult {
        let nickname = context.answers(of: "nickname")?["nickname"]
        let location = context.answers(of: "location")?["location"]?.objectValue
        let gender = context.answers(of: "gender")?["gender"]
        let ageCheck = context.answers(of: "birthdate")
        // The engine only completes a walked path, so this guards against a broken flow, not users.
        var missing: [FieldError] = []
        if nickname == nil { missing.append(Self.missing("nickname", "Enter a nickname.")) }
        if ageCheck?["ageVerified"] != true { missing.append(Self.missing("birthdate", "Confirm your birthday.")) }
        if location == nil { missing.append(Self.missing("location", "Choose your city.")) }
        if gender == nil { missing.append(Self.missing("gender", "Choose how you identify.")) }
        guard missing.isEmpty, let nickname, let location, let gender, let ageCheck else {
            throw ValidationFailure(missing)
        }

        var profile: [String: JSONValue] = ["nickname": nickname, "gender": gender, "photoUrl": .null, "skillLevel": .null]
        for key in Self.locationKeys { profile[key] = location[key] ?? .null }
        let privateRecord: JSONValue = [
            "ageVerified": true, "ageVerifiedAt": ageCheck["ageVerifiedAt"] ?? .null,
        ]
        logger.info("tier 1 complete", metadata: ["tenant": "\(context.tenant)"])
        return CompletionResult(
            records: ["profile_public": .object(profile), "profile_private": privateRecord],
            message: "Welcome to TeePals, \(nickname.stringValue ?? context.displayName)!")
    }

    static func missing(_ field: String, _ message: String) -> FieldError {
        FieldError(field: field, code: .required, message: message)
    }
}
