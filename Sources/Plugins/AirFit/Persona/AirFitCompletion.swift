import PlatformCore

/// Submitting generating_coach: builds the persona and writes the two records in the
/// completing transaction (the seed saves `User` and `OnboardingProfile` at this screen).
struct AirFitCompletion: CompletionHandler {
    static let userRecord = "user"
    static let profileRecord = "onboarding_profile"
    static let establishBaselineDefault = true

    func complete(_ context: StepContext) throws -> CompletionResult {
        let answers = try BlueprintAnswers(context)
        let persona = PersonaProfile(answers: answers, completedAt: context.now)
        let name = context.user.personalName(default: "").isEmpty ? nil : context.displayName
        let records: [String: JSONValue] = [
            Self.userRecord: ["preferredUnits": .string(answers.units.rawValue)],
            Self.profileRecord: [
                "personaProfile": persona.json,
                "communicationPreferences": persona.communicationPreferences,
                "establishBaseline": .bool(Self.establishBaselineDefault),
            ],
        ]
        return CompletionResult(
            records: records,
            message: name.map { "Your AirFit Coach is ready, \($0)." } ?? "Your AirFit Coach is ready.",
            screen: CoachProfileScreen(answers: answers, name: name, establishBaseline: Self.establishBaselineDefault).screen)
    }
}
