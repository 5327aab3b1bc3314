import Foundation
import PlatformCore
import PlatformTesting
import Testing

@testable import StatLocker

/// Seed 000 as written, served as flow `classic` beside the revamp: its 8 steps, copy, grad years
/// and rules, with the revamp's field ids, records and completion message.
@Suite("StatLocker classic flow (seed 000)")
struct ClassicFlowTests {
    static let classicOrder = ["sport", "team_gender", "profile_details", "position", "team_info", "season_goals", "tone_quiz", "review"]

    /// Seed 000's title, subtitle and helper for each step (nil: the seed gives none).
    static let seedCopy: [String: (title: String, subtitle: String, helper: String?)] = [
        "sport": ("Let's build your Locker", "Choose your sport to get started.", "We're launching with lacrosse — more sports coming soon!"),
        "team_gender": (
            "Let's build your Locker", "Every stat tells your story — start with the basics.", "This helps us show the right positions and benchmarks."
        ),
        "profile_details": ("Tell us about yourself", "We use this to build your recruiting timeline.", "Your level helps us suggest realistic season goals."),
        "position": ("What's your primary position?", "Your position shapes the stats we track.", nil),
        "team_info": ("Where do you play?", "We'll use this for your recruiting profile.", nil),
        "season_goals": ("Pick your top 3 season goals", "These keep you locked in all season.", "You can change these anytime in Settings."),
        "tone_quiz": ("How should your AI Coach sound?", "This shapes how we give you feedback.", "You can change this anytime in Settings."),
        "review": ("You're all set!", "Review your info before entering your Locker.", nil),
    ]

    @Test func eightStepsWithSeed000sCopyAndProgress() async throws {
        let d = try await makeDriver()
        var view = try await d.start("c1", user: alex, flow: "classic")
        var seen: [String] = []
        var labels: [String] = []
        while let step = view.stepId {
            seen.append(step)
            labels.append(view.progressLabel ?? "")
            let copy = try #require(Self.seedCopy[step])
            #expect(view.title == copy.title, "\(step)")
            #expect(view.subtitle == copy.subtitle, "\(step)")
            #expect(view.helper == copy.helper, "\(step)")
            view = try await d.submit(view, defaultAnswers[step] ?? [:])
        }
        #expect(seen == Self.classicOrder)
        #expect(labels == (1...8).map { "Step \($0) of 8" })
        #expect(view.status == .completed)
        #expect(view.json["flow"] == "classic")
    }

    @Test func gradYearsAre2025To2028() async throws {
        let d = try await makeDriver()
        let details = try await d.started("c2", at: "profile_details", overrides: [:]).withFlow("classic", driver: d)
        for year in [2024, 2029] {
            let refused = await d.refuse(details, ["gradYear": .int(Int64(year)), "level": "JV"])
            expectFieldError(refused, field: "gradYear", code: .outOfRange)
            #expect(refused?.fieldErrors.first?.message == "Grad year must be between 2025 and 2028.")
        }
        #expect(details.field("gradYear")?["min"] == 2025)
        #expect(details.field("gradYear")?["max"] == 2028)
        let accepted = try await d.submit(details, ["gradYear": 2028, "level": "JV"])
        #expect(accepted.stepId == "position")
    }

    /// The seed's rules are the revamp's: exactly 3 goals, club fields only with the toggle on.
    @Test func exactlyThreeGoalsAndClubFieldsBehindTheToggle() async throws {
        let d = try await makeDriver()
        let team = try await d.walk("c3", user: alex, flow: "classic", to: "team_info", answers: defaultAnswers)
        let missingClub = await d.refuse(team, ["hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true])
        expectFieldError(missingClub, field: "clubTeamName", code: .required)
        let goals = try await d.walk(team, to: "season_goals", answers: defaultAnswers)
        let two = await d.refuse(goals, ["seasonGoals": ["gk-var-savepct-60", "gk-var-saves-200"]])
        #expect(two?.code == -32004)
        let threeCustom = try await d.submit(goals, ["seasonGoals": [custom("One"), custom("Two"), custom("Three")]])
        #expect(threeCustom.stepId == "tone_quiz")
    }

    /// An app reads a classic completion as it reads a revamp one: same records, same message.
    @Test func completesWithTheRevampsRecordsAndMessage() async throws {
        let d = try await makeDriver()
        let revamp = try await d.completed("r1")
        let classicReview = try await d.walk("c4", user: alex, flow: "classic", to: "review", answers: defaultAnswers)
        let classic = try await d.submit(classicReview)
        #expect(classic.status == .completed)
        #expect(classic.completion?["message"] == revamp.completion?["message"])
        #expect(classic.completion?["records"] == ["profile", "team"])
        let revampRecords = try await d.profile("r1")["records"]
        let classicRecords = try await d.profile("c4")["records"]
        #expect(classicRecords?["team"] == revampRecords?["team"])
        func withoutIDs(_ profile: JSONValue?) -> JSONValue? {
            guard var object = profile?.objectValue else { return nil }
            for key in ["id", "userId", "createdAt"] { object[key] = nil }
            object["seasonGoals"] = object["seasonGoals"].map { goals in
                .array(
                    (goals.arrayValue ?? []).map { goal in
                        var goal = goal.objectValue ?? [:]
                        goal["id"] = nil
                        return .object(goal)
                    })
            }
            return .object(object)
        }
        #expect(withoutIDs(classicRecords?["profile"]) == withoutIDs(revampRecords?["profile"]))
    }

    @Test func spanishForEveryText() async throws {
        let d = try await makeDriver()
        var english = try await d.start("c5", user: alex, flow: "classic")
        var spanish = try await d.start("c6", user: alex, flow: "classic", locale: "es")
        #expect(spanish.title == "Construyamos tu Locker")
        while let step = english.stepId {
            #expect(spanish.stepId == step)
            for (en, es) in [(english.title, spanish.title), (english.subtitle, spanish.subtitle), (english.helper, spanish.helper)] where en != nil {
                #expect(es != nil && es != en, "\(step): \(en ?? "") is not translated")
            }
            english = try await d.submit(english, defaultAnswers[step] ?? [:])
            spanish = try await d.submit(spanish, defaultAnswers[step] ?? [:])
        }
        #expect(spanish.status == .completed)
    }

    @Test func platformInfoListsBothFlows() async throws {
        let d = try await makeDriver()
        let info = try await d.call("platform.info", [:])
        let statlocker = info["tenants"]?.arrayValue?.first { $0["tenant"] == "statlocker" }
        #expect(statlocker?["flows"] == ["onboarding", "classic"])
    }
}

extension SessionView {
    /// The same person's classic session walked to the step this view stands on (the revamp's
    /// answers are the classic's: same field ids).
    func withFlow(_ flow: String, driver: FlowDriver) async throws -> SessionView {
        try await driver.walk(userId + "-" + flow, user: alex, flow: flow, to: stepId ?? "review", answers: defaultAnswers)
    }
}
