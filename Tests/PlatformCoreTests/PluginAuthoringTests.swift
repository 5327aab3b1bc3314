import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// What a plugin author declares instead of writing it by hand (the fixture's `planner` flow):
/// date and time bounds, conditions on list item fields, a step's own rules in the same reply as
/// the field rules, and the generic review.
@Suite struct PluginAuthoringTests {
    let driver: FlowDriver

    init() async throws { driver = try await FlowDriver(plugin: FixturePlugin()) }
    var today: CalendarDate { CalendarDate(driver.clock.now) }

    func startAtPlan(level: String = "casual") async throws -> SessionView {
        var view = try await driver.start("u1", user: UserDetails(firstName: "Alex"), flow: "planner")
        view = try await driver.submit(view, ["level": .string(level)])
        if level == "casual" {
            view = try await driver.submit(view, ["daysPerWeek": 3])
        } else {
            view = try await driver.submit(view, ["races": [["name": "City 10K", "distance": "10k", "on": .string(today.description)]]])
        }
        #expect(view.stepId == "plan")
        return view
    }

    func planValues(start: CalendarDate? = nil, time: String = "07:00") -> [String: JSONValue] {
        ["startDate": .string((start ?? today.adding(days: 3)).description), "startTime": .string(time)]
    }

    // MARK: - date and time bounds

    @Test func boundsAreShownAsISODatesCountedFromTheCommandsDay() async throws {
        let view = try await startAtPlan()
        #expect(view.field("startDate")?["min"] == .string(today.description))
        #expect(view.field("startDate")?["max"] == .string(today.adding(days: 60).description))
        #expect(view.field("startTime")?["min"] == "05:00")
        #expect(view.field("startTime")?["max"] == "21:30")
        let born = try #require(TemporalBound.yearsAgo(16).date(on: today))
        #expect(view.field("born")?["max"] == .string(born.description))
        #expect(born.year == today.year - 16 && born.month == today.month && born.day == today.day)

        driver.clock.advance(seconds: 2 * 86_400)
        let later = try await driver.get(view)
        #expect(later.field("startDate")?["min"] == .string(today.description), "the bound moves with the day")
    }

    @Test func aDateOrTimeOutsideItsBoundsIsOutOfRangeWithTheFieldsMessage() async throws {
        let view = try await startAtPlan()
        let refused = await driver.refuse(
            view,
            [
                "startDate": .string(today.adding(days: -1).description), "startTime": "22:00",
                "born": .string(today.adding(days: -1).description),
            ])
        #expect(refused?.code == -32004)
        let errors = refused?.fieldErrors ?? []
        #expect(errors.map(\.field) == ["startDate", "startTime", "born"])
        #expect(errors.allSatisfy { $0.code == .outOfRange })
        #expect(errors.first?.message == "Start must be between \(today) and \(today.adding(days: 60)).")
        #expect(errors.dropFirst().first?.message == "We don't schedule runs after 21:30.", "a bound's own message")
        #expect(await driver.refuse(view, planValues(start: today.adding(days: 61)))?.fieldErrors.map(\.code) == [.outOfRange])
        #expect(await driver.refuse(view, planValues(time: "04:59"))?.fieldErrors.first?.message == "Start time must be between 05:00 and 21:30.")
        let accepted = try await driver.submit(view, planValues(start: today.adding(days: 60), time: "05:00"))
        #expect(accepted.stepId == "review", "both ends are allowed")
    }

    @Test func relativeBoundsCountCalendarDaysAndYears() throws {
        let leapDay = try #require(CalendarDate(year: 2028, month: 2, day: 29))
        #expect(TemporalBound.yearsAgo(1).date(on: leapDay)?.description == "2027-02-28", "29 February in a common year is the 28th")
        #expect(TemporalBound.yearsAgo(4).date(on: leapDay)?.description == "2024-02-29")
        #expect(TemporalBound.daysFromToday(1).date(on: leapDay)?.description == "2028-03-01")
        #expect(TemporalBound.daysAgo(60).date(on: leapDay)?.description == "2027-12-31")
        #expect(TemporalBound.yearsFromToday(2).date(on: CalendarDate(year: 2026, month: 12, day: 31)!)?.description == "2028-12-31")
        #expect(TemporalBound.date(1900, 1, 1).date(on: leapDay)?.description == "1900-01-01")
        for days in [-800_000, -1, 0, 1, 20_000, 2_932_896] {
            #expect(CalendarDate(daysSinceEpoch: days).daysSinceEpoch == days)
        }
        #expect(CalendarDate(daysSinceEpoch: 0).description == "1970-01-01")
        #expect(CalendarDate(Date(timeIntervalSince1970: 1_795_000_000)).description == "2026-11-18")
        #expect(CalendarDate(Date(timeIntervalSince1970: -1)).description == "1969-12-31", "whole days round down before the epoch")
    }

    @Test func boundsOfTheWrongKindOrTheWrongOrderAreDefinitionProblems() {
        struct Bad: FlowStep {
            let id = "bad"
            let kind = StepKind.question
            func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Bad") }
            func fields(in context: StepContext) -> [FieldSpec] {
                [
                    FieldSpec(id: "day", type: .date, label: "Day", earliest: .time(6, 0)),
                    FieldSpec(id: "when", type: .date, label: "When", earliest: .date(2030, 1, 1), latest: .date(2020, 1, 1)),
                    FieldSpec(
                        id: "items", type: .list, label: "Items",
                        itemFields: [
                            FieldSpec(id: "a", type: .text, label: "A", visibleWhen: VisibilityCondition(field: "elsewhere", equals: true))
                        ]),
                ]
            }
        }
        let flow = Flow(id: "bad", steps: [Bad()], completion: PlannerCompletion())
        let problems = flow.definitionProblems(StepContext(tenant: "t", displayName: "X", now: Date()))
        #expect(problems.count == 3)
        #expect(problems.contains { $0.contains("field day (date) has bounds of another kind") })
        #expect(problems.contains { $0.contains("field when's earliest date is after its latest") })
        #expect(problems.contains { $0.contains("items.a is visible when elsewhere") })
    }

