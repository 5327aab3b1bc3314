import Foundation
import PlatformCore

/// Tier 2: the social actions wait for a profile photo and a skill level, both set with
/// `profile.update` after onboarding. Every other action is not this gate's business.
struct ProfileGate: Gate {
    let id = "tier2"

    static let guardedActions: Set<String> = ["join_round", "create_post", "host_round", "send_message"]
    static let title = "Complete Your Profile"
    static let message = "To join rounds and connect with golfers, please add:"
    static let cta = "Add Photo & Skill Level"

    func decide(action: String, profile: Profile) -> GateDecision? {
        guard Self.guardedActions.contains(action) else { return nil }
        let record = try? profile.records[PublicProfile.recordName]?.decode(PublicProfile.self)
        let requirements = [
            GateRequirement(id: "photo", label: "Profile photo", satisfied: record?.photoUrl != nil),
            GateRequirement(id: "skillLevel", label: "Skill level", satisfied: record?.skillLevel != nil),
        ]
        if requirements.allSatisfy(\.satisfied) {
            return GateDecision(action: action, allowed: true, requirements: requirements)
        }
        return GateDecision(
            action: action, allowed: false, gate: id, title: Self.title, message: Self.message, cta: Self.cta,
            requirements: requirements)
    }
}

/// What `profile.update` may change after onboarding: the two things tier 2 asks for.
enum ProfileFields {
    static let maximumPhotoURLLength = 2048

    static let skillLevels = [
        FieldOption(value: "beginner", label: "Beginner"),
        FieldOption(value: "intermediate", label: "Intermediate"),
        FieldOption(value: "advanced", label: "Advanced"),
        FieldOption(value: "expert", label: "Expert"),
    ]

    /// Optional, so that `null` removes a photo or a skill level (and the gate closes again).
    static let editable = [
        FieldSpec(
            id: FieldID.photoUrl, type: .text, label: "Profile photo", required: false,
            placeholder: "https://…", maxLength: maximumPhotoURLLength,
            messages: [.tooLong: "The photo link can be at most \(maximumPhotoURLLength) characters."], pattern: secureURL),
        FieldSpec(
            id: FieldID.skillLevel, type: .choice, label: "Skill level", required: false, options: skillLevels,
            messages: [.notAnOption: "Choose beginner, intermediate, advanced or expert."]),
    ]

    /// An absolute https URL with a host, in the characters a URL may hold (RFC 3986), checked
    /// with the other fields' rules so a bad link is reported beside any other refused key.
    static let secureURL = try! FieldPattern(
        #"https://[A-Za-z0-9.-]+(:[0-9]+)?([/?#][A-Za-z0-9._~!$&'()*+,;=:@%/?#-]*)?"#,
        message: "The photo link must be a full https:// address, like https://example.com/me.jpg.")

    static let noPublicProfile = "This profile has no public details to change."

    /// Writes validated values into the `profile_public` record (a `PublicProfile`); a key not
    /// sent is left as it was, `null` removes the photo or skill level.
    static func updated(_ records: [String: JSONValue], with values: [String: JSONValue]) throws(ValidationFailure) -> [String: JSONValue] {
        let noProfile = ValidationFailure([FieldError(field: nil, code: .notEditable, message: noPublicProfile)])
        guard var profile = try? records[PublicProfile.recordName]?.decode(PublicProfile.self) else { throw noProfile }
        if let photo = values[FieldID.photoUrl] { profile.photoUrl = photo.stringValue }
        if let skill = values[FieldID.skillLevel] { profile.skillLevel = skill.stringValue }
        // Cannot fail for a record that decoded: it holds strings and finite numbers.
        guard let json = try? JSONValue(encoding: profile) else { throw noProfile }
        var records = records
        records[PublicProfile.recordName] = json
        return records
    }
}
