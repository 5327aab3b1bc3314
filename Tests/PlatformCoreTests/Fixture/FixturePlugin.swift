import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore

/// A small plugin that exercises everything the core offers: a content step the progress bar
/// skips, a branch, options that depend on an earlier answer, a search field, a list with an
/// overlap rule, a step that can reject the session, server work that can fail or hang, a gate
/// and an editable field, and a completion handler that can throw. It logs and takes ids through
/// its context, as plugins do.
struct FixturePlugin: OnboardingPlugin {
    let id = "fixture"
    let name = "Fixture"
    let version = "1.0.0"
    let defaultDisplayName = "Friend"
    var workTimeout: Duration = .seconds(5)

    var flows: [Flow] {
        let steps: [any FlowStep] = [
            WelcomeStep(), BasicsStep(), RouteStep(), BirthStep(), AnalysisStep(timeout: workTimeout),
        ]
        return [
            Flow(
                steps: steps,
                progress: .derived(countingCompletion: true),
                completion: FixtureCompletion()),
            Flow(
                id: "quick", steps: [QuickStep(id: "one"), QuickStep(id: "two"), QuickStep(id: "three", sensitive: true), QuickStep(id: "four")],
                resumePolicy: .firstMissingAnswer,
                completion: QuickCompletion()),
            Flow(
                id: "planner", steps: [LevelStep(), PlanStep(), PlannerReview.step],
                completion: PlannerCompletion()),
        ]
    }

    var gates: [any Gate] { [PhotoGate()] }
    var onboardingGate: OnboardingGate { OnboardingGate(id: "tier1", title: "Finish setting up") }
    var editableFields: [FieldSpec] {
        [FieldSpec(id: "photoUrl", type: .text, label: "Photo", maxLength: 100)]
    }
    var searchProviders: [String: any SearchProvider] { ["city": CitySearch()] }
    var intro: JSONValue? { [["headline": "Hello"]] }

    func updatedRecords(
        _ profile: Profile, with values: [String: JSONValue], in context: StepContext
    ) throws(ValidationFailure) -> [String: JSONValue] {
        var account = profile.records["account"]?.objectValue ?? [:]
        if let photo = values["photoUrl"] {
            guard photo.stringValue?.hasPrefix("https://") ?? true else {
                throw ValidationFailure([FieldError(field: "photoUrl", code: .invalidFormat, message: "Use an https link.")])
            }
            account["photoUrl"] = photo
        }
        context.log(.info, "profile updated", metadata: ["fields": values.keys.sorted().joined(separator: ",")])
        var records = profile.records
        records["account"] = .object(account)
        return records
    }
}

struct WelcomeStep: FlowStep {
    let id = "welcome"
    let kind = StepKind.content
    let countsInProgress = false

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: "Hi \(context.displayName)", content: ["symbol": "hand.wave"],
            actions: [.continue("Begin"), .later()])
    }
}

struct BasicsStep: FlowStep {
    let id = "basics"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(id: "name", type: .text, label: "Name", minLength: 2, maxLength: 20),
            FieldSpec(id: "age", type: .integer, label: "Age", min: 1, max: 120),
            FieldSpec(
                id: "kind", type: .choice, label: "Kind",
                options: [
                    FieldOption(value: "alpha", label: "Alpha"),
                    FieldOption(value: "beta", label: "Beta"),
                    FieldOption(
                        value: "gamma", label: "Gamma", locked: true, badge: "Coming soon",
                        lockedMessage: "Gamma is coming soon. Pick Alpha or Beta for now."),
                ]),
            FieldSpec(id: "hasPet", type: .boolean, label: "Has a pet"),
            FieldSpec(
                id: "petName", type: .text, label: "Pet name", maxLength: 30,
                visibleWhen: VisibilityCondition(field: "hasPet", equals: true)),
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(title: "Tell us about you, \(context.displayName)")
    }
}

struct RouteStep: FlowStep {
    let id = "route"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: "route", type: .choice, label: "Route",
                options: [
                    FieldOption(value: "slow", label: "Scenic"), FieldOption(value: "fast", label: "Direct"),
                ])
        ]
    }

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Which way?") }

    /// The scenic route detours through the extras, which rejoin at the birthday.
    var branches: [FlowBranch] {
        [FlowBranch(when: "route = slow", if: { $0["route"] == "slow" }, steps: [ExtrasStep()])]
    }
}

struct ExtrasStep: FlowStep {
    let id = "extras"
    let kind = StepKind.checklist

