import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import TeePals

@Suite("Tier 1 wizard")
struct WizardTests {
    @Test func fourStepsWithTheSeedsCopyProgressAndButtons() async throws {
        let d = try await teePals()
        let expected: [(id: String, title: String, helper: String, label: String, button: String)] = [
            ("nickname", "What should we call you?", "This is how other golfers will see you", "1/4", "Continue"),
            ("birthdate", "When's your birthday?", "We keep this private (age verification only)", "2/4", "Continue"),
            ("location", "Where do you usually golf?", "We'll show you rounds nearby", "3/4", "Continue"),
            ("gender", "How do you identify?", "This helps build diverse groups", "4/4", "Complete Setup"),
        ]
        let answers = [Answers.nickname, Answers.birthdate, Answers.location, Answers.gender]
        var view = try await d.start("u1")
        for (index, step) in expected.enumerated() {
            #expect(view.stepId == step.id)
            #expect(view.title == step.title)
            #expect(view.step?["helper"]?.stringValue == step.helper)
            #expect(view.progressLabel == step.label)
            #expect(view.progressIndex == index + 1)
            #expect(view.json["progress"]?["total"] == 4)
            #expect(view.step?["actions"]?.arrayValue?.first == ["id": "continue", "label": .string(step.button)])
            #expect(view.actions.contains("back") == (index > 0))
            #expect(view.step?["kind"] == "question")
            view = try await d.submit(view, answers[index])
        }
        #expect(view.status == .completed)
        #expect(view.step == nil)
        #expect(view.progressLabel == "4/4")
        #expect(view.completion?["message"] == "Welcome to TeePals, Birdie Queen!")
        #expect(view.completion?["records"] == ["profile_private", "profile_public"])
    }

    @Test func fieldsCarryTheContractIdsAndTypes() async throws {
        let d = try await teePals()
        var view = try await d.start("u1")
        #expect(view.field("nickname")?["type"] == "text")
        #expect(view.field("nickname")?["minLength"] == 2)
        #expect(view.field("nickname")?["maxLength"] == 30)
        view = try await d.submit(view, Answers.nickname)
        #expect(view.field("birthdate")?["type"] == "date")
        #expect(view.field("birthdate")?["min"] == "1900-01-01")
        #expect(view.field("birthdate")?["max"] == "2026-06-15")
        view = try await d.submit(view, Answers.birthdate)
        #expect(view.field("location")?["type"] == "search")
        view = try await d.submit(view, Answers.location)
        let options = try #require(view.field("gender")?["options"]?.arrayValue)
        #expect(options.map { $0["value"] } == ["male", "female", "non_binary", "prefer_not_to_say"])
        #expect(options.map { $0["label"] } == ["Male", "Female", "Non-binary", "Prefer not to say"])
    }

    @Test func genderMustBeOneOfTheFourOptions() async throws {
        let d = try await teePals()
        let view = try await d.session(at: "gender")
        for wrong: JSONValue in ["Female", "other", "nonbinary"] {
            let error = await d.refuse(view, ["gender": wrong])
            #expect(error?.code == -32004)
            #expect(error?.fieldErrors.map(\.code) == [.notAnOption])
        }
        #expect(await d.refuse(view, [:])?.fieldErrors.map(\.code) == [.required])
        for value in ["male", "non_binary", "prefer_not_to_say"] {
            let other = try await d.session("u-\(value)", at: "gender")
            #expect(try await d.submit(other, ["gender": .string(value)]).status == .completed)
        }
    }

