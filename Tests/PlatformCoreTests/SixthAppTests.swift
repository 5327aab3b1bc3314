import Foundation
import PlatformCore
import PlatformServer
import PlatformTesting
import Testing

// The sixth app of issue 41, written from Docs/plugins.md alone: household budgeting. Members
// in a list whose school is asked only of minors, an income branch whose amount is required
// unless there is none, a start month on the 1st within the next six months, goals whose "other"
// reveals a text, a bank link the person may put off, a gate that needs it, a review with Edit
// and `profile.update`. No `extra` keys, no hand `stored`, no hand date or condition checks.
// The plugin is everything down to the tests (the "lines" figure of the issue).

struct TallyPlugin: OnboardingPlugin {
    let id = "tally"
    let name = "Tally"
    let version = "1.0.0"

    var flows: [Flow] {
        [Flow(steps: [TallyHousehold(), TallyIncome(), TallyPlan(), TallyBank(), tallyReview], completion: TallyCompletion())]
    }
    var gates: [any Gate] { [BankGate()] }
    var onboardingGate: OnboardingGate { OnboardingGate(title: "Finish setting up Tally") }
    var editableFields: [FieldSpec] { [TallyField.bank] }
}

enum TallyField {
    static func options(_ values: [String: String]) -> [FieldOption] {
        values.sorted { $0.key < $1.key }.map { FieldOption(value: $0.key, label: $0.value) }
    }
    static let members = FieldSpec(
        id: "members", type: .list, label: "Household", minItems: 1, maxItems: 8,
        itemFields: [
            FieldSpec(id: "name", type: .text, label: "Name", maxLength: 40),
            FieldSpec(id: "age", type: .integer, label: "Age", min: 0, max: 120),
            FieldSpec(id: "school", type: .text, label: "School", maxLength: 80, visibleWhen: .field("age", lessThan: 18)),
        ])
    static let income = FieldSpec(
        id: "income", type: .choice, label: "Income", options: options(["salary": "A salary", "self": "Self-employed", "none": "None right now"]))
    static let monthly = FieldSpec(
        id: "monthly", type: .integer, label: "Monthly income", min: 0, requiredWhen: .field("income", in: ["salary", "self"]))
    static let business = FieldSpec(id: "business", type: .text, label: "Business name", maxLength: 80)
    static let startMonth = FieldSpec(
        id: "startMonth", type: .date, label: "First budget month",
        earliest: .startOfMonth(monthsFromToday: 1), latest: .startOfMonth(monthsFromToday: 6),
        dayOfMonth: .first.refusing("Budgets start on the 1st of a month."))
    static let goals = FieldSpec(
        id: "goals", type: .multiChoice, label: "Goals", options: options(["save": "Save more", "debt": "Pay off debt", "other": "Something else"]),
        minItems: 1)
    static let otherGoal = FieldSpec(id: "otherGoal", type: .text, label: "Your goal", maxLength: 80, visibleWhen: .field("goals", contains: "other"))
    static let bank = FieldSpec(
        id: "bank", type: .text, label: "Bank account (IBAN)", required: false,
        pattern: try! FieldPattern("[A-Z]{2}[0-9]{2}[A-Z0-9]{8,30}", message: "Enter an IBAN, like DE89370400440532013000."),
        record: "household")
}

struct TallyHousehold: FlowStep {
    let id = "household"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [TallyField.members] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Who's in your household, \(context.displayName)?") }
    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        var seen = Set<String>()
        return (values["members"]?.arrayValue ?? []).enumerated().compactMap { index, member in
            guard let name = member["name"]?.stringValue?.lowercased(), !seen.insert(name).inserted else { return nil }
            return .entry(index, of: "members", .duplicate, "\(name.capitalized) is listed twice.")
        }
    }
}

struct TallyIncome: FlowStep {
    let id = "income"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [TallyField.income, TallyField.monthly] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Where does the money come from?") }
    var branches: [FlowBranch] {
        [FlowBranch(when: "income = self", if: { $0["income"] == "self" }, steps: [TallyBusiness()])]
    }
}

struct TallyBusiness: FlowStep {
    let id = "business"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [TallyField.business] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Your business") }
}

struct TallyPlan: FlowStep {
    let id = "plan"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [TallyField.startMonth, TallyField.goals, TallyField.otherGoal] }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Your plan") }
}

struct TallyBank: FlowStep {
    let id = "bank"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] { [TallyField.bank] }
    func copy(in context: StepContext) -> StepCopy {
        StepCopy(title: "Link your bank", helper: "You can do this later in Settings.", actions: [.continue("Link"), .skip("Later")])
    }
}

let tallyReview = ReviewStep(copy: { StepCopy(title: "All set, \($0.displayName)?", actions: [.continue("Start budgeting")]) })

struct TallyCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        var household: [String: JSONValue] = ["userId": .string(context.userId)]
        for id in ["members", "income", "monthly", "business", "startMonth", "goals", "otherGoal", "bank"] { household[id] = context.value(of: id) }
        return CompletionResult(records: ["household": .object(household)], message: "Welcome to Tally, \(context.displayName)!")
    }
}

