import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

// The examples of Docs/plugins.md ("Dates, list conditions, every error at once, the review"),
// compiled here. Each block between `// guide: NAME` and `// end guide` must appear in the guide,
// verbatim, after a `<!-- guide: NAME -->` line; the tests below check it and drive the example.

// guide: dated-fields
enum ClubField {
    /// Within the next 60 days, counted from the day of each command.
    static let firstRun = FieldSpec(
        id: "firstRun", type: .date, label: "First group run", earliest: .today, latest: .daysFromToday(60))
    /// A bound may carry its own message; without one the field's `messages[.outOfRange]` or a
    /// generic "Birthday must be between 1900-01-01 and 2010-11-25." is used.
    static let birthdate = FieldSpec(
        id: "birthdate", type: .date, label: "Birthday",
        earliest: .date(1900, 1, 1).refusing("Please check the year."),
        latest: .yearsAgo(16).refusing("Club members are 16 or older."), sensitive: true)
    static let startTime = FieldSpec(
        id: "startTime", type: .time, label: "Usual start", required: false, earliest: .time(5, 0), latest: .time(21, 0))
}
// end guide

// guide: list-condition
struct ClubRacesStep: FlowStep {
    let id = "races"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: "races", type: .list, label: "Recent races", required: false, maxItems: 5,
                itemFields: [
                    FieldSpec(id: "name", type: .text, label: "Race", maxLength: 60),
                    FieldSpec(
                        id: "distance", type: .choice, label: "Distance",
                        options: [
                            FieldOption(value: "half", label: "Half marathon"), FieldOption(value: "full", label: "Marathon"),
                            FieldOption(value: "ultra", label: "Ultra"),
                        ]),
                    // Asked, required and kept only in the entries whose distance is "ultra".
                    FieldSpec(
                        id: "ultraKm", type: .integer, label: "Ultra distance (km)", min: 43, max: 500,
                        visibleWhen: VisibilityCondition(field: "distance", equals: "ultra")),
                ])
        ]
    }

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Your recent races") }

    /// Runs on every entry, in the same reply as their own errors.
    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        let names = (values["races"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue?.lowercased() }
        guard Set(names).count < names.count else { return [] }
        return [FieldError(field: "races", code: .duplicate, message: "List each race once.")]
    }
}
// end guide

// guide: review
let clubReview = ReviewStep(
    copy: { context in StepCopy(title: "All set, \(context.displayName)?", actions: [.continue("Join the club")]) },
    sectionTitles: ["level": "Your level", "races": "Recent races", "plan": "Your plan"],
    omitting: ["notes"],
    readOnly: ["level"],
    adjust: { section, context in
        // Hooks see each section before it is shown: rename a line, or return nil to drop it.
        guard section.id == "plan", context.value(of: "startTime") == nil else { return section }
        var quiet = section
        quiet.title = "Your plan (no usual start time)"
        return quiet
    })
// end guide

// guide: path
struct ClubCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        // `context.path` is the branch taken; answers of a branch left by going back are not in
        // `answers` but in `answersOffPath`.
        let racer = context.path.contains("races")
        var member: [String: JSONValue] = ["level": context.value(of: "level") ?? .null, "racer": .bool(racer)]
        if racer { member["races"] = context.value(of: "races") ?? [] }
        member["firstRun"] = context.value(of: "firstRun")
        return CompletionResult(records: ["member": .object(member)], message: "Welcome to the club!")
    }
}
// end guide

/// The steps around the examples, so they run through the engine.
struct ClubLevelStep: FlowStep {
    let id = "level"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: "level", type: .choice, label: "Level",
                options: [
                    FieldOption(value: "social", label: "Social runner"), FieldOption(value: "racer", label: "Racer"),
                ])
        ]
    }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "How do you run?") }
    var branches: [FlowBranch] { [FlowBranch(when: "level = racer", if: { $0["level"] == "racer" }, steps: [ClubRacesStep()])] }
}

struct ClubPlanStep: FlowStep {
    let id = "plan"
    let kind = StepKind.question
    func fields(in context: StepContext) -> [FieldSpec] {
        [ClubField.firstRun, ClubField.startTime, FieldSpec(id: "notes", type: .text, label: "Notes", required: false)]
    }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "When do you start?") }
}

struct ClubPlugin: OnboardingPlugin {
    let id = "club"
    let name = "Club"
    let version = "1.0.0"
    var flows: [Flow] { [Flow(steps: [ClubLevelStep(), ClubPlanStep(), clubReview], completion: ClubCompletion())] }
}

@Suite struct GuideExamplesTests {
    static let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/plugins.md")

    /// The blocks of this file between `// guide: NAME` and `// end guide`, by name.
    static func examples() throws -> [String: String] {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        var blocks: [String: String] = [:]
        var current: (name: String, lines: [Substring])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("// guide: ") {
                current = (String(line.dropFirst("// guide: ".count)), [])
            } else if line == "// end guide", let block = current {
                blocks[block.name] = block.lines.joined(separator: "\n")
                current = nil
            } else {
                current?.lines.append(line)
            }
        }
        return blocks
    }

    @Test func everyExampleIsInTheGuideVerbatim() throws {
        let guide = try String(contentsOf: Self.guide, encoding: .utf8)
        let examples = try Self.examples()
        #expect(examples.keys.sorted() == ["dated-fields", "list-condition", "path", "review"])
        for (name, code) in examples {
            #expect(guide.contains("<!-- guide: \(name) -->\n```swift\n\(code)\n```"), "Docs/plugins.md lacks the example \(name) as compiled here")
        }
    }

    @Test func theExamplesRunThroughTheEngine() async throws {
        let driver = try await FlowDriver(plugin: ClubPlugin())
        let today = CalendarDate(driver.clock.now)
        #expect(ClubPlugin().flows[0].definitionProblems(StepContext(tenant: "club", displayName: "X", now: Date())).isEmpty)
        var view = try await driver.start("u1", user: UserDetails(firstName: "Sam"))
        view = try await driver.submit(view, ["level": "racer"])
        let refused = await driver.refuse(
            view,
            [
                "races": [
                    ["name": "Comrades", "distance": "ultra"], ["name": "Berlin", "distance": "full"], ["name": "berlin", "distance": "half"],
                ]
            ])
        #expect(refused?.fieldErrors.map(\.message) == ["Entry 1: Ultra distance (km) is required.", "List each race once."])
        view = try await driver.submit(view, ["races": [["name": "Comrades", "distance": "ultra", "ultraKm": 90]]])
        #expect(view.field("firstRun")?["max"] == .string(today.adding(days: 60).description))
        view = try await driver.submit(view, ["firstRun": .string(today.adding(days: 7).description), "notes": "hills"])
        let sections = view.step?.content["sections"]?.arrayValue ?? []
        #expect(sections.map { $0["title"] } == ["Your level", "Recent races", "Your plan (no usual start time)"])
        #expect(sections.first?["edit"] == nil)
        view = try await driver.submit(view)
        let member = try await driver.profile("u1")["records"]?["member"]
        #expect(member?["racer"] == true)
        #expect(member?["races"]?.arrayValue?.first?["ultraKm"] == 90)

        let birthday = ClubField.birthdate.view(value: nil, today: today)
        #expect(birthday.max == .string(TemporalBound.yearsAgo(16).text(on: today)))
        let tooYoung = FieldValidator(today: today).check(.string(today.description), against: ClubField.birthdate)
        guard case .invalid(let error) = tooYoung else {
            Issue.record("a birthday today passed")
            return
        }
        #expect(error.message == "Club members are 16 or older.")
    }
}
