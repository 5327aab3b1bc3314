import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import Tailwag

/// Tailwag's flow through the engine: both branches, the list and the conditional field, the
/// review, the records, the gate after completion and the default `profile.update`.
@Suite struct TailwagFlowTests {
    let driver: FlowDriver

    init() async throws { driver = try await FlowDriver(plugin: TailwagPlugin()) }
    let rex: JSONValue = ["name": "Rex", "species": "dog", "age": 3]
    /// A week after the test clock's day: before the end of the month after next, which the
    /// first sit must not pass.
    var nextWeek: JSONValue { .string(CalendarDate(driver.clock.now).adding(days: 7).description) }

    func startAtRole(_ userId: String = "u1") async throws -> SessionView {
        let view = try await driver.start(userId, user: UserDetails(firstName: "Alex"))
        #expect(view.title == "Welcome to Tailwag, Alex!")
        return try await driver.submit(view)
    }

    @Test func anOwnerListsPetsReviewsAndCompletes() async throws {
        var view = try await startAtRole()
        #expect(view.progressLabel == "Step 1 of 3")
        view = try await driver.submit(view, ["role": "owner"])
        #expect(view.stepId == "pets")
        #expect(view.progressLabel == "Step 2 of 3")
        view = try await driver.submit(view, ["pets": [rex], "firstSit": nextWeek])
        #expect(view.stepId == "area", "the branch rejoins after the role step")
        #expect(view.progressLabel == "Step 2 of 3")
        view = try await driver.submit(view, ["postcode": "94110"])
        #expect(view.stepId == "review")
        let sections = view.step?.content["sections"]?.arrayValue ?? []
        #expect(sections.map { $0["title"] } == ["You", "Your pets", "Where"])
        #expect(sections.map { $0["edit"] } == ["role", "pets", "area"])
        #expect(sections.first?["lines"] == ["I am: A pet owner"], "an option is shown by its label")
        #expect(sections.dropFirst().first?["lines"]?[0] == "Your pets: Name Rex, Species Dog, Age 3")
        #expect(view.step?.actions.map(\.id).contains("edit") == true)
        view = try await driver.submit(view)
        #expect(view.status == .completed)
        let account = try await driver.profile("u1")["records"]?["account"]
        #expect(account?["role"] == "owner")
        #expect(account?["pets"] == [rex])
        #expect(account?["yearsSitting"] == nil)
    }

    @Test func everyBadPetIsReportedAtOnce() async throws {
        var view = try await startAtRole()
        view = try await driver.submit(view, ["role": "owner"])
        let refused = await driver.refuse(
            view, ["pets": [["name": "", "species": "dog"], ["name": "Tom", "species": "fish", "age": 99]], "firstSit": nextWeek])
        #expect(refused?.code == -32004)
        #expect(Set(refused?.fieldErrors.map(\.code) ?? []) == [.required, .notAnOption, .outOfRange])
        #expect(refused?.fieldErrors.allSatisfy { $0.field == "pets" } == true, "list-item errors land on the list field")
        #expect(await driver.refuse(view, ["pets": []])?.fieldErrors.first?.code == .count)
    }

    @Test func anOtherPetSaysWhatKindAnOldOneHowToCareAndTheFirstSitIsByTheMonthAfterNext() async throws {
        var view = try await startAtRole()
        view = try await driver.submit(view, ["role": "owner"])
        let today = CalendarDate(driver.clock.now)
        let last = try #require(TemporalBound.endOfMonth(monthsFromToday: 2).date(on: today))
        #expect(last.day == CalendarDate.daysIn(month: last.month, year: last.year))
        #expect(view.step?.fields.first { $0.id == "firstSit" }?.max == .string(last.description))
        let otherWithoutKind: JSONValue = ["name": "Bubbles", "species": "other"]
        let oldWithoutCare: JSONValue = ["name": "Gran", "species": "cat", "age": 14]
        let refused = await driver.refuse(
            view, ["pets": [rex, otherWithoutKind, oldWithoutCare], "firstSit": .string(last.adding(days: 1).description)])
        #expect(refused?.fieldErrors.map(\.code) == [.required, .required, .outOfRange])
        #expect(refused?.fieldErrors.map(\.message).prefix(2) == ["Entry 2: What kind is required.", "Entry 3: Care notes is required."])
        let dogWithKind: JSONValue = ["name": "Rex", "species": "dog", "kind": "Labrador"]
        view = try await driver.submit(
            view,
            [
                "pets": [dogWithKind, ["name": "Bubbles", "species": "other", "kind": "Goldfish"]], "firstSit": .string(today.description),
            ])
        view = try await driver.walk(view, [["postcode": "94110"], [:]])
        let pets = try await driver.profile("u1")["records"]?["account"]?["pets"]?.arrayValue ?? []
        #expect(pets.count == 2)
        #expect(pets.first?["kind"] == nil, "a hidden item field's value is dropped from that entry only")
        #expect(pets.last?["kind"] == "Goldfish")
    }