    func fields(in context: StepContext) -> [FieldSpec] {
        let tags = context.value(of: "kind") == "beta" ? ["b1", "b2"] : ["a1", "a2", "a3"]
        return [
            FieldSpec(
                id: "tags", type: .multiChoice, label: "Tags",
                options: tags.map { FieldOption(value: $0, label: $0.uppercased()) },
                minItems: 2, maxItems: 2, allowCustom: true),
            FieldSpec(id: "city", type: .search, label: "City", required: false),
            FieldSpec(
                id: "slots", type: .list, label: "Slots", required: false, maxItems: 3,
                itemFields: [
                    FieldSpec(id: "day", type: .integer, label: "Day", min: 1, max: 7),
                    FieldSpec(id: "start", type: .time, label: "Start"),
                    FieldSpec(id: "end", type: .time, label: "End"),
                ]),
            FieldSpec(id: "since", type: .date, label: "Member since", required: false),
            FieldSpec(id: "score", type: .slider, label: "Score", required: false, min: 0, max: 10, step: 1),
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(title: "Extras", actions: [.continue(), .skip()])
    }

    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        let slots = values["slots"]?.arrayValue ?? []
        let ranges = slots.compactMap { slot -> (Int, Int, Int)? in
            guard let day = slot["day"]?.intValue, let start = slot["start"]?.stringValue.flatMap(ClockTime.init),
                let end = slot["end"]?.stringValue.flatMap(ClockTime.init)
            else { return nil }
            return (day, start.minutes, end.minutes)
        }
        for (i, a) in ranges.enumerated() {
            for b in ranges[(i + 1)...] where a.0 == b.0 && a.1 < b.2 && b.1 < a.2 {
                return [FieldError(field: "slots", code: .overlap, message: "Two slots overlap on day \(a.0).")]
            }
        }
        return []
    }
}

struct BirthStep: FlowStep {
    let id = "birth"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [FieldSpec(id: "birthdate", type: .date, label: "Birthday", sensitive: true)]
    }

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "When were you born?") }

    /// Only the fact of the check is kept, never the date.
    func stored(_ values: [String: JSONValue], in context: StepContext) -> [String: JSONValue] {
        ["verified": true]
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        guard let text = values["birthdate"]?.stringValue, let birth = CalendarDate(text) else { return .next }
        let today = CalendarDate(context.now)
        var age = today.year - birth.year
        if (today.month, today.day) < (birth.month, birth.day) { age -= 1 }
        guard age >= 13 else {
            context.log(.notice, "under 13: rejected", metadata: ["step": id])
            return .reject(Rejection(code: "underage", message: "You must be 13+ to use Fixture"))
        }
        context.log(.info, "age checked", metadata: ["step": id])
        return .next
    }
}

/// Server work whose behaviour the answers choose: the name "Broken" makes it throw, "Slow" makes
/// it hang without listening to cancellation, "Refuse" makes it refuse the name.
struct AnalysisStep: FlowStep {
    let id = "analysis"
    let kind = StepKind.processing
    let timeout: Duration

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Checking", actions: [.continue("Finish")]) }

    func work(for values: [String: JSONValue], in context: StepContext) -> StepWork? {
        let name = context.value(of: "name")?.stringValue ?? ""
        return StepWork(
            name: "fixture analysis", timeout: timeout,
            perform: {
                switch name {
                case "Broken": throw AnalysisFailure()
                case "Slow":
                    // Never resumes and ignores cancellation, without holding a thread.
                    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
                    return [:]
                case "Refuse": return ["accepted": false]
                default: return ["accepted": true, "letters": .int(Int64(name.count))]
                }
            }, fallback: { _ in ["accepted": true, "fallback": true] })
    }

    func transition(after action: SubmitAction, values: [String: JSONValue], in context: StepContext) -> StepTransition {
        if context.computed(for: id)?["accepted"] == false {
            return .returnTo("basics", errors: [FieldError(field: "name", code: .invalidFormat, message: "That name is taken.")])
        }
        return .next
    }
}

struct AnalysisFailure: Error {}

struct QuickStep: FlowStep {
    let id: String
    var sensitive = false
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [FieldSpec(id: "\(id)Answer", type: .text, label: "Answer \(id)", sensitive: sensitive)]
    }

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Quick \(id)", actions: [.continue(), .skip()]) }
}

struct QuickCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        CompletionResult(records: ["quick": ["four": context.value(of: "fourAnswer") ?? .null]], message: "Done")
    }
}

struct FixtureCompletion: CompletionHandler {
    struct Crash: Error {}

    /// Logs before it may throw, so tests see that a line of a completion that failed is never written.
    func complete(_ context: StepContext) throws -> CompletionResult {
        context.log(.info, "completing", metadata: ["user": context.userId])
        if context.value(of: "name") == "Crash" { throw Crash() }
        if context.value(of: "name") == "Invalid" {
            throw ValidationFailure([FieldError(field: "name", code: .invalidFormat, message: "That name cannot finish.")])
        }
        let account: JSONValue = [
            "id": .string(context.newID()),
            "name": context.value(of: "name") ?? .null,
            "kind": context.value(of: "kind") ?? .null,
            "tags": context.value(of: "tags") ?? .null,
            "analysis": context.computed(for: "analysis") ?? .null,
            "secondsOnExtras": .double(context.secondsSpent["extras"] ?? 0),
        ]
        return CompletionResult(
            records: ["account": account, "settings": ["theme": "dark"]],
            message: "Welcome, \(context.displayName)!",
            screen: CompletionScreen(title: "All set", body: "Enjoy"))
    }
}

