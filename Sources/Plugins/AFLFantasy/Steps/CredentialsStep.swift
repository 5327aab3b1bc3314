import PlatformCore

/// Credentials, step 4 of 6: the Team ID (4 to 10 digits) and an optional team name. The
/// `validation` step sends the user back here, with the validator's reason in `errors`, when
/// the team is refused.
struct CredentialsStep: FlowStep {
    let id = StepID.credentials
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.teamId, type: .text, label: "Team ID", placeholder: "e.g. 123456",
                messages: [
                    .required: "Enter your Team ID to connect your team.",
                    .invalidType: "Send your Team ID as text, e.g. \"123456\".",
                ],
                // Shown to clients; the length is part of the one format rule `validate` checks.
                extra: [
                    "minLength": .int(Int64(TeamIDFormat.lengths.lowerBound)),
                    "maxLength": .int(Int64(TeamIDFormat.lengths.upperBound)),
                ]),
            FieldSpec(
                id: FieldID.teamName, type: .text, label: "Team name", required: false,
                placeholder: "Optional", maxLength: 50),
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        let afterGuide = context.path.contains(StepID.createTeamGuide)
        return StepCopy(
            title: "Connect your team, \(context.coachName)",
            subtitle: afterGuide
                ? "Enter the Team ID you just found on the AFL Fantasy website."
                : "Enter your Team ID so we can load your squad.",
            helper: "Your Team ID is the 4 to 10 digit number on your team page at fantasy.afl.com.au.")
    }

    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        guard let teamId = values[FieldID.teamId]?.stringValue, !TeamIDFormat.isWellFormed(teamId) else { return [] }
        return [FieldError(field: FieldID.teamId, code: .invalidFormat, message: TeamIDFormat.message)]
    }
}
