import PlatformCore

/// Submitting generating_coach: builds the persona and writes the two records, `user`
/// (`AirFitUser`) and `onboarding_profile` (`OnboardingProfile`), in the completing transaction
/// (the seed saves `User` and `OnboardingProfile` at this screen).
struct AirFitCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        let answers = try BlueprintAnswers(context)
        let onboarding = OnboardingProfile(
            personaProfile: PersonaProfile(answers: answers, completedAt: context.now),
            communicationPreferences: CommunicationPreferences(answers: answers),
            establishBaseline: OnboardingProfile.establishBaselineDefault)
        let name = context.user.personalName(default: "").isEmpty ? nil : context.displayName
        let records = [
            AirFitUser.recordName: try JSONValue(encoding: AirFitUser(preferredUnits: answers.units)),
            OnboardingProfile.recordName: try JSONValue(encoding: onboarding),
        ]
        return CompletionResult(
            records: records,
            message: name.map { "Your AirFit Coach is ready, \($0)." } ?? "Your AirFit Coach is ready.",
            screen: CoachProfileScreen(answers: answers, name: name, establishBaseline: onboarding.establishBaseline).screen)
    }
}
