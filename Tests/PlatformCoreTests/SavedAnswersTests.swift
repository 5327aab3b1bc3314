import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

/// Walking forward again after a goto: what the step showed is what is kept. A field left out of
/// the submit keeps its saved answer; an explicit null (or blank) clears an optional one.
@Suite struct SavedAnswersTests {
    @Test func aFieldLeftOutKeepsTheAnswerTheStepShowed() async throws {
        let d = try await driver()
        var view = try await atBasics(d)
        view = try await d.submit(view, basics)
        let path = view.stepId
        view = try await d.goto(view, "basics")
        #expect(view.value("name") == "Alex")
        // Only the name changes; age, kind and hasPet were shown pre-filled and are kept.
        view = try await d.submit(view, ["name": "Sam"])
        #expect(view.stepId == path)
        view = try await d.goto(view, "basics")
        #expect(view.value("name") == "Sam")
        #expect(view.value("age") == 30)
        #expect(view.value("kind") == "alpha")
        #expect(view.value("hasPet") == false)
    }

    @Test func aFieldNeverAnsweredIsStillRequired() async throws {
        let d = try await driver()
        let view = try await atBasics(d)
        let error = await d.refuse(view, ["name": "Alex"])
        #expect(error?.code == -32004)
        #expect(error?.fieldErrors.contains { $0.field == "age" && $0.code == .required } == true)
    }
}
