import PlatformCore

/// The `user` record: the part of the seed's `User` that onboarding sets.
struct AirFitUser: Codable, Sendable, Hashable {
    static let recordName = "user"

    var preferredUnits: PreferredUnits
}

/// The `onboarding_profile` record: the seed's `OnboardingProfile`, with the persona the coach is
/// built from, the preferences notifications obey, and the baseline switch `profile.update` changes.
struct OnboardingProfile: Codable, Sendable, Hashable {
    static let recordName = "onboarding_profile"
    /// The baseline switch starts on (the seed's toggle on the coach-profile screen).
    static let establishBaselineDefault = true

    var personaProfile: PersonaProfile
    var communicationPreferences: CommunicationPreferences
    var establishBaseline: Bool
}

/// `communicationPreferences` (the seed's `CommunicationPreferences`): quiet hours are the sleep
/// window, start to end.
struct CommunicationPreferences: Codable, Sendable, Hashable {
    var quietHours: QuietHours
    var achievementAcknowledgement: AchievementStyle
    var inactivityResponse: InactivityResponse
    var insightCadence: InsightCadence

    /// No notification is sent inside it.
    struct QuietHours: Codable, Sendable, Hashable {
        /// The bedtime, `HH:mm`.
        var start: String
        /// The wake time, `HH:mm`; earlier than `start` when the window wraps past midnight.
        var end: String
        var durationMinutes: Int
    }
}

extension CommunicationPreferences {
    init(answers: BlueprintAnswers) {
        self.init(
            quietHours: QuietHours(
                start: answers.sleep.bedtime.description, end: answers.sleep.wakeTime.description,
                durationMinutes: answers.sleep.durationMinutes),
            achievementAcknowledgement: answers.achievement,
            inactivityResponse: answers.inactivity,
            insightCadence: answers.engagement.insightCadence(for: answers.engagementPreset))
    }
}
