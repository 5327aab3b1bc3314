import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AFLFantasy

/// What each step shows and accepts: team choice's pathways and carousel, the guide's checklist
/// and its 4-of-5 rule, personal info's email rule, credentials' Team ID rule.
@Suite struct StepRulesTests {
    @Test func teamChoiceOffersTheTwoPathwaysWithTheirAccessibilityCopy() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        let view = try await atTeamChoice(d, details: UserDetails(firstName: "Sam"))
        #expect(view.title == "Do you have an AFL Fantasy team, Sam?")
        let field = try #require(view.field("hasExistingTeam"))
        #expect(field["type"] == "boolean")
        #expect(field["required"] == true)
        let options = try #require(view.step?["content"]?["options"]?.arrayValue)
        #expect(options.map { $0["label"] } == ["Connect Existing Team", "I Need to Create One"])
        #expect(options.map { $0["value"] } == [true, false])
        #expect(options[0]["accessibilityLabel"] == "Connect existing AFL Fantasy team")
        #expect(options[0]["symbol"] == "link")
        #expect(options[1]["symbol"] == "plus.circle")
        for option in options {
            #expect(option["accessibilityLabel"]?.stringValue?.isEmpty == false)
            #expect(option["accessibilityHint"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func teamChoiceCarouselHasTheFourFeaturesAndAdvancesEveryThreeSeconds() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        let view = try await atTeamChoice(d)
        let carousel = try #require(view.step?["content"]?["carousel"])
        #expect(carousel["autoAdvanceSeconds"] == 3)
        let items = try #require(carousel["items"]?.arrayValue)
        #expect(items.map { $0["title"] } == ["AI Trade Insights", "Captain Advisor", "Performance Tracking", "Cash Cow Alerts"])
        for item in items {
            let description = try #require(item["description"]?.stringValue)
            #expect(!description.isEmpty && !description.contains("\n"), "one line: \(description)")
        }
    }

