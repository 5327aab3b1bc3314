import PlatformCore

/// Screen 8: how wins are marked, what happens after a quiet spell, and the units to speak in.
struct MotivationAndCheckinsStep: FlowStep {
    let id = AirFitStep.motivationAndCheckins.id
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.achievementAcknowledgement, type: .choice, label: "Acknowledging achievements", required: false,
                options: AchievementStyle.options, defaultValue: .string(AchievementStyle.default.rawValue),
                messages: [.notAnOption: "Choose how your coach should mark your achievements."]),
            FieldSpec(
                id: FieldID.inactivityResponse, type: .choice, label: "If you're inactive for a few days", required: false,
                options: InactivityResponse.options, defaultValue: .string(InactivityResponse.default.rawValue),
                messages: [.notAnOption: "Choose how your coach should respond to a quiet spell."]),
            FieldSpec(
                id: FieldID.preferredUnits, type: .choice, label: "Units", required: false,
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
            FieldID.achievementAcknowledgement: .string((AchievementStyle(values[FieldID.achievementAcknowledgement]) ?? .default).rawValue),
            FieldID.inactivityResponse: .string((InactivityResponse(values[FieldID.inactivityResponse]) ?? .default).rawValue),
            FieldID.preferredUnits: .string((PreferredUnits(values[FieldID.preferredUnits]) ?? .default).rawValue),
        ]
    }
}
