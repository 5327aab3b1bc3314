import Foundation
import PlatformCore
import PlatformStorage

/// The text an assistant reads in a tool result: the step as the person would see it (title,
/// copy, each field with its options, the buttons, the errors in the app's voice), with the ids
/// the tools take in [brackets]. Everything shown comes from the SessionView; nothing is made up.
///
/// Its own words ("Buttons:", "required") are the core's texts: in the view's locale when the
/// tenant's ``CopyBook`` serves it.
public struct OnboardingText {
    /// The tenant's texts, and the locale of the view being rendered.
    let copy: CopyBook
    let locale: String

    public init(copy: CopyBook = .base, locale: String? = nil) {
        self.copy = copy
        self.locale = locale ?? copy.baseLanguage
    }

    /// One of its phrases in the locale.
    func t(_ phrase: String) -> String { copy.text(phrase, in: locale) }

    /// The whole view, in its own locale (see the instance method).
    public static func render(_ view: SessionView, errors: [FieldError] = [], showErrors: Bool = true, copy: CopyBook = .base) -> String {
        OnboardingText(copy: copy, locale: view.locale).render(view, errors: errors, showErrors: showErrors)
    }

    /// The whole view: progress and step, or the completion, or the rejection. `errors` replace
    /// the step's own; `showErrors: false` leaves them out (the caller shows them first).
    public func render(_ view: SessionView, errors: [FieldError] = [], showErrors: Bool = true) -> String {
        var lines: [String] = []
        switch view.status {
        case .completed:
            lines.append(t("Onboarding complete."))
            if let completion = view.completion { lines += render(completion) }
            return lines.joined(separator: "\n")
        case .rejected:
            lines.append(t("Onboarding ended."))
            if let rejection = view.rejection { lines.append(rejection.message) }
            return lines.joined(separator: "\n")
        case .expired:
            lines.append(t("Onboarding expired: it was left unfinished too long and its answers are gone. Starting again begins a new onboarding."))
            return lines.joined(separator: "\n")
        case .deferred:
            lines.append(t("Saved for later: the person chose to finish this another time. Answering or going back carries on from here."))
        case .active:
            break
        }
        guard let step = view.step else { return lines.joined(separator: "\n") }
        let progress = view.progress.label.isEmpty ? "" : "\(view.progress.label): "
        lines.append("\(progress)\(step.title) " + t("[step \(step.id)]"))
        if let subtitle = step.subtitle { lines.append(subtitle) }
        if let helper = step.helper { lines.append(helper) }
        let content = render(content: step.content)
        if !content.isEmpty {
            lines.append("")
            lines += content
        }
        if !step.fields.isEmpty {
            lines.append("")
            for field in step.fields { lines += render(field) }
        }
        let shownErrors = errors.isEmpty ? step.errors : errors
        if showErrors && !shownErrors.isEmpty {
            lines.append("")
            lines += render(errors: shownErrors, fields: step.fields)
        }
        if !step.actions.isEmpty {
            lines.append("")
            lines.append(t("Buttons: \(step.actions.map { "\($0.label) [\($0.id)]" }.joined(separator: ", "))"))
        }
        return lines.joined(separator: "\n")
    }

    /// The errors in the app's voice, each under its field's label.
    public static func render(errors: [FieldError], fields: [FieldView]) -> [String] {
        OnboardingText().render(errors: errors, fields: fields)
    }

    /// The errors in the app's voice, each under its field's label.
    public func render(errors: [FieldError], fields: [FieldView]) -> [String] {
        let labels = Dictionary(fields.map { ($0.id, $0.label) }, uniquingKeysWith: { first, _ in first })
        var lines = [t("Not saved. Please fix:")]
        for error in errors {
            if let field = error.field {
                lines.append("- \(labels[field] ?? field) [\(field)]: \(error.message)")
            } else {
                lines.append("- \(error.message)")
            }
        }
        return lines
    }

    /// Search results as a numbered list of labels with the value to answer with.
    public static func render(_ results: SearchResults, field: String, query: String) -> String {
        OnboardingText().render(results, field: field, query: query)
    }

