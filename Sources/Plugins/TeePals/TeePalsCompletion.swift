import PlatformCore

/// Tier 1 complete: the public profile other golfers see (`PublicProfile`), and the private
/// record of the age check (`PrivateProfile`).
struct TeePalsCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        func answer(_ step: String, _ field: String) -> JSONValue? { context.answers(of: step)?[field] }
        let nickname = answer(StepID.nickname, FieldID.nickname)?.stringValue
        let city = try? answer(StepID.location, FieldID.location)?.decode(PublicProfile.City.self)
        let gender = answer(StepID.gender, FieldID.gender)?.stringValue
        let ageCheck = try? context.answers(of: StepID.birthdate).map { try JSONValue.object($0).decode(PrivateProfile.self) }
        // The engine only completes a walked path, so this guards against a broken flow, not users.
        var missing: [FieldError] = []
        if nickname == nil { missing.append(Self.missing(FieldID.nickname, "Enter a nickname.")) }
        if ageCheck?.ageVerified != true { missing.append(Self.missing(FieldID.birthdate, "Confirm your birthday.")) }
        if city == nil { missing.append(Self.missing(FieldID.location, "Choose your city.")) }
        if gender == nil { missing.append(Self.missing(FieldID.gender, "Choose how you identify.")) }
        guard missing.isEmpty, let nickname, let city, let gender, let ageCheck else {
            throw ValidationFailure(missing)
        }

        let records = [
            PublicProfile.recordName: try JSONValue(encoding: PublicProfile(nickname: nickname, city: city, gender: gender)),
            PrivateProfile.recordName: try JSONValue(encoding: ageCheck),
        ]
        context.log(.info, "tier 1 complete", metadata: ["tenant": context.tenant])
        return CompletionResult(records: records, message: "Welcome to TeePals, \(nickname)!")
    }

    static func missing(_ field: String, _ message: String) -> FieldError {
        FieldError(field: field, code: .required, message: message)
    }
}