    @Test func teamChoiceNeedsAnAnswerToContinue() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        let view = try await atTeamChoice(d)
        let missing = await d.refuse(view)
        #expect(missing?.code == -32004)
        #expect(
            missing?.fieldErrors == [
                FieldError(
                    field: "hasExistingTeam", code: .required, message: "Choose Connect Existing Team or I Need to Create One.")
            ])
        let wrongType = await d.refuse(view, ["hasExistingTeam": "yes"])
        #expect(wrongType?.fieldErrors.first?.code == .invalidType)
        // Nothing moved.
        #expect(try await d.get(view).revision == view.revision)
    }

    @Test func guideListsTheFiveItemsWithTheWebsiteLink() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.newTeam)
        let field = try #require(view.field("completedItems"))
        #expect(field["type"] == "multi_choice")
        #expect(field["minItems"] == 4)
        let options = try #require(field["options"]?.arrayValue)
        #expect(options.map { $0["value"] } == ["visit_website", "sign_in", "pick_squad", "save_team", "find_team_id"])
        #expect(options[0]["label"] == "Visit fantasy.afl.com.au")
        #expect(options[0]["link"] == "https://fantasy.afl.com.au")
        #expect(options[4]["label"] == "Find your Team ID")
        #expect(options.dropFirst().allSatisfy { $0["link"] == nil })
        #expect(options.allSatisfy { $0["detail"]?.stringValue?.isEmpty == false })
        #expect(view.step?["content"]?["link"]?["url"] == "https://fantasy.afl.com.au")
        #expect(view.step?["content"]?["link"]?["symbol"] == "safari")
        #expect(view.step?["helper"] == "Tick at least 4 of the 5 steps to continue.")
    }

    @Test func guideNeedsFourOfFiveAndNamesWhatIsMissing() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.newTeam)

        let three = await d.refuse(view, ["completedItems": ["visit_website", "sign_in", "find_team_id"]])
        #expect(three?.code == -32004)
        #expect(
            three?.fieldErrors == [
                FieldError(
                    field: "completedItems", code: .count,
                    message: "Complete at least 4 of the 5 steps to continue (you've ticked 3). "
                        + "Still to do: Pick your squad and Name and save your team.")
            ])

        let one = await d.refuse(view, ["completedItems": ["pick_squad"]])
        #expect(one?.fieldErrors.first?.code == .count)
        #expect(
            one?.fieldErrors.first?.message == "Complete at least 4 of the 5 steps to continue (you've ticked 1). "
                + "Still to do: Visit fantasy.afl.com.au, Sign in or register, Name and save your team and Find your Team ID.")

        // Nothing ticked is the core's `required`, with the same message naming all five.
        for values: [String: JSONValue] in [[:], ["completedItems": []]] {
            let none = await d.refuse(view, values)
            #expect(
                none?.fieldErrors == [
                    FieldError(
                        field: "completedItems", code: .required,
                        message: "Complete at least 4 of the 5 steps to continue (you haven't ticked any yet). "
                            + "Still to do: Visit fantasy.afl.com.au, Sign in or register, Pick your squad, "
                            + "Name and save your team and Find your Team ID.")
                ])
        }

        let unknown = await d.refuse(view, ["completedItems": ["visit_website", "sign_in", "pick_squad", "bribe_umpire"]])
        #expect(unknown?.fieldErrors.first?.code == .notAnOption)
        let twice = await d.refuse(view, ["completedItems": ["sign_in", "sign_in", "pick_squad", "save_team"]])
        #expect(twice?.fieldErrors.first?.code == .duplicate)

        #expect(try await d.get(view).revision == view.revision)
        let four = try await d.submit(view, ["completedItems": ["sign_in", "pick_squad", "save_team", "find_team_id"]])
        #expect(four.stepId == "personal_info")
    }

    @Test func personalInfoIsPrefilledFromTheUserDetails() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d, details: UserDetails(firstName: "Casey", email: "casey@example.com"))
        view = try await d.submit(view, Answers.existingTeam)
        #expect(view.field("firstName")?["default"] == "Casey")
        #expect(view.field("email")?["default"] == "casey@example.com")
        #expect(view.field("email")?["maxLength"] == 254)
        #expect(view.value("firstName") == nil)
    }

    @Test(arguments: [
        "jordan", "jordan@", "@example.com", "jordan@example", "jordan@@example.com", "jo@rdan@example.com",
        "jordan@example.", "jordan@.com", "jordan@example..com", "jor dan@example.com",
        String(repeating: "a", count: 243) + "@example.com",
    ])
    func malformedEmailIsInvalidFormat(email: String) async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.existingTeam)
        let error = await d.refuse(view, ["firstName": "Jordan", "email": .string(email)])
        #expect(error?.code == -32004)
        #expect(error?.fieldErrors.map(\.field) == ["email"])
        #expect(error?.fieldErrors.first?.code == .invalidFormat)
    }

    @Test func wellFormedEmailsAreKeptTrimmed() async throws {
        let longest = String(repeating: "a", count: 242) + "@example.com"
        #expect(longest.count == 254)
        for email in ["j@x.io", "first.last+afl@mail.example.com.au", longest] {
            let d = try await FlowDriver(plugin: AFLFantasyPlugin())
            var view = try await atTeamChoice(d)
            view = try await d.submit(view, Answers.existingTeam)
            view = try await d.submit(view, ["firstName": "  Jordan ", "email": .string("  \(email) ")])
            #expect(view.stepId == "credentials", "\(email)")
            view = try await d.back(view)
            #expect(view.value("email") == .string(email))
            #expect(view.value("firstName") == "Jordan")
        }
    }

    @Test func personalInfoMessages() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.submit(view, Answers.existingTeam)
        let error = await d.refuse(view, ["firstName": "   "])
        #expect(
            error?.fieldErrors == [
                FieldError(field: "firstName", code: .required, message: "Please enter your first name."),
                FieldError(field: "email", code: .required, message: "Please enter your email address."),
            ])
        let long = await d.refuse(view, ["firstName": .string(String(repeating: "x", count: 51)), "email": "a@b.co"])
        #expect(long?.fieldErrors.first?.code == .tooLong)
        let tooLongEmail = await d.refuse(view, ["firstName": "Jo", "email": .string(String(repeating: "a", count: 250) + "@b.com")])
        #expect(tooLongEmail?.fieldErrors.first?.message == "That email is too long. Use an address of up to 254 characters.")
    }

    @Test(arguments: ["123", "12345678901", "12a456", "12 3456", "-12345", "1234.5", "١٢٣٤٥"])
    func teamIdMustBeFourToTenDigits(teamId: String) async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.walk(view, [Answers.existingTeam, Answers.personal])
        let error = await d.refuse(view, ["teamId": .string(teamId)])
        #expect(
            error?.fieldErrors == [
                FieldError(
                    field: "teamId", code: .invalidFormat,
                    message: "Your Team ID is 4 to 10 digits. You'll find it on your team page at fantasy.afl.com.au.")
            ])
    }

    @Test func teamIdRulesAndOptionalTeamName() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        var view = try await atTeamChoice(d)
        view = try await d.walk(view, [Answers.existingTeam, Answers.personal])
        #expect(view.field("teamId")?["minLength"] == 4)
        #expect(view.field("teamId")?["maxLength"] == 10)
        #expect(view.field("teamName")?["required"] == false)
        #expect(
            await d.refuse(view)?.fieldErrors.first
                == FieldError(
                    field: "teamId", code: .required, message: "Enter your Team ID to connect your team."))
        #expect(await d.refuse(view, ["teamId": 123456])?.fieldErrors.first?.code == .invalidType)
        let longName = await d.refuse(view, ["teamId": "1234", "teamName": .string(String(repeating: "n", count: 51))])
        #expect(longName?.fieldErrors.map(\.code) == [.tooLong])
        for teamId in ["1234", "1234567890", " 0042 "] {
            let accepted = try await d.submit(view, ["teamId": .string(teamId)])
            #expect(accepted.stepId == "validation")
            view = try await d.back(accepted)
        }
        #expect(view.value("teamId") == "0042")
        #expect(view.value("teamName") == nil)
    }

    @Test func onboardingGateUsesTheAppsCopy() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        let gate = try await d.gate("nobody", "view_trades")
        #expect(gate["allowed"] == false)
        #expect(gate["gate"] == "onboarding")
        #expect(gate["title"] == "Finish Setting Up")
        #expect(gate["cta"] == "Continue Setup")
        var view = try await atTeamChoice(d)
        view = try await d.walk(view, [Answers.existingTeam, Answers.personal, Answers.credentials, [:]])
        #expect(try await d.gate("u1", "view_trades")["allowed"] == true)
    }

    @Test func describeDrawsBothPathsAndTheWayBackFromValidation() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin())
        let described = try await d.call("flow.describe", [:])
        #expect(
            described["steps"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [
                "splash", "welcome", "team_choice", "create_team_guide", "personal_info", "credentials", "validation",
            ])
        #expect(
            described["steps"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } == [
                "content", "content", "question", "checklist", "question", "question", "processing",
            ])
        #expect(
            described["edges"] == [
                ["from": "splash", "to": "welcome"],
                ["from": "welcome", "to": "team_choice"],
                ["from": "team_choice", "to": "create_team_guide", "when": "hasExistingTeam = false"],
                ["from": "team_choice", "to": "personal_info", "when": "otherwise"],
                ["from": "create_team_guide", "to": "personal_info"],
                ["from": "personal_info", "to": "credentials"],
                ["from": "credentials", "to": "validation"],
                ["from": "validation", "to": "credentials", "when": "team refused by the validator"],
            ])
        let mermaid = try #require(described["mermaid"]?.stringValue)
        #expect(mermaid.contains("validation --> done"))
        #expect(mermaid.contains(#"team_choice -->|"hasExistingTeam = false"| create_team_guide"#))
    }
}
