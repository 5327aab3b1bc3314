import PlatformCore

/// The coach-profile-ready screen shown once the session completes: the seed's summary
/// (coaching style, aspiration, engagement style, communication boundaries, the baseline
/// toggle) and its two actions.
struct CoachProfileScreen: Sendable {
    let answers: BlueprintAnswers
    /// The person's name, or nil when they gave none.
    let name: String?
    let establishBaseline: Bool

    static let title = "Your AirFit Coach Is Ready"
    static let beginAction = StepAction("begin", "Begin with My Coach")
    static let refineAction = StepAction("refine", "Review & Refine Settings")

    var screen: CompletionScreen {
        let greeting = name.map { "Meet your personalized AirFit Coach, \($0)." } ?? "Meet your personalized AirFit Coach."
        return CompletionScreen(
            title: Self.title,
            body: greeting + " Here is what your choices defined. You can refine any of it later.",
            summary: [
                item("coachingStyle", "Coaching Style", answers.blend.summary),
                item("aspiration", "Primary Aspiration", aspiration),
                item("engagementStyle", "Engagement Style", engagementStyle),
                item("communicationBoundaries", "Communication Boundaries", boundaries),
                .object(
                    item("establishBaseline", "Initial Focus", baseline).objectValue!.merging([
                        "field": "establishBaseline", "value": .bool(establishBaseline),
                    ]) { first, _ in first }),
            ],
            actions: [Self.beginAction, Self.refineAction])
    }

    private func item(_ id: String, _ label: String, _ text: String) -> JSONValue {
        ["id": .string(id), "label": .string(label), "text": .string(text)]
    }

    var aspiration: String {
        if let text = answers.aspirationText { return "“\(text)”" }
        return answers.aspiration.label
    }

    var engagementStyle: String {
        guard answers.engagementPreset == .custom else {
            return "\(answers.engagementPreset.label). \(answers.engagementPreset.detail)"
        }
        let settings = answers.engagement
        let parts = [
            settings.detailedTracking ? "detailed tracking" : "key metrics only",
            settings.dailyInsights ? "daily insights" : "weekly summaries",
            settings.autoRecoveryAdjust ? "proactive recovery adjustments" : "no automatic plan changes",
        ]
        return "Customized: \(CoachingBlend.list(parts))."
    }

    var boundaries: String {
        "Quiet from \(answers.sleep.bedtime.description) to \(answers.sleep.wakeTime.description) while you sleep. "
            + answers.inactivity.boundarySentence
    }

    var baseline: String {
        establishBaseline
            ? "Your first two weeks build a baseline, so every recommendation after it is grounded in your own data."
            : "Your coach starts recommending straight away, without a baseline period."
    }
}