struct BankGate: Gate {
    let id = "bank"
    func decide(action: String, profile: Profile) -> GateDecision? {
        guard action == "share_budget" else { return nil }
        let linked = profile.records["household"]?["bank"]?.stringValue != nil
        let requirement = GateRequirement(id: "bank", label: "Link your bank", satisfied: linked)
        return GateDecision(
            action: action, allowed: linked, gate: linked ? nil : id, title: linked ? nil : "Link your bank",
            message: linked ? nil : "Sharing a budget needs a linked bank.", requirements: [requirement])
    }
}

@Suite struct SixthAppTests {
    let driver: FlowDriver

    init() async throws { driver = try await FlowDriver(plugin: TallyPlugin()) }
    var today: CalendarDate { CalendarDate(driver.clock.now) }

    func month(_ months: Int, day: Int = 1) -> JSONValue {
        let first = TemporalBound.startOfMonth(monthsFromToday: months).date(on: today)!
        return .string(first.adding(days: day - 1).description)
    }

    @Test func aHouseholdIsSetUpWithEveryRuleFromData() async throws {
        var view = try await driver.start("u1", user: UserDetails(firstName: "Sam"))
        let members: JSONValue = [["name": "Sam", "age": 40, "school": "none"], ["name": "Kit", "age": 12], ["name": "sam", "age": 9, "school": "Elm"]]
        let refused = await driver.refuse(view, ["members": members])
        #expect(refused?.fieldErrors.map(\.message) == ["Entry 2: School is required.", "Entry 3: Sam is listed twice."])
        view = try await driver.submit(view, ["members": [["name": "Sam", "age": 40, "school": "none"], ["name": "Kit", "age": 12, "school": "Elm"]]])

        #expect(view.field("monthly")?["requiredWhen"] == ["field": "income", "in": ["salary", "self"]])
        #expect(await driver.refuse(view, ["income": "salary"])?.fieldErrors.map(\.field) == ["monthly"])
        view = try await driver.submit(view, ["income": "self", "monthly": 3000])
        #expect(view.stepId == "business")
        view = try await driver.submit(view, ["business": "Sam's Bikes"])

        #expect(view.field("startMonth")?["dayOfMonth"] == 1)
        #expect(view.field("startMonth")?["min"] == month(1))
        #expect(view.field("startMonth")?["max"] == month(6))
        let plan: [String: JSONValue] = ["goals": ["save", "other"], "otherGoal": "A new roof"]
        for (start, message) in [
            (month(1, day: 15), "Budgets start on the 1st of a month."),
            (month(0), "First budget month must be between \(month(1).stringValue!) and \(month(6).stringValue!)."),
            (month(7), "First budget month must be between \(month(1).stringValue!) and \(month(6).stringValue!)."),
        ] {
            let error = await driver.refuse(view, plan.merging(["startMonth": start]) { first, _ in first })
            #expect(error?.fieldErrors.map(\.message) == [message], "\(start)")
        }
        #expect(await driver.refuse(view, ["startMonth": month(2), "goals": ["other"]])?.fieldErrors.map(\.field) == ["otherGoal"])
        view = try await driver.submit(view, plan.merging(["startMonth": month(2)]) { first, _ in first })

        #expect(view.stepId == "bank")
        let before = try await driver.gate("u1", "share_budget")
        #expect(before["allowed"] == false)
        #expect(before["requirements"]?.arrayValue?.map { $0["id"] } == ["onboarding", "bank"], "every missing requirement, before completion too")
        view = try await driver.submit(view, action: "skip")

        #expect(view.stepId == "review")
        view = try await driver.goto(view, "plan")
        view = try await driver.submit(view, ["startMonth": month(2), "goals": ["save"], "otherGoal": "A new roof"])
        #expect(view.stepId == "bank", "after an Edit the way on is walked again")
        view = try await driver.submit(view, action: "skip")
        let sections = view.step?.content["sections"]?.arrayValue ?? []
        #expect(sections.map { $0["edit"] } == ["household", "income", "business", "plan"])
        view = try await driver.submit(view)
        #expect(view.status == .completed)

        let household = try await driver.profile("u1")["records"]?["household"]
        #expect(household?["otherGoal"] == nil, "a goal hidden by Edit is not kept")
        #expect(household?["members"]?.arrayValue?.first?["school"] == nil, "an adult's school is not kept")
        let after = try await driver.gate("u1", "share_budget")
        #expect(after["requirements"]?.arrayValue?.map { $0["id"] } == ["bank"])
        #expect(await driver.error("profile.update", ["userId": "u1", "values": ["bank": "nope"]])?.fieldErrors.map(\.code) == [.invalidFormat])
        _ = try await driver.call("profile.update", ["userId": "u1", "values": ["bank": "DE89370400440532013000"]])
        #expect(try await driver.gate("u1", "share_budget")["allowed"] == true)
    }
}
