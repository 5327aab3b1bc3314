import PlatformCore

/// A sport on the first screen.
struct Sport: Sendable, Hashable {
    let id: String
    let name: String
    /// The line under the sport's card.
    let detail: String?
    /// Only open sports can be picked. Opening one is flipping this flag in `Sports.all`; the
    /// sport then also needs positions (`Positions`) and goals (goals.json), which a test checks.
    let isOpen: Bool
}

enum Sports {
    /// The sports in the order the seed lists them.
    static let all: [Sport] = [
        Sport(id: "lacrosse", name: "Lacrosse", detail: "Track games, stats, and recruiting", isOpen: true),
        Sport(id: "basketball", name: "Basketball", detail: nil, isOpen: false),
        Sport(id: "field_hockey", name: "Field Hockey", detail: nil, isOpen: false),
        Sport(id: "football", name: "Football", detail: nil, isOpen: false),
        Sport(id: "baseball", name: "Baseball", detail: nil, isOpen: false),
    ]

    static let comingSoonBadge = "Coming soon"

    static func sport(_ id: String) -> Sport? {
        all.first { $0.id == id }
    }

    static var options: [FieldOption] {
        all.map { sport in
            FieldOption(
                value: sport.id, label: sport.name, detail: sport.detail, locked: !sport.isOpen,
                badge: sport.isOpen ? nil : comingSoonBadge,
                lockedMessage: sport.isOpen ? nil : "\(sport.name) is coming soon! We're launching with lacrosse first.")
        }
    }
}
