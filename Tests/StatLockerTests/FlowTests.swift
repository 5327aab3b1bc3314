import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import StatLocker

/// The 11 screens in the revamp's order, their copy, progress and buttons.
@Suite struct FlowShapeTests {
    @Test func elevenStepsInTheRevampsOrderWithSequentialProgress() async throws {
        let d = try await makeDriver()
        var view = try await d.start("u1", user: alex)
        #expect(view.status == .active)
        var seen: [String] = []
        var labels: [String] = []
        while let step = view.stepId {
            seen.append(step)
            labels.append(view.progressLabel ?? "")
            #expect(view.json["progress"]?["total"] == 11)
            view = try await d.submit(view, defaultAnswers[step] ?? [:])
        }
        #expect(seen == stepOrder)
        #expect(labels == (1...11).map { "Step \($0) of 11" })
        #expect(view.status == .completed)
        #expect(view.json["progress"]?["index"] == 11)
        #expect(view.json["progress"]?["fraction"] == 1)
    }

    @Test func kindsMatchTheContract() async throws {
        let plugin = StatLockerPlugin()
        let flow = try #require(plugin.flow("onboarding"))
        #expect(flow.steps.map(\.id) == stepOrder)
        let kinds = Dictionary(uniqueKeysWithValues: flow.steps.map { ($0.id, $0.kind) })
        #expect(kinds["welcome_journey"] == .content)
        #expect(kinds["goals_locked_in"] == .content)
        #expect(kinds["almost_there"] == .content)
        #expect(kinds["review"] == .review)
        #expect(flow.steps.filter { $0.kind == .question }.count == 7)
        #expect(flow.resumePolicy == .savedStep)
    }

    @Test func personalisedHeadersSubtitlesAndHelpers() async throws {
        let d = try await makeDriver()
        var view = try await d.start("u1", user: alex)
        var copy: [String: (title: String?, subtitle: String?, helper: String?)] = [:]
        while let step = view.stepId {
            copy[step] = (view.title, view.subtitle, view.helper)
            view = try await d.submit(view, defaultAnswers[step] ?? [:])
        }
        #expect(copy["sport"]?.title == "Hey Alex 👋 What sport do you play?")
        #expect(copy["sport"]?.subtitle == "Choose your sport to get started.")
        #expect(copy["sport"]?.helper == "Choose the sport you'll be tracking stats for.")
        #expect(copy["welcome_journey"]?.title == "Welcome to your journey, Alex")
        #expect(copy["team_gender"]?.title == "Got it, Alex. Which team?")
        #expect(copy["team_gender"]?.subtitle == "Every stat tells your story — start with the basics.")
        #expect(copy["team_gender"]?.helper == "This helps us customize your experience.")
        #expect(copy["profile_details"]?.title == "Tell us about yourself, Alex")
        #expect(copy["profile_details"]?.subtitle == "We use this to build your recruiting timeline.")
        #expect(copy["profile_details"]?.helper == "We use this to calculate your goals and recommendations.")
        #expect(copy["position"]?.title == "What position do you play, Alex?")
        #expect(copy["position"]?.subtitle == "Your position shapes the stats we track.")
        #expect(copy["position"]?.helper == "This determines which stats we'll track for you.")
        #expect(copy["team_info"]?.title == "Team details, Alex")
        #expect(copy["team_info"]?.subtitle == "We'll use this for your recruiting profile.")
        #expect(copy["team_info"]?.helper == "Tell us about your high school and club teams.")
        #expect(copy["season_goals"]?.title == "Pick your top 3 season goals, Alex")
        #expect(copy["season_goals"]?.subtitle == "These keep you locked in all season.")
        #expect(copy["season_goals"]?.helper == "You can change these anytime in Settings.")
        #expect(copy["goals_locked_in"]?.title == "You're locked in, Alex")
        #expect(copy["tone_quiz"]?.title == "How do you like feedback, Alex?")
        #expect(copy["tone_quiz"]?.subtitle == "This shapes how we give you feedback.")
        #expect(copy["tone_quiz"]?.helper == "This shapes how AI Coach talks to you.")
        #expect(copy["almost_there"]?.title == "Almost there, Alex")
        #expect(copy["review"]?.title == "Review your profile, Alex")
        #expect(copy["review"]?.subtitle == "Review your info before entering your Locker.")
        #expect(copy["review"]?.helper == "Make sure everything looks right before we finish.")
    }

