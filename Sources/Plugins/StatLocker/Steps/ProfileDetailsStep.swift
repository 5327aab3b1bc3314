import PlatformCore

/// Step 4: graduation year and level (the level picks the goals' targets).
struct ProfileDetailsStep: FlowStep {
    let id = StepID.profileDetails
    let kind = StepKind.question
    var edition = Edition.revamp

    /// The revamp's years; seed 000's picker offers 2025 to 2028.
    static let gradYears = 2024...2030
    static let classicGradYears = 2025...2028

    static var gradYearField: FieldSpec { gradYearField(years: gradYears) }

    static func gradYearField(years gradYears: ClosedRange<Int>) -> FieldSpec {
        FieldSpec(
            id: FieldID.gradYear, type: .integer, label: "Grad year", placeholder: "2027",
            min: Double(gradYears.lowerBound), max: Double(gradYears.upperBound),
            messages: [
                .required: "Add your grad year.",
                .invalidType: "Grad year must be a year, like 2027.",
                .outOfRange: "Grad year must be between \(gradYears.lowerBound) and \(gradYears.upperBound).",
            ])
    }

    static var levelField: FieldSpec {
        FieldSpec(
            id: FieldID.level, type: .choice, label: "Level",
            options: Level.allCases.map { FieldOption(value: $0.rawValue, label: $0.rawValue) },
            messages: [
                .required: "Pick your level: Freshman, JV or Varsity.",
                .notAnOption: "Pick your level: Freshman, JV or Varsity.",
            ])
    }

    func fields(in context: StepContext) -> [FieldSpec] {
        [Self.gradYearField(years: edition == .classic ? Self.classicGradYears : Self.gradYears), Self.levelField]
    }

    func copy(in context: StepContext) -> StepCopy {
        if edition == .classic {
            return StepCopy(
                title: "Tell us about yourself", subtitle: "We use this to build your recruiting timeline.",
                helper: "Your level helps us suggest realistic season goals.")
        }
        return StepCopy(
            title: "Tell us about yourself, \(context.displayName)",
            subtitle: "We use this to build your recruiting timeline.",
            helper: "We use this to calculate your goals and recommendations.")
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        let year = values[FieldID.gradYear]?.intValue.map(String.init) ?? ""
        OnboardingLog.stepCompleted(3, step: id, "gradYear=\(year), level=\(values[FieldID.level]?.stringValue ?? "")", in: context)
        return .next
    }
}
