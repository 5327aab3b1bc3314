import PlatformCore

/// Screen 5: a preset, or `custom` with its three switches. Only a custom answer keeps switches;
/// a preset's settings are derived from the preset when the persona is built.
struct EngagementPreferencesStep: FlowStep {
    let id = AirFitStep.engagementPreferences.id
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        let custom = FieldCondition.field(FieldID.engagementPreset, equals: .string(EngagementPreset.custom.rawValue))
        return [
            FieldSpec(
                id: FieldID.engagementPreset, type: .choice, label: "Engagement style", required: false,
                options: EngagementPreset.options, defaultValue: .string(EngagementPreset.default.rawValue),
                messages: [.notAnOption: "Choose one of the engagement styles, or customize."])
        ]
            + EngagementSettings.Switch.allCases.map { setting in
                FieldSpec(
                    id: setting.rawValue, type: .boolean, label: setting.label, required: false,
                    defaultValue: .bool(setting.value(in: .customDefaults)), visibleWhen: custom,
                    messages: [.invalidType: "\(setting.label) is either on or off."],
                    extra: ["detail": .string(setting.detail)])
            }
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy.airFit(
            title: "How closely should your coach work with you?",
            subtitle: "Choose a rhythm, or tailor each detail.",
            actions: [.continue("Next")])
    }

    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        let preset = EngagementPreset(values[FieldID.engagementPreset]) ?? .default
        var kept: [String: JSONValue] = [FieldID.engagementPreset: .string(preset.rawValue)]
        // A switch posted while an earlier answer was `custom` is not kept for a preset.
        guard preset == .custom else { return kept }
        for setting in EngagementSettings.Switch.allCases {
            kept[setting.rawValue] = values[setting.rawValue] ?? .bool(setting.value(in: .customDefaults))
        }
        return kept
    }
}