struct PhotoGate: Gate {
    let id = "tier2"

    func decide(action: String, profile: Profile) -> GateDecision? {
        guard action == "post" else { return nil }
        let hasPhoto = profile.records["account"]?["photoUrl"]?.stringValue != nil
        return GateDecision(
            action: action, allowed: hasPhoto, gate: id, title: "Complete Your Profile",
            message: "Add a photo to post.", cta: "Add Photo",
            requirements: [GateRequirement(id: "photo", label: "Profile photo", satisfied: hasPhoto)])
    }
}

struct CitySearch: SearchProvider {
    static let cities: [SearchResult] = [
        SearchResult(value: "1", label: "Austin, TX, United States", extra: ["latitude": 30.26715, "longitude": -97.74306]),
        SearchResult(value: "2", label: "Zürich, Switzerland", extra: ["latitude": 47.36667, "longitude": 8.55]),
    ]

    func search(_ query: String, limit: Int) -> [SearchResult] {
        Array(
            Self.cities.filter {
                $0.label.range(of: query, options: [.caseInsensitive, .diacriticInsensitive]) != nil
            }.prefix(limit))
    }

    func resolve(_ id: String) -> JSONValue? {
        Self.cities.first { $0.value == id }.flatMap { try? JSONValue(encoding: $0) }
    }

    func unknownValueError(field: String) -> FieldError {
        FieldError(field: field, code: .unknownCity, message: "Pick a city from the list.")
    }
}

// MARK: - the planner flow: date and time bounds, list item conditions, every error at once, the generic review

/// A branch on level: racers list their races (an ultra's distance asked per race), others say
/// how often they run; both rejoin at the plan.
struct LevelStep: FlowStep {
    let id = "level"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: "level", type: .choice, label: "Level",
                options: [
                    FieldOption(value: "casual", label: "Just for fun"), FieldOption(value: "racer", label: "I race"),
                ])
        ]
    }

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "How do you run?") }

    var branches: [FlowBranch] {
        [
            FlowBranch(when: "level = racer", if: { $0["level"] == "racer" }, steps: [RacesStep()]),
            FlowBranch(when: "level = casual", if: { $0["level"] == "casual" }, steps: [HabitStep()]),
        ]
    }
}

struct RacesStep: FlowStep {
    let id = "races"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: "races", type: .list, label: "Recent races", minItems: 1, maxItems: 5,
                itemFields: [
                    FieldSpec(id: "name", type: .text, label: "Race", maxLength: 40),
                    FieldSpec(
                        id: "distance", type: .choice, label: "Distance",
                        options: [
                            FieldOption(value: "10k", label: "10K"), FieldOption(value: "marathon", label: "Marathon"),
                            FieldOption(value: "ultra", label: "Ultra"),
                        ]),
                    FieldSpec(
                        id: "ultraKm", type: .integer, label: "Kilometres", min: 43, max: 500,
                        visibleWhen: VisibilityCondition(field: "distance", equals: "ultra")),
                    FieldSpec(id: "on", type: .date, label: "Date", required: false, latest: .today),
                ])
        ]
    }

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Your recent races") }

    /// A rule of the step's own, across entries: run on the entries that passed their checks.
    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        let names = (values["races"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue?.lowercased() }
        return Set(names).count < names.count
            ? [FieldError(field: "races", code: .duplicate, message: "Each race once, please.")] : []
    }
}

struct HabitStep: FlowStep {
    let id = "habit"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [FieldSpec(id: "daysPerWeek", type: .integer, label: "Days a week", min: 1, max: 7)]
    }

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "How often?") }
}

struct PlanStep: FlowStep {
    let id = "plan"
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(id: "startDate", type: .date, label: "Start", earliest: .today, latest: .daysFromToday(60)),
            FieldSpec(
                id: "startTime", type: .time, label: "Start time", earliest: .time(5, 0),
                latest: .time(21, 30).refusing("We don't schedule runs after 21:30.")),
            FieldSpec(id: "born", type: .date, label: "Born", required: false, earliest: .date(1900, 1, 1), latest: .yearsAgo(16)),
            FieldSpec(id: "notes", type: .text, label: "Notes", required: false),
        ]
    }

    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "When do you start?") }
}

enum PlannerReview {
    static let step = ReviewStep(
        copy: { context in StepCopy(title: "Ready, \(context.displayName)?", actions: [.continue("Start training")]) },
        sectionTitles: ["level": "You"], omitting: ["notes"], readOnly: ["level"],
        adjust: { section, _ in section.id == "habit" ? nil : section })
}

/// Every answer of the path in one record.
struct PlannerCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        CompletionResult(records: ["plan": .object(context.answers.values.reduce(into: [:]) { $0.merge($1) { a, _ in a } })], message: "Planned")
    }
}
