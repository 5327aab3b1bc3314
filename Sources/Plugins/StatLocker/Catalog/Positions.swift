import Foundation
import PlatformCore

/// The contract's team genders (`teamGender`).
enum TeamGender: String, Sendable, CaseIterable {
    case boys, girls

    var label: String {
        switch self {
        case .boys: "Boys"
        case .girls: "Girls"
        }
    }
}

/// The contract's levels, youngest first.
enum Level: String, Sendable, CaseIterable {
    case freshman = "Freshman"
    case jv = "JV"
    case varsity = "Varsity"
}

/// A position and the stats StatLocker tracks for it (the seed's tooltip).
struct Position: Sendable, Hashable {
    let name: String
    let trackedStats: [String]

    /// The tooltip line, exactly as the seed writes it.
    var tooltip: String { "We track: " + trackedStats.joined(separator: ", ") }

    /// The stat keys goals of this position track: each stat's name in snake case, `%` as `pct`.
    var trackingKeys: [String] { trackedStats.map(Self.trackingKey(for:)) }

    static func trackingKey(for stat: String) -> String {
        stat.replacingOccurrences(of: "%", with: "pct")
            .split(separator: " ")
            .map { $0.lowercased() }
            .joined(separator: "_")
    }
}

enum Positions {
    /// Positions by sport and team gender, in the seed's order.
    static let bySport: [String: [TeamGender: [Position]]] = [
        "lacrosse": [
            .boys: [
                Position(name: "Goalie", trackedStats: ["Save %", "Saves", "Goals Against", "Clears", "Save Zones"]),
                Position(name: "Attack", trackedStats: ["Goals", "Assists", "Shots", "Shooting %", "Ground Balls", "Turnovers"]),
                Position(name: "Midfield", trackedStats: ["Goals", "Assists", "Ground Balls", "Clears", "Faceoffs", "Caused Turnovers"]),
                Position(name: "Defense", trackedStats: ["Ground Balls", "Caused Turnovers", "Clears", "Penalties"]),
                Position(name: "FOGO", trackedStats: ["Faceoff Win %", "FO Wins", "Ground Balls", "Violations", "Transition Points"]),
                Position(name: "LSM", trackedStats: ["Ground Balls", "Caused Turnovers", "Clears", "Penalties", "Transition Points"]),
            ],
            .girls: [
                Position(name: "Goalie", trackedStats: ["Save %", "Saves", "Goals Against", "Clears"]),
                Position(name: "Attack", trackedStats: ["Goals", "Assists", "Shots", "Shooting %", "Ground Balls", "Draw Controls"]),
                Position(name: "Midfield", trackedStats: ["Goals", "Assists", "Ground Balls", "Draw Controls", "Caused Turnovers"]),
                Position(name: "Defense", trackedStats: ["Ground Balls", "Caused Turnovers", "Clears", "Draw Controls"]),
            ],
        ]
    ]

    static func positions(sport: String?, gender: TeamGender?) -> [Position] {
        guard let sport, let gender else { return [] }
        return bySport[sport]?[gender] ?? []
    }
}
