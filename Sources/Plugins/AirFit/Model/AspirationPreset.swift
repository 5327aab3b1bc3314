import PlatformCore

/// The core aspiration cards. Values share `describe_own`'s spelling (fixed by the contract).
/// Each preset stands for a structured goal, so every persona carries one.
enum AspirationPreset: String, ChoiceOption {
    case buildStrength = "build_strength"
    case improveEndurance = "improve_endurance"
    case elevatePerformance = "elevate_performance"
    case lastingHealth = "lasting_health"
    case recoverRebuild = "recover_rebuild"
    case bodyComposition = "body_composition"
    case describeOwn = "describe_own"

    var label: String {
        switch self {
        case .buildStrength: "Build Strength"
        case .improveEndurance: "Improve Endurance"
        case .elevatePerformance: "Elevate Performance"
        case .lastingHealth: "Lasting Health"
        case .recoverRebuild: "Recover & Rebuild"
        case .bodyComposition: "Refine Body Composition"
        case .describeOwn: "Describe Your Own"
        }
    }

    var detail: String {
        switch self {
        case .buildStrength: "Heavier lifts and a stronger frame."
        case .improveEndurance: "Go longer, recover faster."
        case .elevatePerformance: "Speed, power and agility for your sport."
        case .lastingHealth: "Habits that keep you well for decades."
        case .recoverRebuild: "A careful return from injury or time away."
        case .bodyComposition: "Leaner and more defined, on your terms."
        case .describeOwn: "Tell your coach in your own words."
        }
    }

    /// The goal a preset stands for; nil for `describe_own`, whose goal comes from analysis.
    var structuredGoal: StructuredGoal? {
        switch self {
        case .buildStrength: StructuredGoal(goalType: .strength, primaryMetric: .oneRepMax)
        case .improveEndurance: StructuredGoal(goalType: .endurance, primaryMetric: .vo2Max)
        case .elevatePerformance: StructuredGoal(goalType: .performance, primaryMetric: .powerOutput)
        case .lastingHealth: StructuredGoal(goalType: .health, primaryMetric: .restingHeartRate)
        case .recoverRebuild: StructuredGoal(goalType: .recovery, primaryMetric: .readinessScore)
        case .bodyComposition: StructuredGoal(goalType: .aesthetic, primaryMetric: .bodyFatPercentage)
        case .describeOwn: nil
        }
    }
}
