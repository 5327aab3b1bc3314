import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

// The fifth app of issue 27, written from Docs/plugins.md alone: a running club with a branch on
// level, recent races whose ultra distance is asked per race, a first run within the next 60
// days, availability with a waiver that group runs need, a review with Edit buttons, a record, a
// gate and `profile.update`. No `extra` keys, no hand `stored`, no hand `validate` for bounds or
// conditions. The plugin is everything down to the tests (the "lines" figure of the issue).

struct StridePlugin: OnboardingPlugin {
    let id = "stride"
    let name = "Stride"
    let version = "1.0.0"

    var flows: [Flow] {
        [Flow(steps: [StrideLevel(), StrideStart(), StrideAvailability(), strideReview], completion: StrideCompletion())]
    }
    var gates: [any Gate] { [WaiverGate()] }
    var onboardingGate: OnboardingGate { OnboardingGate(title: "Finish joining Stride") }
    var editableFields: [FieldSpec] { [StrideField.waiver] }
}

enum StrideField {
    static let level = FieldSpec(
        id: "level", type: .choice, label: "Level",
        options: [
            FieldOption(value: "social", label: "Social runner"), FieldOption(value: "racer", label: "Racer"),
        ])
    static let races = FieldSpec(
        id: "races", type: .list, label: "Recent races", minItems: 1, maxItems: 10,
        itemFields: [
            FieldSpec(id: "name", type: .text, label: "Race", maxLength: 60),
            FieldSpec(
                id: "distance", type: .choice, label: "Distance",
                options: [
                    FieldOption(value: "10k", label: "10K"), FieldOption(value: "half", label: "Half marathon"),
                    FieldOption(value: "full", label: "Marathon"), FieldOption(value: "ultra", label: "Ultra"),
                ]),
            FieldSpec(
                id: "ultraKm", type: .integer, label: "Ultra distance (km)", min: 43, max: 500,
                visibleWhen: VisibilityCondition(field: "distance", equals: "ultra")),
            FieldSpec(id: "date", type: .date, label: "Date", required: false, latest: .today),
        ])
    static let firstRun = FieldSpec(id: "firstRun", type: .date, label: "First group run", earliest: .today, latest: .daysFromToday(60))
    static let days = FieldSpec(
        id: "days", type: .multiChoice, label: "Days you can run",
        options: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map { FieldOption(value: $0, label: $0.capitalized) }, minItems: 1)
    static let startTime = FieldSpec(id: "startTime", type: .time, label: "Usual start", earliest: .time(5, 0), latest: .time(21, 0))
    static let waiver = FieldSpec(id: "waiver", type: .boolean, label: "I accept the club's waiver", required: false, record: "member")
}

struct StrideLevel: FlowStep {
    let id = "level"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [StrideField.level] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "How do you run, \(context.displayName)?") }
    var branches: [FlowBranch] {
        [FlowBranch(when: "level = racer", if: { $0["level"] == "racer" }, steps: [StrideRaces()])]
    }
}

struct StrideRaces: FlowStep {
    let id = "races"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [StrideField.races] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Your recent races") }
    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        let names = (values["races"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue?.lowercased() }
        return Set(names).count < names.count ? [FieldError(field: "races", code: .duplicate, message: "List each race once.")] : []
    }
}

struct StrideStart: FlowStep {
    let id = "start"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [StrideField.firstRun] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "When is your first group run?") }
}

struct StrideAvailability: FlowStep {
    let id = "availability"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [StrideField.days, StrideField.startTime, StrideField.waiver] }
    func copy(in context: StepContext) -> StepCopy {
        StepCopy(title: "When can you run?", helper: "Group runs need the waiver; you can accept it later too.")
    }
}

let strideReview = ReviewStep(
    copy: { StepCopy(title: "All set, \($0.displayName)?", actions: [.continue("Join Stride")]) },
    sectionTitles: ["level": "You", "races": "Recent races", "start": "First run", "availability": "Availability"])

struct StrideCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        var member: [String: JSONValue] = ["userId": .string(context.userId)]
        for id in ["level", "races", "firstRun", "days", "startTime", "waiver"] { member[id] = context.value(of: id) }
        return CompletionResult(records: ["member": .object(member)], message: "Welcome to Stride, \(context.displayName)!")
    }
}

struct WaiverGate: Gate {
    let id = "waiver"
    func decide(action: String, profile: Profile) -> GateDecision? {
        guard action == "join_group_run" else { return nil }
        let signed = profile.records["member"]?["waiver"] == true
        let requirement = GateRequirement(id: "waiver", label: "The club's waiver", satisfied: signed)
        return signed
            ? GateDecision(action: action, allowed: true, requirements: [requirement])
            : GateDecision(
                action: action, allowed: false, gate: id, title: "Accept the waiver",
                message: "Group runs need the club's waiver.", cta: "Read the waiver", requirements: [requirement])
    }
}

@Suite struct FifthAppTests {
    @Test func aRacerJoinsReviewsAndIsGatedUntilTheWaiver() async throws {
        let driver = try await FlowDriver(plugin: StridePlugin())
        let today = CalendarDate(driver.clock.now)
        var view = try await driver.start("u1", user: UserDetails(firstName: "Ana"))
        view = try await driver.submit(view, ["level": "racer"])
        let refused = await driver.refuse(
            view, ["races": [["name": "Comrades", "distance": "ultra"], ["name": "Berlin", "distance": "full"], ["name": "berlin", "distance": "10k"]]])
        #expect(refused?.fieldErrors.map(\.message) == ["Entry 1: Ultra distance (km) is required.", "List each race once."])
        view = try await driver.submit(
            view, ["races": [["name": "Comrades", "distance": "ultra", "ultraKm": 90], ["name": "Berlin", "distance": "full", "ultraKm": 5]]])
        #expect(await driver.refuse(view, ["firstRun": .string(today.adding(days: 61).description)])?.fieldErrors.first?.code == .outOfRange)
        view = try await driver.submit(view, ["firstRun": .string(today.adding(days: 10).description)])
        view = try await driver.submit(view, ["days": ["tue", "sat"], "startTime": "06:30"])
        #expect(view.stepId == "review")
        let sections = view.step?.content["sections"]?.arrayValue ?? []
        #expect(sections.map { $0["title"] } == ["You", "Recent races", "First run", "Availability"])
        #expect(sections.map { $0["edit"] } == ["level", "races", "start", "availability"])
        #expect(sections.last?["lines"]?.arrayValue?.first == "Days you can run: Tue, Sat")
        view = try await driver.submit(view)
        #expect(view.status == .completed)

        let member = try await driver.profile("u1")["records"]?["member"]
        #expect(member?["races"]?.arrayValue?.last?["ultraKm"] == nil, "a marathon keeps no ultra distance")
        #expect(try await driver.gate("u1", "join_group_run")["allowed"] == false)
        _ = try await driver.call("profile.update", ["userId": "u1", "values": ["waiver": true]])
        #expect(try await driver.gate("u1", "join_group_run")["allowed"] == true)
    }
}