    /// Search results as a numbered list of labels with the value to answer with.
    public func render(_ results: SearchResults, field: String, query: String) -> String {
        guard !results.results.isEmpty else {
            return t("\(t(results.message ?? "No results found")) for “\(query)”. Ask for another spelling or a nearby place.")
        }
        var lines = [t("Results for “\(query)” (answer \(field) with a result's value in [brackets]):")]
        for (index, result) in results.results.enumerated() {
            lines.append("\(index + 1). \(result.label) [\(result.value)]")
        }
        return lines.joined(separator: "\n")
    }

    func render(_ completion: CompletionView) -> [String] {
        var lines = [completion.message]
        guard let screen = completion.screen else { return lines }
        lines.append("")
        lines.append(screen.title)
        lines.append(screen.body)
        for item in screen.summary ?? [] {
            let label = item["label"]?.stringValue ?? ""
            let detail = item["text"].flatMap(Self.plain) ?? item["value"].flatMap(Self.plain) ?? ""
            lines.append("- \(label)\(label.isEmpty || detail.isEmpty ? "" : ": ")\(detail)")
        }
        if let actions = screen.actions, !actions.isEmpty {
            lines.append(t("Buttons: \(actions.map(\.label).joined(separator: ", "))"))
        }
        return lines
    }

    func render(_ field: FieldView) -> [String] {
        var facts: [String] = [t(field.required ? "required" : "optional"), t(Self.kind(of: field))]
        if let condition = field.visibleWhen {
            if let field = condition.field, let value = condition.equals {
                facts.append(t("only when \(field) is \(Self.plain(value) ?? value.serialized())"))
            } else {
                facts.append(t("only when \(condition.description)"))
            }
        }
        if let condition = field.requiredWhen {
            facts.append(t("required when \(condition.description)"))
        }
        facts += Self.bounds(of: field).map(t)
        var lines = ["• \(field.label) [\(field.id)] (\(facts.joined(separator: "; ")))"]
        for key in ["helper", "detail"] {
            if let text = field.extra[key]?.stringValue { lines.append("  \(text)") }
        }
        if let placeholder = field.placeholder { lines.append("  " + t("Placeholder: \(placeholder)")) }
        let options = field.options ?? []
        // A long plain list (the US states) reads better, and costs less, on one line.
        let compact = options.count > 12 && options.allSatisfy { $0.detail == nil && $0.badge == nil && !$0.locked }
        if compact {
            lines.append("  " + t("Options: \(options.map { $0.value == $0.label ? $0.label : "\($0.label) [\($0.value)]" }.joined(separator: ", "))"))
        }
        for option in options where !compact {
            var line = "  - \(option.label)"
            if option.value != option.label { line += " [\(option.value)]" }
            if let badge = option.badge { line += " (\(badge))" }
            if option.locked { line += " 🔒 " + t("locked") }
            if let detail = option.detail { line += ": \(detail)" }
            lines.append(line)
        }
        if let items = field.itemFields, !items.isEmpty {
            lines.append(
                "  " + t("Each item has: \(items.map { "\($0.label) [\($0.id)]\($0.required ? "" : " (" + t("optional") + ")")" }.joined(separator: ", "))"))
        }
        if let value = field.value, !value.isNull {
            let text = Self.plain(value) ?? value.serialized()
            lines.append("  " + t("Saved answer: \(text.isEmpty ? t("none") : text)"))
        } else if let value = field.default, !value.isNull {
            let text = Self.plain(value) ?? value.serialized()
            if !text.isEmpty { lines.append("  " + t("Default: \(text)")) }
        }
        return lines
    }

    static func kind(of field: FieldView) -> String {
        switch field.type {
        case .text: "text"
        case .integer: "a whole number"
        case .number: "a number"
        case .boolean: "yes or no: true or false"
        case .date: "a date, YYYY-MM-DD"
        case .time: "a time, HH:mm"
        case .choice: "choose one"
        case .multiChoice: field.allowCustom == true ? "choose several, or add your own" : "choose several"
        case .slider: "a number on a slider"
        case .search: "a place found with onboarding_search; answer with a result's value"
        case .list: "a list"
        }
    }