    @Test func motivationalScreensCarryMessageSymbolAndButton() async throws {
        let d = try await makeDriver()
        let welcome = try await d.started(at: "welcome_journey")
        #expect(welcome.content?["message"] == "Every game is a chance to improve. Let's build your athletic story together.")
        #expect(welcome.content?["symbol"] == "figure.run")
        #expect(welcome.actionLabel("continue") == "Let's Go")
        #expect(welcome.step?["fields"] == [])

        let locked = try await d.walk(welcome, to: "goals_locked_in")
        #expect(locked.content?["message"] == "Small goals = big wins. Your season targets will keep you focused and motivated.")
        #expect(locked.content?["symbol"] == "target")
        #expect(locked.actionLabel("continue") == "Keep Going")

        let almost = try await d.walk(locked, to: "almost_there")
        #expect(almost.content?["message"] == "You're ready to start tracking. Your first game log is just a tap away!")
        #expect(almost.content?["symbol"] == "chart.line.uptrend.xyaxis")
        #expect(almost.actionLabel("continue") == "Finish Setup")
    }

    @Test func buttonsContinueEverywhereBackAfterTheFirstStep() async throws {
        let d = try await makeDriver()
        let first = try await d.start("u1", user: alex)
        #expect(first.actions == ["continue"])
        #expect(first.actionLabel("continue") == "Continue")
        let second = try await d.submit(first, ["sport": "lacrosse"])
        #expect(second.actions == ["continue", "back"])
        let review = try await d.walk(second, to: "review")
        #expect(review.actions == ["continue", "edit", "back"])
        #expect(review.actionLabel("continue") == "Enter Your Locker")
        // `edit` is a link to flow.goto, not something to submit; skip and later are not offered.
        #expect(await d.refuse(review, action: "edit")?.code == -32005)
        #expect(await d.refuse(review, action: "skip")?.code == -32005)
        #expect(await d.refuse(review, action: "later")?.code == -32005)
    }

    @Test func describeListsTheStepsAndTheirFieldIds() async throws {
        let d = try await makeDriver()
        let described = try await d.call("flow.describe")
        let steps = try #require(described["steps"]?.arrayValue)
        #expect(steps.map { $0["id"]?.stringValue ?? "" } == stepOrder)
        let fields = Dictionary(
            uniqueKeysWithValues: steps.map {
                ($0["id"]?.stringValue ?? "", $0["fields"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            })
        #expect(fields["sport"] == ["sport"])
        #expect(fields["team_gender"] == ["teamGender"])
        #expect(fields["profile_details"] == ["gradYear", "level"])
        #expect(fields["position"] == ["position"])
        #expect(fields["team_info"] == ["hsTeamName", "hsCity", "hsState", "hasClubTeam", "clubTeamName", "clubCity", "clubState"])
        #expect(fields["season_goals"] == ["seasonGoals"])
        #expect(fields["tone_quiz"] == ["aiTone"])
        #expect(fields["review"] == [])
        #expect(described["mermaid"]?.stringValue?.hasPrefix("flowchart TD") == true)
    }
}

/// The contract's display-name rule with StatLocker's default, "Athlete".
@Suite struct NameFallbackTests {
    func title(_ user: UserDetails?) async throws -> String? {
        try await makeDriver().start("u1", user: user).title
    }

    @Test func firstWordOfTheFirstName() async throws {
        #expect(
            try await title(UserDetails(firstName: "  Alex  Jordan ", email: "aj@x.com", displayName: "AJ"))
                == "Hey Alex 👋 What sport do you play?")
    }

    @Test func displayNameWhenThereIsNoFirstName() async throws {
        #expect(
            try await title(UserDetails(firstName: "   ", email: "s@x.com", displayName: "Sam"))
                == "Hey Sam 👋 What sport do you play?")
    }

    @Test func emailPrefixWhenThereIsNoName() async throws {
        #expect(try await title(UserDetails(email: "jordan.lee@example.com")) == "Hey jordan.lee 👋 What sport do you play?")
    }

    @Test func athleteWhenNothingIsKnown() async throws {
        #expect(try await title(nil) == "Hey Athlete 👋 What sport do you play?")
        #expect(try await title(UserDetails(email: "@example.com")) == "Hey Athlete 👋 What sport do you play?")
    }

    @Test func laterStartsUpdateTheNameInCopyAndCompletion() async throws {
        let d = try await makeDriver()
        let anonymous = try await d.started(user: nil, at: "review")
        #expect(anonymous.title == "Review your profile, Athlete")
        let named = try await d.start("u1", user: UserDetails(firstName: "Riley"))
        #expect(named.title == "Review your profile, Riley")
        let done = try await d.submit(named)
        #expect(done.completion?["message"] == "Welcome to StatLocker, Riley!")
    }
}
