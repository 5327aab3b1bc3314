/// One section of a review: the answers of one step on the session's path, and the step that
/// edits them (`flow.goto`).
public struct ReviewSection: Sendable, Hashable {
    /// The id of the step the answers were given on.
    public var id: String
    /// The heading: the step's title unless renamed.
    public var title: String
    /// Each answer as the person reads it.
    public var answers: [ReviewAnswer]
    /// The step a client's Edit button goes to with `flow.goto`; nil: not editable here.
    public var edit: String?

    public init(id: String, title: String, answers: [ReviewAnswer], edit: String?) {
        self.id = id
        self.title = title
        self.answers = answers
        self.edit = edit
    }

    /// The section as the step's `content.sections` holds it: `lines` ("Label: text") for a
    /// client that shows text only, `answers` for one that lays them out itself.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "title": .string(title),
            "lines": .array(answers.map { .string($0.line) }),
            "answers": .array(answers.map(\.json)),
        ]
        if let edit { object["edit"] = .string(edit) }
        return .object(object)
    }
}

/// One answer in a review: the field's label and the value in words (option labels, "Yes").
public struct ReviewAnswer: Sendable, Hashable {
    /// The field's id.
    public var field: String
    public var label: String
    /// The value as text: an option's label, "Yes"/"No", entries joined.
    public var text: String

    public init(field: String, label: String, text: String) {
        self.field = field
        self.label = label
        self.text = text
    }

    /// "Label: text".
    public var line: String { "\(label): \(text)" }

    var json: JSONValue {
        .object(["field": .string(field), "label": .string(label), "text": .string(text)])
    }
}

/// A review built from the flow itself: a section per step on the session's path that has
/// answers (only the branch taken counts), each answer with its field's label and option labels,
/// an Edit target per section; its `continue` re-checks every answer on the path in the session as
/// it is now (a list of options that changed since is caught here) before the flow goes on.
///
/// ```swift
/// ReviewStep(
///     copy: { context in StepCopy(title: "All good, \(context.displayName)?", actions: [.continue("Create my account")]) },
///     sectionTitles: ["area": "Where you are"], omitting: ["welcome"])
/// ```
///
/// The sections go into the copy's `content` as `sections` (see ``ReviewSection/json``) and an
/// `edit` action ("Edit") is added beside the copy's own. For more than titles and omissions,
/// ``adjust`` sees each section before it is shown and may change it or leave it out (nil).
public struct ReviewStep: FlowStep {
    public let id: String
    public let kind = StepKind.review
    public let countsInProgress: Bool
    /// Title, subtitle, helper and buttons; `content` may carry more keys beside `sections`.
    let baseCopy: @Sendable (StepContext) -> StepCopy
    /// Section headings by step id, instead of the step's title.
    public var sectionTitles: [String: String]
    /// Step ids and field ids left out of the review.
    public var omitted: Set<String>
    /// Section ids (step ids) shown without an Edit target.
    public var readOnly: Set<String>
    /// A last look at each section: return it changed, or nil to leave it out.
    public var adjust: (@Sendable (ReviewSection, StepContext) -> ReviewSection?)?
    /// Whether `continue` checks every answer on the path again (true by default).
    public var rechecksAnswers: Bool

    /// - Parameters:
    ///   - id: the step's id; `review` by default.
    ///   - countsInProgress: whether the progress bar counts it.
    ///   - copy: the step's words and buttons, personalised for the session.
    ///   - sectionTitles: headings by step id; a step not named here is headed by its title.
    ///   - omitting: step ids or field ids the review leaves out.
    ///   - readOnly: step ids whose sections get no Edit target.
    ///   - rechecksAnswers: whether `continue` re-checks every answer on the path.
    ///   - adjust: changes or drops (nil) each section before it is shown.
    public init(
        id: String = "review", countsInProgress: Bool = true, copy: @escaping @Sendable (StepContext) -> StepCopy,
        sectionTitles: [String: String] = [:], omitting: Set<String> = [], readOnly: Set<String> = [],
        rechecksAnswers: Bool = true, adjust: (@Sendable (ReviewSection, StepContext) -> ReviewSection?)? = nil
    ) {
        self.id = id
        self.countsInProgress = countsInProgress
        self.baseCopy = copy
        self.sectionTitles = sectionTitles
        self.omitted = omitting
        self.readOnly = readOnly
        self.rechecksAnswers = rechecksAnswers
        self.adjust = adjust
    }

