import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import StatLocker

/// Every string the plugin can send, against the seeds' copy principles: microcopy at most 240
/// characters, helper lines short enough for two lines (120), and no mis-decoded characters.
@Suite struct CopyTests {
    static let microcopyLimit = 240
    static let helperLimit = 120

    /// Strings inside a JSON value (content, extra field data), recursively.
    func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let items): items.flatMap(strings(in:))
        case .object(let object): object.values.flatMap(strings(in:))
        default: []
        }
    }

    func strings(of spec: FieldSpec) -> (copy: [String], helpers: [String]) {
        var copy = [spec.label] + [spec.placeholder].compactMap { $0 } + Array(spec.messages.values)
        for option in spec.options {
            copy += [option.label, option.detail, option.badge, option.lockedMessage].compactMap { $0 }
        }
        copy += spec.extra.values.flatMap(strings(in:))
        var helpers = spec.extra["helper"].map(strings(in:)) ?? []
        for item in spec.itemFields {
            let inner = strings(of: item)
            copy += inner.copy
            helpers += inner.helpers
        }
        return (copy, helpers)
    }

    /// The flow rendered for every team, position and level, with and without a club.
    func renderedCopy() throws -> (copy: [String], helpers: [String]) {
        let plugin = StatLockerPlugin()
        let flow = try #require(plugin.flow("onboarding"))
        var copy: [String] = []
        var helpers: [String] = []
        for gender in TeamGender.allCases {
            for position in Positions.positions(sport: "lacrosse", gender: gender) {
                for level in Level.allCases {
                    for club in [false, true] {
                        let goals = GoalsLibrary.shared.goals(
                            sport: "lacrosse", gender: gender.rawValue, position: position.name, level: level.rawValue)
                        var team = defaultAnswers["team_info"]!
                        team["hasClubTeam"] = .bool(club)
                        if club {
                            team["clubTeamName"] = "Laxachusetts"
                            team["clubCity"] = "Boston"
                            team["clubState"] = "MA"
                        }
                        let context = StepContext(
                            tenant: "statlocker", userId: "u1", user: alex, displayName: "Alex",
                            answers: [
                                "sport": ["sport": "lacrosse"], "team_gender": ["teamGender": .string(gender.rawValue)],
                                "profile_details": ["gradYear": 2027, "level": .string(level.rawValue)],
                                "position": ["position": .string(position.name)], "team_info": team,
                                "season_goals": ["seasonGoals": .array(goals.prefix(2).map { .string($0.id) } + [custom("Improve weak-side coverage")])],
                                "tone_quiz": ["aiTone": "Captain"],
                            ],
                            now: Date(timeIntervalSince1970: 1_795_000_000))
                        for step in flow.steps {
                            let rendered = step.copy(in: context)
                            copy += [rendered.title] + [rendered.subtitle, rendered.helper].compactMap { $0 }
                            copy += rendered.content.values.flatMap(strings(in:))
                            copy += rendered.actions.map(\.label)
                            helpers += [rendered.helper].compactMap { $0 }
                            for spec in step.fields(in: context) {
                                let fieldCopy = strings(of: spec)
                                copy += fieldCopy.copy
                                helpers += fieldCopy.helpers
                            }
                        }
                        let done = try flow.completion.complete(context)
                        copy.append(done.message)
                    }
                }
            }
        }
        for spec in plugin.editableFields {
            copy += strings(of: spec).copy
        }
        let gate = plugin.onboardingGate
        copy += [gate.title, gate.message, gate.cta].compactMap { $0 }
        copy += Messages.all
        copy.append("Back")
        return (copy, helpers)
    }

    @Test func microcopyFitsTheLimits() throws {
        let (copy, helpers) = try renderedCopy()
        #expect(copy.count > 500, "the walk should see every option of every step")
        for text in Set(copy) {
            #expect(!text.isEmpty)
            #expect(text.count <= Self.microcopyLimit, "\(text.count) characters: \(text)")
            #expect(text == text.trimmingCharacters(in: .whitespacesAndNewlines), "stray whitespace: \(text)")
        }
        #expect(helpers.count >= 9)
        for helper in Set(helpers) {
            #expect(helper.count <= Self.helperLimit, "helper of \(helper.count) characters: \(helper)")
        }
    }

    /// The seed files show some emoji and dashes mis-decoded; the copy uses the real characters.
    @Test func noMisDecodedCharacters() throws {
        let (copy, _) = try renderedCopy()
        for text in Set(copy) {
            for marker in ["Ã", "â€", "ðŸ", "‚Ä", "üî", "üë", "\u{FFFD}"] {
                #expect(!text.contains(marker), "mis-decoded \(marker) in: \(text)")
            }
        }
        let joined = copy.joined(separator: "\n")
        #expect(joined.contains("👋"))
        #expect(joined.contains("🔥"))
        #expect(joined.contains("—"))
    }
}

/// The seed's `[StatLocker][Onboarding]` lines, at debug level, once per accepted submit.
@Suite struct LogTests {
    @Test func eachStepLogsTheSeedsDebugLine() async throws {
        let capture = LogCapture()
        let d = try await makeDriver(logger: capture.logger)
        let view = try await d.start("athlete-7", user: alex)
        // Refused submits log nothing.
        _ = await d.refuse(view, ["sport": "football"])
        #expect(capture.lines.isEmpty)
        let tone = try await d.walk(view, to: "tone_quiz")
        let next = try await d.submit(tone, ["aiTone": "Hype"])
        // A resend of an accepted submit (a lost reply) does not complete the step twice.
        #expect(try await d.submit(tone, ["aiTone": "Hype"]).revision == next.revision)
        let done = try await d.submit(try await d.walk(next, to: "review"))
        #expect(done.status == .completed)

        #expect(capture.lines.allSatisfy { $0.level == .debug })
        let messages = capture.lines.map(\.message)
        let prefix = "[StatLocker][Onboarding] "
        #expect(
            messages
                == [
                    "Step 1 completed: sport=lacrosse",
                    "Step 2 completed: gender=boys",
                    "Step 3 completed: gradYear=2027, level=Varsity",
                    "Step 4 completed: position=Goalie",
                    "Step 5 completed: hs=Duxbury High School, hasClub=false",
                    "Step 6 completed: goals=[60%+ save percentage, 200+ saves (season), Improve weak-side coverage], customCount=1",
                    "Step 7 completed: tone=Hype",
                    "Step 8: Review complete, saved profile and team for user=athlete-7",
                ].map { prefix + $0 })
    }
}
