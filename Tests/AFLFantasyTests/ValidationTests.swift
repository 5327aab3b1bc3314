import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import AFLFantasy

/// The `validation` step through injected TeamValidators: a refusal and the recovery, an outage,
/// a validator that never answers, and what the validator is told.
@Suite struct ValidationTests {
    /// Walks a new session to `validation` with `credentials`, on the existing-team path.
    func atValidation(_ d: FlowDriver, _ credentials: [String: JSONValue] = Answers.credentials) async throws -> SessionView {
        let view = try await atTeamChoice(d)
        return try await d.walk(view, [Answers.existingTeam, Answers.personal, credentials])
    }

    @Test func aRefusedTeamSendsTheUserBackToCredentialsAndTheyRecover() async throws {
        let reason = "We couldn't find team 111111. Check the number on your team page."
        let validator = ScriptedValidator(refused: ["111111": reason])
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: validator))
        var view = try await atValidation(d, Answers.team("111111", name: "Wrong Team"))
        #expect(view.stepId == "validation")

        view = try await d.submit(view)
        #expect(view.status == .active)
        #expect(view.stepId == "credentials")
        #expect(view.progressLabel == "Step 4 of 6")
        #expect(view.stepErrors == [FieldError(field: "teamId", code: .notAnOption, message: reason)])
        // The refused answers stay, to be corrected.
        #expect(view.value("teamId") == "111111")
        #expect(view.value("teamName") == "Wrong Team")
        // Back still follows the path taken.
        #expect(view.actions == ["continue", "back"])
        #expect(await d.error("profile.get", ["userId": "u1"])?.code == -32002)

        // The team name the step showed is cleared on purpose (null); a field left out would
        // keep the answer shown.
        view = try await d.submit(view, Answers.team("222222").merging(["teamName": .null]) { $1 })
        #expect(view.stepId == "validation")
        let done = try await d.submit(view)
        #expect(done.status == .completed)
        #expect(validator.calls == ["111111|Wrong Team", "222222|-"])
        let account = try await d.profile("u1")["records"]?["account"]
        #expect(account?["teamId"] == "222222")
        #expect(account?["teamName"] == .null)
        #expect(account?["teamValidation"] == "passed")
    }

    /// The refusal is logged by the submit that applies it, and completion by its own, each once
    /// committed, with the plugin's label.
    @Test func theRefusalAndTheCompletionAreLoggedOnce() async throws {
        let logs = LogLines()
        let validator = ScriptedValidator(refused: ["111111": "We couldn't find team 111111."])
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: validator), pluginLogger: logs.logger)
        var view = try await d.submit(try await atValidation(d, Answers.team("111111")))
        #expect(view.stepId == "credentials")
        #expect(logs.all == ["AFLFantasy [AFLFantasy] info team validator refused a Team ID step=validation"])
        view = try await d.submit(try await d.submit(view, Answers.team("222222")))
        #expect(view.status == .completed)
        #expect(
            logs.all == [
                "AFLFantasy [AFLFantasy] info team validator refused a Team ID step=validation",
                "AFLFantasy [AFLFantasy] info onboarding completed path=existing validatedBy=validator",
            ])
    }

    @Test func theErrorsStayOnCredentialsUntilItsNextSubmit() async throws {
        let validator = ScriptedValidator(refused: ["111111": "Not found."])
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: validator))
        var view = try await atValidation(d, Answers.team("111111"))
        view = try await d.submit(view)
        #expect(view.stepErrors.count == 1)
        // A refused resubmit keeps them; going back and forth keeps them too.
        #expect(await d.refuse(view, ["teamId": "12"])?.code == -32004)
        view = try await d.back(view)
        #expect(view.stepId == "personal_info")
        view = try await d.submit(view, Answers.personal)
        #expect(view.stepErrors.first?.message == "Not found.")
        view = try await d.submit(view, Answers.team("111111"))
        #expect(view.stepId == "validation")
        view = try await d.back(view)
        #expect(view.stepId == "credentials")
        #expect(view.stepErrors.isEmpty)
    }

    @Test func anUnreachableValidatorFallsBackToTheOfflineForm() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: UnreachableValidator()))
        let view = try await atValidation(d)
        let done = try await d.submit(view)
        #expect(done.status == .completed)
        #expect(done.completion?["screen"]?["title"] == "You're All Set, Jordan!")
        let account = try await d.profile("u1")["records"]?["account"]
        #expect(account?["teamValidation"] == "fallback")
        #expect(account?["teamId"] == "123456")
    }

    @Test func aValidatorThatNeverAnswersTimesOutToTheFallback() async throws {
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: HangingValidator(), validationTimeout: .milliseconds(100)))
        let view = try await atValidation(d)
        let done = try await d.submit(view)
        #expect(done.status == .completed)
        #expect(try await d.profile("u1")["records"]?["account"]?["teamValidation"] == "fallback")
    }

    @Test func theValidatorsTeamNameFillsAGapButNeverOverridesTheUser() async throws {
        let validator = ScriptedValidator(names: ["123456": "Official Name", "654321": "Official Name"])
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: validator))
        var view = try await atValidation(d, Answers.team("123456"))
        view = try await d.submit(view)
        #expect(view.completion?["screen"]?["summary"]?.arrayValue?[1] == ["label": "Team", "value": "Official Name"])
        #expect(try await d.profile("u1")["records"]?["account"]?["teamName"] == "Official Name")

        var other = try await atTeamChoice(d, "u2")
        other = try await d.walk(other, [Answers.existingTeam, Answers.personal, Answers.team("654321", name: "Mine"), [:]])
        #expect(try await d.profile("u2")["records"]?["account"]?["teamName"] == "Mine")
    }

    @Test func theDefaultOfflineValidatorChecksOnlyTheForm() async throws {
        let validator = OfflineTeamValidator()
        #expect(try await validator.validate(teamId: "0000", teamName: nil) == .valid)
        #expect(try await validator.validate(teamId: "9999999999", teamName: "x") == .valid)
        #expect(try await validator.validate(teamId: "999", teamName: nil).verdict != .valid)
        #expect(try await validator.validate(teamId: "12345678901", teamName: nil).verdict != .valid)
        #expect(try await validator.validate(teamId: "12ab", teamName: nil).verdict != .valid)
    }

    @Test func aRetriedValidationSubmitReturnsTheCompletedView() async throws {
        let validator = ScriptedValidator()
        let d = try await FlowDriver(plugin: AFLFantasyPlugin(validator: validator))
        let view = try await atValidation(d)
        let done = try await d.submit(view)
        let again = try await d.submit(view)
        #expect(again.status == .completed)
        #expect(again.completion == done.completion)
        #expect(validator.calls.count == 1)
    }
}