    // MARK: - list item conditions and every error at once

    @Test func anItemFieldIsAskedOnlyOfTheEntriesItsConditionHoldsFor() async throws {
        var view = try await driver.start("u1", flow: "planner")
        view = try await driver.submit(view, ["level": "racer"])
        let ultraWithoutKm: JSONValue = ["name": "Western States", "distance": "ultra"]
        let refused = await driver.refuse(view, ["races": [ultraWithoutKm]])
        #expect(refused?.fieldErrors.map(\.message) == ["Entry 1: Kilometres is required."])
        let tooShort: JSONValue = ["name": "Western States", "distance": "ultra", "ultraKm": 42]
        #expect(await driver.refuse(view, ["races": [tooShort]])?.fieldErrors.first?.code == .outOfRange)
        #expect(view.field("races")?["itemFields"]?.arrayValue?[2]["visibleWhen"] == ["field": "distance", "equals": "ultra"])

        let tenKWithKm: JSONValue = ["name": "City 10K", "distance": "10k", "ultraKm": 99]
        let ultra: JSONValue = ["name": "Western States", "distance": "ultra", "ultraKm": 161]
        view = try await driver.submit(view, ["races": [tenKWithKm, ultra]])
        view = try await driver.submit(view, planValues())
        view = try await driver.submit(view)
        #expect(view.status == .completed)
        let races = try await driver.profile("u1")["records"]?["plan"]?["races"]?.arrayValue ?? []
        #expect(races.count == 2)
        #expect(races.first?["ultraKm"] == nil, "a hidden item field's value is dropped from that entry")
        #expect(races.last?["ultraKm"] == 161)
    }

    @Test func theStepsOwnRulesRunBesideTheFieldRulesInOneReply() async throws {
        var view = try await driver.start("u1", flow: "planner")
        view = try await driver.submit(view, ["level": "racer"])
        let refused = await driver.refuse(
            view,
            [
                "races": [
                    ["name": "", "distance": "10k"], ["name": "Boston", "distance": "marathon"], ["name": "boston", "distance": "10k"],
                    ["name": "Comrades", "distance": "ultra"], ["name": "Tomorrow", "distance": "10k", "on": .string(today.adding(days: 1).description)],
                ]
            ])
        let errors = refused?.fieldErrors ?? []
        #expect(errors.map(\.code) == [.required, .required, .outOfRange, .duplicate])
        #expect(
            errors.map(\.message) == [
                "Entry 1: Race is required.", "Entry 4: Kilometres is required.", "Entry 5: Date must be \(today) or earlier.",
                "Each race once, please.",
            ])
        #expect(errors.allSatisfy { $0.field == "races" })
        #expect(await driver.refuse(view, ["races": []])?.fieldErrors.map(\.code) == [.count])
    }

    // MARK: - the generic review

    @Test func theReviewShowsTheBranchTakenWithLabelsAndEditTargets() async throws {
        var view = try await startAtPlan(level: "racer")
        view = try await driver.submit(view, planValues().merging(["notes": "knees"]) { $1 })
        #expect(view.stepId == "review")
        #expect(view.title == "Ready, Alex?")
        #expect(view.step?.actions.map(\.id) == ["continue", "edit", "back"])
        let sections = view.step?.content["sections"]?.arrayValue ?? []
        #expect(sections.map { $0["id"] } == ["level", "races", "plan"])
        #expect(sections.map { $0["title"] } == ["You", "Your recent races", "When do you start?"])
        #expect(sections.map { $0["edit"] } == [nil, "races", "plan"], "a read-only section has no Edit target")
        #expect(sections[0]["lines"] == ["Level: I race"], "an option is shown by its label")
        #expect(sections[1]["lines"] == [.string("Recent races: Race City 10K, Distance 10K, Date \(today)")])
        #expect(sections[2]["answers"]?.arrayValue?.map { $0["field"] } == ["startDate", "startTime"], "notes are omitted")

        // Change the branch: the races are no longer on the path, and the habit section is dropped by the hook.
        view = try await driver.goto(view, "level")
        view = try await driver.submit(view, ["level": "casual"])
        view = try await driver.submit(view, ["daysPerWeek": 4])
        view = try await driver.submit(view)
        #expect(view.stepId == "review")
        #expect(view.step?.content["sections"]?.arrayValue?.map { $0["id"] } == ["level", "plan"])
        #expect(view.step?.content["sections"]?.arrayValue?.first?["lines"] == ["Level: Just for fun"])
    }

    @Test func theReviewRechecksEveryAnswerOnThePathBeforeGoingOn() async throws {
        var view = try await startAtPlan()
        view = try await driver.submit(view, planValues(start: today.adding(days: 1)))
        #expect(view.stepId == "review")
        driver.clock.advance(seconds: 3 * 86_400)
        let refused = await driver.refuse(view)
        #expect(refused?.fieldErrors.map(\.field) == ["startDate"], "the start date has passed since it was given")
        #expect(refused?.fieldErrors.first?.code == .outOfRange)
        view = try await driver.goto(view, "plan")
        view = try await driver.submit(view, planValues(start: today))
        view = try await driver.submit(view)
        #expect(view.status == .completed)
    }
}
