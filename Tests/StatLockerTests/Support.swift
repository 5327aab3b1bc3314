import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

@testable import StatLocker

/// The 11 step ids in flow order, as the contract lists them.
let stepOrder = [
    "sport", "welcome_journey", "team_gender", "profile_details", "position", "team_info",
    "season_goals", "goals_locked_in", "tone_quiz", "almost_there", "review",
]

let alex = UserDetails(firstName: "Alex", lastName: "Morgan", email: "alex@example.com")

/// A custom goal as a client posts it.
func custom(_ title: String, target: JSONValue? = nil, unit: String? = nil) -> JSONValue {
    var object: [String: JSONValue] = ["title": .string(title)]
    if let target { object["targetValue"] = target }
    if let unit { object["unit"] = .string(unit) }
    return .object(object)
}

/// A boys' Varsity goalie from Duxbury, no club, two library goals and one custom, tone Hype.
let defaultAnswers: [String: [String: JSONValue]] = [
    "sport": ["sport": "lacrosse"],
    "team_gender": ["teamGender": "boys"],
    "profile_details": ["gradYear": 2027, "level": "Varsity"],
    "position": ["position": "Goalie"],
    "team_info": ["hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": false],
    "season_goals": ["seasonGoals": ["gk-var-savepct-60", "gk-var-saves-200", custom("Improve weak-side coverage", target: 10, unit: "games")]],
    "tone_quiz": ["aiTone": "Hype"],
]

/// A driver whose plugin lines go to `logger` once their command has committed.
func makeDriver(logger: Logger = Logger(label: "StatLockerTests")) async throws -> FlowDriver {
    try await FlowDriver(plugin: StatLockerPlugin(), pluginLogger: { _ in logger })
}

extension FlowDriver {
    /// Submits each step's answers (`defaultAnswers`, with `overrides` per step id) until the
    /// session stands on `target`.
    func walk(
        _ view: SessionView, to target: String, overrides: [String: [String: JSONValue]] = [:]
    ) async throws -> SessionView {
        try await walk(view, to: target, answers: defaultAnswers.merging(overrides) { $1 })
    }

    /// A new session for `userId` walked to `target`.
    func started(
        _ userId: String = "u1", user: UserDetails? = alex, at target: String,
        overrides: [String: [String: JSONValue]] = [:]
    ) async throws -> SessionView {
        try await walk(userId, user: user, to: target, answers: defaultAnswers.merging(overrides) { $1 })
    }

    /// A completed session for `userId`.
    func completed(
        _ userId: String = "u1", user: UserDetails? = alex, overrides: [String: [String: JSONValue]] = [:]
    ) async throws -> SessionView {
        let review = try await started(userId, user: user, at: "review", overrides: overrides)
        return try await submit(review)
    }
}

extension SessionView {
    /// The option values of a choice field on the current step.
    func optionValues(_ field: String) -> [String] {
        self.field(field)?["options"]?.arrayValue?.compactMap { $0["value"]?.stringValue } ?? []
    }

    func option(_ field: String, _ value: String) -> JSONValue? {
        self.field(field)?["options"]?.arrayValue?.first { $0["value"]?.stringValue == value }
    }

    var subtitle: String? { step?["subtitle"]?.stringValue }
    var helper: String? { step?["helper"]?.stringValue }
    var content: JSONValue? { step?["content"] }

    func actionLabel(_ id: String) -> String? {
        step?["actions"]?.arrayValue?.first { $0["id"]?.stringValue == id }?["label"]?.stringValue
    }
}

/// The one field error of a refused submit, checked for its field and code.
func expectFieldError(
    _ error: RPCError?, field: String?, code: FieldErrorCode, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(error?.code == -32004, "expected -32004, got \(String(describing: error))", sourceLocation: sourceLocation)
    let matching = error?.fieldErrors.filter { $0.field == field && $0.code == code } ?? []
    #expect(
        !matching.isEmpty, "no \(code.rawValue) error on \(field ?? "null") in \(error?.fieldErrors ?? [])",
        sourceLocation: sourceLocation)
}

/// Collects what a Logger emits, for the seed's debug lines.
typealias LogCapture = LogRecorder

extension LogRecorder {
    var logger: Logger { logger("StatLockerTests") }
}