    @Test func completionWritesThePublicAndPrivateProfiles() async throws {
        let d = try await teePals()
        _ = try await d.completed("u1")
        let profile = try await d.profile("u1")
        #expect(profile["completedAt"] == "2026-06-15T12:00:00Z")
        let records = try #require(profile["records"]?.objectValue)
        #expect(Set(records.keys) == ["profile_public", "profile_private"])
        #expect(
            records["profile_public"] == [
                "nickname": "Birdie Queen", "cityId": "4671654", "label": "Austin, TX, United States",
                "latitude": 30.26715, "longitude": -97.74306, "countryCode": "US",
                "gender": "female", "photoUrl": nil, "skillLevel": nil,
            ])
        #expect(records["profile_private"] == ["ageVerified": true, "ageVerifiedAt": "2026-06-15T12:00:00Z"])
        #expect(!profile.serialized().contains(Answers.adultBirthdate))
    }

    @Test func aReturningUserResumesAtTheFirstMissingAnswer() async throws {
        let d = try await teePals()
        var view = try await d.start("u1")
        #expect(try await d.start("u1").stepId == "nickname")
        view = try await d.submit(view, Answers.nickname)
        view = try await d.submit(view, Answers.birthdate)
        // Closing the app on the location step: the birthdate counts as answered though it was not kept.
        var resumed = try await d.start("u1")
        #expect(resumed.stepId == "location")
        #expect(resumed.sessionId == view.sessionId)
        // Back to the first step, then away: the next launch skips what is answered.
        view = try await d.submit(resumed, Answers.location)
        view = try await d.back(view)
        view = try await d.back(view)
        view = try await d.back(view)
        #expect(view.stepId == "nickname")
        resumed = try await d.start("u1")
        #expect(resumed.stepId == "gender")
        #expect(resumed.progressLabel == "4/4")
        #expect(try await d.submit(resumed, Answers.gender).status == .completed)
    }

    @Test func backKeepsEveryAnswerButTheBirthdate() async throws {
        let d = try await teePals()
        var view = try await d.session(at: "gender")
        view = try await d.back(view)
        #expect(view.stepId == "location")
        let savedCity = try #require(view.value("location"))
        #expect(savedCity["cityId"] == "4671654")
        #expect(savedCity["label"] == "Austin, TX, United States")
        view = try await d.back(view)
        #expect(view.stepId == "birthdate")
        #expect(view.value("birthdate") == nil)
        view = try await d.back(view)
        #expect(view.stepId == "nickname")
        #expect(view.value("nickname") == "Birdie Queen")
        // Forward again: the nickname as shown, the birthdate typed again, the city posted back as shown.
        view = try await d.submit(view, ["nickname": view.value("nickname")!])
        #expect(await d.refuse(view, [:])?.fieldErrors.map(\.code) == [.required])
        view = try await d.submit(view, Answers.birthdate)
        #expect(view.value("location") == savedCity)
        view = try await d.submit(view, ["location": savedCity])
        #expect(view.stepId == "gender")
    }

    @Test func describeGivesTheStepsAndTheThreePosters() async throws {
        let d = try await teePals()
        let description = try await d.call("flow.describe")
        #expect(description["steps"]?.arrayValue?.map { $0["id"] } == ["nickname", "birthdate", "location", "gender"])
        #expect(description["steps"]?.arrayValue?.map { $0["fields"] } == [["nickname"], ["birthdate"], ["location"], ["gender"]])
        #expect(description["mermaid"]?.stringValue?.hasPrefix("flowchart TD") == true)
        let posters = try #require(description["intro"]?.arrayValue)
        #expect(posters.map { $0["headline"] } == ["Find Your Next Round", "Host Like a Pro", "Golf is Better Together"])
        #expect(posters.map { $0["highlight"] } == ["Next Round", "Pro", "Together"])
        #expect(
            posters.map { $0["subheading"] } == [
                "Find nearby rounds and meet golfers who match your vibe",
                "Organize rounds and build the perfect group",
                "Connect, share your game, and build your golf circle",
            ])
        for poster in posters {
            let headline = try #require(poster["headline"]?.stringValue)
            #expect(headline.hasSuffix(try #require(poster["highlight"]?.stringValue)))
        }
    }

    @Test func aCompletedSessionTakesNoMoreSubmits() async throws {
        let d = try await teePals()
        let done = try await d.completed("u1")
        let again = try await d.start("u1")
        #expect(again.status == .completed)
        #expect(again.sessionId == done.sessionId)
        let error = await d.error(
            "flow.submit",
            [
                "sessionId": .string(done.sessionId), "stepId": "gender", "revision": .int(Int64(done.revision)),
                "values": .object(["gender": "male"]),
            ])
        #expect(error?.code == -32005)
    }
}
