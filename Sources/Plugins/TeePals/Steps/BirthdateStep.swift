import PlatformCore

/// 3.2: "When's your birthday?" — age verification only.
///
/// The birthdate itself is never kept: `stored` keeps the fact of verification and its time, so
/// the field shows no value when the person comes back, and the step still counts as answered.
/// Under the minimum age (13 unless the tenant sets `minimumAge`) the session is rejected and the
/// engine erases every answer. No log line carries the date; the lines are written once the
/// submit has committed.
struct BirthdateStep: FlowStep {
    let id = StepID.birthdate
    let kind = StepKind.question
    /// The tenant's `minimumAge` setting.
    var minimumAge = AgeCheck.defaultMinimumAge

    var rejection: Rejection { Rejection(code: "underage", message: "You must be \(minimumAge)+ to use TeePals") }

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.birthdate, type: .date, label: "Birthday", placeholder: "YYYY-MM-DD",
                // Checked by the core and shown to the client's date picker as min and max.
                earliest: AgeCheck.earliestBirthday.refusing("Birthdays before 1900 aren't accepted. Please check the year."),
                latest: .today.refusing("Your birthday can't be in the future."),
                messages: [
                    .required: "Enter your birthday so we can confirm you're \(minimumAge) or older.",
                    .invalidFormat: "Enter a real date written YYYY-MM-DD (year, month, day).",
                ],
                sensitive: true)
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: "When's your birthday?", helper: "We keep this private (age verification only)",
            content: ["minimumAge": .int(Int64(minimumAge))])
    }

    /// The answer kept: a `PrivateProfile`'s two keys, which completion copies into `profile_private`.
    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        let verified = Self.birthday(in: values).map { AgeCheck.isOldEnough(bornOn: $0, on: CalendarDate(context.now), minimumAge: minimumAge) } ?? false
        return ["ageVerified": .bool(verified), "ageVerifiedAt": .string(Timestamp.string(context.now))]
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        // Resuming replays saved answers, which hold no date: the step was passed already.
        guard let birthday = Self.birthday(in: values) else { return .next }
        if AgeCheck.isOldEnough(bornOn: birthday, on: CalendarDate(context.now), minimumAge: minimumAge) {
            context.log(.info, "age verified", metadata: ["tenant": context.tenant])
            return .next
        }
        context.log(.notice, "under the minimum age: session rejected, answers erased", metadata: ["tenant": context.tenant])
        return .reject(rejection)
    }

    static func birthday(in values: [String: JSONValue]) -> CalendarDate? {
        values[FieldID.birthdate]?.stringValue.flatMap(CalendarDate.init)
    }
}
