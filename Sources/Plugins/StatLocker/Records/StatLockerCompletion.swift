import Foundation
import PlatformCore

/// Writes the seed's two documents: `profile` (AthleteProfile) and `team` (TeamInfo).
struct StatLockerCompletion: CompletionHandler {
    let log: OnboardingLog
    let rules: SeasonGoalRules

    func complete(_ context: StepContext) throws -> CompletionResult {
        let answers = Answers(context)
        guard let sport = answers.sport, let gender = answers.teamGender, let gradYear = answers.gradYear,
              let level = answers.level, let position = answers.position, let tone = answers.aiTone,
              let hsTeamName = answers.hsTeamName, let hsCity = answers.hsCity, let hsState = answers.hsState,
              answers.seasonGoals.count == 3 else {
            // The review's submit checks every answer first; this guards the records all the same.
            throw ValidationFailure([FieldError(field: nil, code: .required, message: Messages.answersMissing)])
        }
        let user = context.user
        func detail(_ value: String?) -> JSONValue {
            .string(value?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        }
        let profile: JSONValue = [
            "id": .string(UUID().uuidString),
            "userId": .string(context.userId),
            "firstName": detail(user.firstName),
            "lastName": detail(user.lastName),
            "email": detail(user.email),
            "sport": .string(sport),
            "teamGender": .string(gender),
            "gradYear": .int(Int64(gradYear)),
            "level": .string(level),
            "position": .string(position),
            "aiTone": .string(tone),
            "seasonGoals": .array(rules.seasonGoals(answers.seasonGoals)),
            "onboardingCompleted": true,
            "createdAt": .string(Timestamp.string(context.now)),
        ]
        let team: JSONValue = [
            "hsTeamName": .string(hsTeamName),
            "hsCity": .string(hsCity),
            "hsState": .string(hsState),
            "hasClubTeam": .bool(answers.hasClubTeam),
            "clubTeamName": answers.clubTeamName.map(JSONValue.string) ?? .null,
            "clubCity": answers.clubCity.map(JSONValue.string) ?? .null,
            "clubState": answers.clubState.map(JSONValue.string) ?? .null,
        ]
        log.reviewCompleted(userId: context.userId)
        return CompletionResult(
            records: ["profile": profile, "team": team],
            message: "Welcome to StatLocker, \(context.displayName)!")
    }
}
