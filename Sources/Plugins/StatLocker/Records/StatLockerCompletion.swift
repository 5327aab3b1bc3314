import Foundation
import PlatformCore

/// Writes the seed's two documents: `profile` (`AthleteProfile`) and `team` (`TeamInfo`).
struct StatLockerCompletion: CompletionHandler {
    let rules: SeasonGoalRules

    func complete(_ context: StepContext) throws -> CompletionResult {
        let answers = Answers(context)
        guard let sport = answers.sport, let gender = answers.teamGender, let gradYear = answers.gradYear,
            let level = answers.level, let position = answers.position, let tone = answers.aiTone,
            let hsTeamName = answers.hsTeamName, let hsCity = answers.hsCity, let hsState = answers.hsState,
            answers.seasonGoals.count == 3
        else {
            // The review's submit checks every answer first; this guards the records all the same.
            throw ValidationFailure([FieldError(field: nil, code: .required, message: Messages.answersMissing)])
        }
        let user = context.user
        func detail(_ value: String?) -> String {
            value?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        }
        let profile = AthleteProfile(
            id: context.newID(), userId: context.userId,
            firstName: detail(user.firstName), lastName: detail(user.lastName), email: detail(user.email),
            sport: sport, teamGender: gender, gradYear: gradYear, level: level, position: position, aiTone: tone,
            seasonGoals: rules.seasonGoals(answers.seasonGoals, newID: context.newID), onboardingCompleted: true, createdAt: context.now)
        let team = TeamInfo(
            hsTeamName: hsTeamName, hsCity: hsCity, hsState: hsState, hasClubTeam: answers.hasClubTeam,
            clubTeamName: answers.clubTeamName, clubCity: answers.clubCity, clubState: answers.clubState)
        let records = [
            AthleteProfile.recordName: try JSONValue(encoding: profile),
            TeamInfo.recordName: try JSONValue(encoding: team),
        ]
        OnboardingLog.reviewCompleted(in: context)
        return CompletionResult(
            records: records,
            message: "Welcome to StatLocker, \(context.displayName)!")
    }
}