    static func bounds(of field: FieldView) -> [String] {
        var facts: [String] = []
        switch (field.min.flatMap(plain), field.max.flatMap(plain)) {
        case (let low?, let high?): facts.append("from \(low) to \(high)")
        case (let low?, nil): facts.append("at least \(low)")
        case (nil, let high?): facts.append("at most \(high)")
        case (nil, nil): break
        }
        if let step = field.step.flatMap(plain) { facts.append("in steps of \(step)") }
        switch field.extra["dayOfMonth"] {
        case .string("last")?: facts.append("on the last day of a month")
        case let day? where day.intValue != nil: facts.append("on day \(day.intValue!) of a month")
        default: break
        }
        switch (field.minLength, field.maxLength) {
        case (let low?, let high?): facts.append("\(low)-\(high) characters")
        case (let low?, nil): facts.append("at least \(low) characters")
        case (nil, let high?): facts.append("at most \(high) characters")
        case (nil, nil): break
        }
        switch (field.minItems, field.maxItems) {
        case (let low?, let high?) where low == high: facts.append("exactly \(low)")
        case (let low?, let high?): facts.append("\(low) to \(high) of them")
        case (let low?, nil): facts.append("at least \(low)")
        case (nil, let high?): facts.append("at most \(high)")
        case (nil, nil): break
        }
        return facts
    }

    /// Content keys that only style a screen (an SF Symbol, a background, a carousel's timing).
    static let presentational: Set<String> = [
        "symbol", "background", "brand", "footer", "accessibilityLabel", "accessibilityHint", "autoAdvanceSeconds",
    ]

    /// A step's kind-specific content: a message, a review's sections, then any other text it
    /// carries (a carousel's items, a processing step's messages), as lines.
    func render(content: [String: JSONValue]) -> [String] {
        var lines: [String] = []
        if let message = content["message"]?.stringValue { lines.append(message) }
        for section in content["sections"]?.arrayValue ?? [] {
            let title = section["title"]?.stringValue ?? section["id"]?.stringValue ?? ""
            let body = (section["lines"]?.arrayValue ?? []).compactMap(Self.plain).joined(separator: "; ")
            var line = "- \(title): \(body)"
            if let edit = section["edit"]?.stringValue { line += " " + t("(edit: step \(edit))") }
            lines.append(line)
        }
        for (key, value) in content.sorted(by: { $0.key < $1.key })
        where !["message", "sections"].contains(key) && !Self.presentational.contains(key) {
            lines += Self.render(key, value)
        }
        return lines
    }

    /// One content member: a scalar on its line, a list or an object's items below it.
    static func render(_ key: String, _ value: JSONValue) -> [String] {
        if let text = plain(value) { return ["\(key): \(text)"] }
        let items = value.arrayValue ?? value["items"]?.arrayValue ?? value["options"]?.arrayValue
        guard let items else {
            let members = (value.objectValue ?? [:]).sorted { $0.key < $1.key }.filter { !presentational.contains($0.key) }
            return ["\(key):"] + members.map { "  \($0.key): \(plain($0.value) ?? $0.value.serialized())" }
        }
        return ["\(key):"] + items.map { "  - " + describe($0) }
    }

    /// A list item as a line: its title or label, then its description.
    static func describe(_ item: JSONValue) -> String {
        if let text = plain(item) { return text }
        var title = item["title"]?.stringValue ?? item["label"]?.stringValue
        var detail = item["description"]?.stringValue ?? item["detail"]?.stringValue ?? item["text"]?.stringValue
        // A button that sets a field (AFL Fantasy's two pathways) shows the value it sets.
        if let value = item["value"].flatMap(plain) {
            if let named = title { title = "\(named) [\(value)]" } else { detail = detail ?? value }
        }
        switch (title, detail) {
        case (let title?, let detail?): return "\(title): \(detail)"
        case (let title?, nil): return title
        case (nil, let detail?): return detail
        case (nil, nil):
            let members = (item.objectValue ?? [:]).filter { !presentational.contains($0.key) }
            return JSONValue.object(members).serialized()
        }
    }

    /// A scalar as a person reads it; nil for arrays and objects.
    static func plain(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): JSONValue.double(number).serialized()
        case .null: "none"
        case .array(let items):
            items.allSatisfy({ plain($0) != nil && $0.arrayValue == nil })
                ? items.compactMap(plain).joined(separator: ", ") : nil
        case .object: nil
        }
    }
}
