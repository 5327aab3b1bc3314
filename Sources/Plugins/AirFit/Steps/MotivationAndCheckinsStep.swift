import PlatformCore

/// Screen 8: how wins are marked, what happens after a quiet spell, and the units to speak in.
struct MotivationAndCheckinsStep: FlowStep {
    static let achievementField = "achievementAcknowledgement"
    static let inactivityField = "inactivityResponse"
    static let unitsField = "preferredUnits"

    let id = AirFitStep.motivationAndCheckins.id
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: Self.achievementField, type: .choice, label: "Acknowledging achievements", required: false,
                options: AchievementStyle.options, defaultValue: .string(AchievementStyle.default.rawValue),
                messages: [.notAnOption: "Choose how your coach should mark your achievements."]),
            FieldSpec(
                id: Self.inactivityField, type: .choice, label: "If you're inactive for a few days", required: false,
                options: InactivityResponse.options, defaultValue: .string(InactivityResponse.default.rawValue),
                messages: [.notAnOption: "Choose how your coach should respond to a quiet spell."]),
            FieldSpec(
                id: Self.unitsField, type: .choice, label: "Units", required: false,
                options: PreferredUnits.options, defaultValue: .string(PreferredUnits.default.rawValue),
                messages: [.notAnOption: "Choose imperial or metric units."]),
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "A few final touches.",
            subtitle: "How your coach marks progress and checks in.",
            actions: [.continue("Next")])
    }

    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        [
            Self.achievementField: .string((AchievementStyle(values[Self.achievementField]) ?? .default).rawValue),
            Self.inactivityField: .string((InactivityResponse(values[Self.inactivityField]) ?? .default).rawValue),
            Self.unitsField: .string((PreferredUnits(values[Self.unitsField]) ?? .default).rawValue),
        ]
    }
}