    public func copy(in context: StepContext) -> StepCopy {
        var copy = baseCopy(context)
        copy.content["sections"] = .array(sections(in: context).map(\.json))
        if !copy.actions.contains(where: { $0.id == "edit" }) {
            copy.actions.append(StepAction("edit", "Edit"))
        }
        return copy
    }

    /// The sections for the session as it is now, in path order.
    public func sections(in context: StepContext) -> [ReviewSection] {
        Self.stepsOnPath(context, before: id).compactMap { step -> ReviewSection? in
            let stepId = step.id
            guard !omitted.contains(stepId), let saved = context.answers(of: stepId) else { return nil }
            var reader = ConditionReader { saved[$0] ?? context.value(of: $0) }
            let answers = step.fields(in: context).compactMap { spec -> ReviewAnswer? in
                guard reader.apply(spec) != nil, !omitted.contains(spec.id), !spec.sensitive, let value = saved[spec.id], !value.isNull
                else { return nil }
                return ReviewAnswer(field: spec.id, label: spec.label, text: Self.text(of: value, as: spec))
            }
            guard !answers.isEmpty else { return nil }
            let section = ReviewSection(
                id: stepId, title: sectionTitles[stepId] ?? step.copy(in: context).title, answers: answers,
                edit: readOnly.contains(stepId) ? nil : stepId)
            return adjust.map { $0(section, context) } ?? section
        }
    }

    public func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        rechecksAnswers ? Self.recheck(context, upTo: id) : []
    }

    /// Every saved answer of the steps on the path before `stepId` (skipped ones and reviews
    /// aside), re-checked as ``recheck(_:in:)`` does.
    public static func recheck(_ context: StepContext, upTo stepId: String) -> [FieldError] {
        recheck(stepsOnPath(context, before: stepId), in: context)
    }

    /// The steps on the session's path other than `stepId`, each once, in path order, without
    /// the skipped ones (their answers are cleared) and reviews (they have none).
    static func stepsOnPath(_ context: StepContext, before stepId: String) -> [any FlowStep] {
        guard let flow = context.flow else { return [] }
        var seen = Set<String>()
        return context.path.compactMap { earlier -> (any FlowStep)? in
            guard earlier != stepId, seen.insert(earlier).inserted, !context.wasSkipped(earlier),
                let step = flow.step(earlier), step.kind != .review
            else { return nil }
            return step
        }
    }

    /// The saved answers of `steps`, each through its fields' own rules and the step's
    /// ``FlowStep/validate(_:in:)``, in the session as it is now (an option withdrawn since, a
    /// bound that moved with the day); a review that draws its own sections calls it from its
    /// `validate`. The errors are those a submit of the saved answers would get.
    public static func recheck(_ steps: [any FlowStep], in context: StepContext) -> [FieldError] {
        let validator = context.validator ?? FieldValidator(today: CalendarDate(context.now))
        return steps.flatMap { step in
            let fields = step.fields(in: context).filter { !$0.sensitive }
            return validator.checkStep(step, values: context.answers(of: step.id) ?? [:], fields: fields, context: context).errors
        }
    }

    /// A value in words: option labels for choices, "Yes"/"No", a search result's label, list
    /// entries each as their item fields' texts.
    public static func text(of value: JSONValue, as spec: FieldSpec) -> String {
        switch spec.type {
        case .choice:
            let choice = value.stringValue ?? value.serialized()
            return spec.option(choice)?.label ?? choice
        case .multiChoice:
            return (value.arrayValue ?? []).map { item in
                if let choice = item.stringValue { return spec.option(choice)?.label ?? choice }
                return item["title"]?.stringValue ?? item.serialized()
            }.joined(separator: ", ")
        case .boolean:
            return value.boolValue.map { $0 ? "Yes" : "No" } ?? value.serialized()
        case .search:
            return value.stringValue ?? value["label"]?.stringValue ?? value["name"]?.stringValue ?? value.serialized()
        case .list:
            return (value.arrayValue ?? []).map { entry in
                spec.itemFields.compactMap { item in
                    entry[item.id].flatMap { $0.isNull ? nil : "\(item.label) \(text(of: $0, as: item))" }
                }.joined(separator: ", ")
            }.joined(separator: "; ")
        case .text, .date, .time:
            return value.stringValue ?? value.serialized()
        case .integer, .number, .slider:
            return value.serialized()
        }
    }
}
