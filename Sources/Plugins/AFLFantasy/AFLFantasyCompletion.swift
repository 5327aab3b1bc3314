import Foundation
import PlatformCore

/// Writes the `account` record (`Account`) when `validation` succeeds, and builds the seed's
/// Complete screen.
///
/// `account` holds the answers, the path taken, how the team was validated and, whenever the
/// create-team guide was shown (on the final path or on a branch the user went back from), a
/// `guide` object with its checklist and timings.
struct AFLFantasyCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        guard let firstName = context.value(of: FieldID.firstName)?.stringValue,
            let email = context.value(of: FieldID.email)?.stringValue,
            let teamId = context.value(of: FieldID.teamId)?.stringValue
        else {
            // Unreachable through the engine (each step requires them); answered as -32004, not a crash.
            throw ValidationFailure([FieldError(field: nil, code: .required, message: "Some of your details are missing. Go back and fill them in.")])
        }
        let path = OnboardingPath(context)
        let check = TeamCheck(json: context.computed(for: StepID.validation)) ?? .fallback(teamId: teamId)
        let teamName = context.value(of: FieldID.teamName)?.stringValue ?? check.validation.teamName

        var account = Account(
            firstName: firstName, email: email, teamId: teamId, teamName: teamName,
            // Skipping team choice keeps the seed's original flow, which is the existing-team one.
            hasExistingTeam: path == .existing,
            teamChoiceSkipped: context.wasSkipped(StepID.teamChoice),
            path: path,
            // Only a valid verdict completes, so "passed" means the validator accepted the team.
            teamValidation: check.source == .validator ? .passed : .fallback)
        let guide = StepID.createTeamGuide
        if path == .created || context.secondsSpent[guide] != nil {
            let answers = context.answers(of: guide) ?? context.answersOffPath[guide]
            account.guide = Account.Guide(
                completedItems: answers?[FieldID.completedItems]?.arrayValue?.compactMap(\.stringValue) ?? [],
                skipped: context.wasSkipped(guide),
                secondsSpent: context.secondsSpent[guide] ?? 0)
        }
        let records = [Account.recordName: try JSONValue(encoding: account)]
        context.log(.info, "onboarding completed", metadata: ["path": path.rawValue, "validatedBy": check.source.rawValue])

        let name = context.coachName
        return CompletionResult(
            records: records,
            message: "Welcome to AFL Fantasy, \(name)!",
            screen: CompleteScreen(name: name, teamId: teamId, teamName: teamName, path: path).screen)
    }
}

/// The seed's Complete screen (the last screen of both flows), in the app's voice.
struct CompleteScreen {
    let name: String
    let teamId: String
    let teamName: String?
    let path: OnboardingPath

    var screen: CompletionScreen {
        let team = teamName ?? "Team \(teamId)"
        let body =
            switch path {
            case .existing: "\(team) is connected. Your trade insights, captain advice and cash cow alerts are ready."
            case .created: "Your new team, \(team), is connected. Your trade insights, captain advice and cash cow alerts are ready."
            }
        return CompletionScreen(
            title: "You're All Set, \(name)!", body: body,
            summary: [
                ["label": "Coach", "value": .string(name)],
                ["label": "Team", "value": .string(team)],
                ["label": "Team ID", "value": .string(teamId)],
            ],
            actions: [StepAction("open_dashboard", "Go to My Team")])
    }
}
