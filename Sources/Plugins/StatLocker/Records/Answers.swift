import Foundation
import PlatformCore

/// A session's StatLocker answers, typed, wherever in the flow they were given.
struct Answers {
    let context: StepContext

    init(_ context: StepContext) {
        self.context = context
    }

    private func text(_ field: String) -> String? { context.value(of: field)?.stringValue }

    var sport: String? { text(FieldID.sport) }
    var teamGender: String? { text(FieldID.teamGender) }
    var gender: TeamGender? { teamGender.flatMap(TeamGender.init(rawValue:)) }
    var gradYear: Int? { context.value(of: FieldID.gradYear)?.intValue }
    var level: String? { text(FieldID.level) }
    var position: String? { text(FieldID.position) }
    var hsTeamName: String? { text(FieldID.hsTeamName) }
    var hsCity: String? { text(FieldID.hsCity) }
    var hsState: String? { text(FieldID.hsState) }
    var hasClubTeam: Bool { context.value(of: FieldID.hasClubTeam)?.boolValue ?? false }
    var clubTeamName: String? { hasClubTeam ? text(FieldID.clubTeamName) : nil }
    var clubCity: String? { hasClubTeam ? text(FieldID.clubCity) : nil }
    var clubState: String? { hasClubTeam ? text(FieldID.clubState) : nil }
    var seasonGoals: [JSONValue] { context.value(of: FieldID.seasonGoals)?.arrayValue ?? [] }
    var aiTone: String? { text(FieldID.aiTone) }

    /// The goals the library offers for this player's sport, gender, position and level.
    func offeredGoals(in library: GoalsLibrary) -> [GoalTemplate] {
        library.goals(sport: sport, gender: teamGender, position: position, level: level)
    }

    /// "Alex Morgan" from the account details, else the personalised name (the display-name rule).
    var fullName: String {
        let parts = [context.user.firstName, context.user.lastName]
            .compactMap { $0?.trimmingWhitespace }
            .filter { !$0.isEmpty }
        return parts.isEmpty ? context.displayName : parts.joined(separator: " ")
    }
}
