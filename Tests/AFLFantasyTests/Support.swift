import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization

@testable import AFLFantasy

/// Answers that take a session through each question step.
enum Answers {
    static let existingTeam: [String: JSONValue] = ["hasExistingTeam": true]
    static let newTeam: [String: JSONValue] = ["hasExistingTeam": false]
    static let fourItems: [String: JSONValue] = ["completedItems": ["visit_website", "sign_in", "pick_squad", "find_team_id"]]
    static let allItems: [String: JSONValue] = [
        "completedItems": ["visit_website", "sign_in", "pick_squad", "save_team", "find_team_id"]
    ]
    static let personal: [String: JSONValue] = ["firstName": "Jordan Lee", "email": "jordan@example.com.au"]
    static let credentials: [String: JSONValue] = ["teamId": "123456", "teamName": "Bont's Bandits"]

    static func team(_ id: String, name: String? = nil) -> [String: JSONValue] {
        var values: [String: JSONValue] = ["teamId": .string(id)]
        if let name { values["teamName"] = .string(name) }
        return values
    }
}

/// Starts a session for `user` and walks past the splash and welcome screens.
func atTeamChoice(_ driver: FlowDriver, _ user: String = "u1", details: UserDetails? = nil) async throws -> SessionView {
    var view = try await driver.start(user, user: details)
    view = try await driver.submit(view)
    return try await driver.submit(view)
}

/// A validator tests script: refuses the ids in `refused` with their reason, names teams in
/// `names`, and remembers what it was asked.
final class ScriptedValidator: TeamValidator {
    let refused: [String: String]
    let names: [String: String]
    private let asked = Mutex<[String]>([])

    init(refused: [String: String] = [:], names: [String: String] = [:]) {
        self.refused = refused
        self.names = names
    }

    var calls: [String] { asked.withLock { $0 } }

    func validate(teamId: String, teamName: String?) async throws -> TeamValidation {
        asked.withLock { $0.append("\(teamId)|\(teamName ?? "-")") }
        if let reason = refused[teamId] { return .invalid(reason) }
        return TeamValidation(verdict: .valid, teamName: names[teamId])
    }
}

/// The AFL service is down.
struct UnreachableValidator: TeamValidator {
    struct Outage: Error {}

    func validate(teamId: String, teamName: String?) async throws -> TeamValidation {
        throw Outage()
    }
}

/// Never answers and ignores cancellation, like a request stuck on a dead connection.
struct HangingValidator: TeamValidator {
    func validate(teamId: String, teamName: String?) async throws -> TeamValidation {
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        return .valid
    }
}

/// The lines the plugin's Logger writes once their command has committed, as
/// `LABEL [SOURCE] LEVEL MESSAGE key=value…`.
typealias LogLines = LogRecorder

extension LogRecorder {
    var all: [String] { lines.map { "\($0.label) [\($0.source)] \($0.level) \($0.message)\($0.metadataPairs)" } }
}