    @Test func aSitterIsAskedAboutTheFenceOnlyWithAYard() async throws {
        var view = try await startAtRole()
        view = try await driver.submit(view, ["role": "sitter"])
        #expect(view.stepId == "sitter_home")
        let refused = await driver.refuse(view, ["yearsSitting": 4, "hasYard": true])
        #expect(refused?.fieldErrors.map(\.field) == ["yardFenced"])
        #expect(await driver.refuse(view, ["yearsSitting": 1, "hasYard": false])?.fieldErrors.map(\.field) == ["firstAid"], "asked of new sitters")
        view = try await driver.submit(view, ["yearsSitting": 4, "hasYard": false, "yardFenced": true])
        #expect(view.stepId == "area")
        #expect(await driver.refuse(view, ["postcode": "SW1"])?.fieldErrors.first?.message == "Enter your five-digit postcode.")
        view = try await driver.walk(view, [["postcode": "10001"], [:]])
        let account = try await driver.profile("u1")["records"]?["account"]
        #expect(account?["hasYard"] == false)
        #expect(account?["yardFenced"] == nil, "a hidden field's value is dropped")
    }

    @Test func bookingsWaitForAnIDDocument() async throws {
        let early = try await driver.gate("u1", "book_sitter")
        #expect(early["gate"] == "onboarding")
        #expect(early["requirements"]?.arrayValue?.map { $0["id"] } == ["onboarding", "idDocument"], "every requirement, before completion too")
        var view = try await startAtRole()
        view = try await driver.walk(view, [["role": "owner"], ["pets": [rex], "firstSit": nextWeek], ["postcode": "94110"], [:]])
        #expect(view.status == .completed)
        let blocked = try await driver.gate("u1", "book_sitter")
        #expect(blocked["allowed"] == false)
        #expect(blocked["gate"] == "verified")
        #expect(try await driver.gate("u1", "send_message")["allowed"] == true, "other actions are not this gate's business")

        let refused = await driver.error("profile.update", ["userId": "u1", "values": ["idDocumentUrl": "http://x", "nickname": "A"]])
        #expect(Set(refused?.fieldErrors.map(\.code) ?? []) == [.invalidFormat, .notEditable], "every bad key at once")
        _ = try await driver.call("profile.update", ["userId": "u1", "values": ["idDocumentUrl": "https://ids.example/alex.jpg"]])
        #expect(try await driver.gate("u1", "book_sitter")["allowed"] == true)
    }

    /// Docs/plugins/tailwag.md shows the flow's current diagram.
    @Test func theDocsPageShowsTheCurrentDiagram() throws {
        let page = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/plugins/tailwag.md"), encoding: .utf8)
        let diagram = try #require(page.components(separatedBy: "```mermaid\n").dropFirst().first?.components(separatedBy: "```").first)
        let plugin = TailwagPlugin()
        let live = FlowDiagram(flow: plugin.flows[0], plugin: plugin).mermaid
        #expect(diagram.trimmingCharacters(in: .whitespacesAndNewlines) == live)
        _ = try MermaidChecker.check(live).get()
    }
}
// scaffold-omit-begin: the flow's version history. A plugin the scaffold writes has one version:
// it leaves out the lines to scaffold-omit-end, this test of a migration.

/// Version 2 renamed version 1's `location` step (field `zip`) to `area` (`postcode`): a session
/// that was on it moves there with its answer, declared, so `flows check` passes.
@Suite struct TailwagVersionTests {
    @Test func aVersionOneSessionOnTheRenamedStepMovesWithItsAnswer() throws {
        let plugin = TailwagPlugin()
        let engine = FlowEngine(plugin: plugin, flow: try #require(plugin.flow("onboarding")))
        #expect(engine.version == "3")
        let now = Date()
        let onLocation = SessionState(
            id: "s1", tenant: "tailwag", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: "v1-shape",
            revision: 3, path: ["welcome", "role", "location"],
            answers: ["welcome": [:], "role": ["role": "owner"], "location": ["zip": "94110"]],
            arrivedAt: now, createdAt: now, updatedAt: now)
        let move = engine.move(onLocation, now: now)
        #expect(move.declared && !move.losesUndeclared)
        #expect(move.state.currentStep == "area" && move.state.revision == 3)
        #expect(move.state.answers["area"] == ["postcode": "94110"])
        #expect(engine.view(move.state, now: now).step?.fields.first { $0.id == "postcode" }?.value == "94110")
    }
}
// scaffold-omit-end
