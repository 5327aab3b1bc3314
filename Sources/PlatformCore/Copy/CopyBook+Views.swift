import Foundation

/// Where a text sits in a view: the copy a key must cover, or data shown beside it.
public enum CopyRole: Sendable, Hashable {
    /// A title, label, option, button, message: a text of the plugin or the core.
    case copy
    /// A string in a step's `content` or a field's `extra`, under this member name: copy when it
    /// is a key, else data (a symbol's name, an id, the person's own words in a review).
    case content(String)
}

extension SessionView {
    /// The view with `transform` applied to each text it shows (never to ids, values or the
    /// person's answers).
    public func mappingTexts(_ transform: (String, CopyRole) -> String) -> SessionView {
        var view = self
        view.progress.label = view.progress.label.isEmpty ? "" : transform(view.progress.label, .copy)
        view.step = step?.mappingTexts(transform)
        view.completion = completion?.mappingTexts(transform)
        if let rejection {
            view.rejection = Rejection(code: rejection.code, message: transform(rejection.message, .copy))
        }
        return view
    }
}

extension StepView {
    func mappingTexts(_ transform: (String, CopyRole) -> String) -> StepView {
        var step = self
        step.title = transform(title, .copy)
        step.subtitle = subtitle.map { transform($0, .copy) }
        step.helper = helper.map { transform($0, .copy) }
        step.fields = fields.map { $0.mappingTexts(transform) }
        step.actions = actions.map { $0.mappingTexts(transform) }
        step.content = JSONValue.object(content).mappingStrings(member: "content", transform).objectValue ?? content
        step.errors = errors.map { $0.mappingTexts(transform) }
        return step
    }
}

extension FieldView {
    func mappingTexts(_ transform: (String, CopyRole) -> String) -> FieldView {
        var field = self
        field.label = transform(label, .copy)
        field.placeholder = placeholder.map { transform($0, .copy) }
        if type != .search {
            field.options = options?.map { option in
                var option = option
                option.label = transform(option.label, .copy)
                option.detail = option.detail.map { transform($0, .copy) }
                option.badge = option.badge.map { transform($0, .copy) }
                return option
            }
        }
        field.itemFields = itemFields?.map { $0.mappingTexts(transform) }
        field.extra = JSONValue.object(extra).mappingStrings(member: "extra", transform).objectValue ?? extra
        return field
    }
}

extension StepAction {
    func mappingTexts(_ transform: (String, CopyRole) -> String) -> StepAction {
        var action = self
        action.label = transform(label, .copy)
        return action
    }
}

extension FieldError {
    public func mappingTexts(_ transform: (String, CopyRole) -> String) -> FieldError {
        FieldError(field: field, code: code, message: transform(message, .copy))
    }
}

extension CompletionView {
    func mappingTexts(_ transform: (String, CopyRole) -> String) -> CompletionView {
        var completion = self
        completion.message = transform(message, .copy)
        if var screen {
            screen.title = transform(screen.title, .copy)
            screen.body = transform(screen.body, .copy)
            screen.summary = screen.summary?.map { $0.mappingStrings(member: "summary", transform) }
            screen.actions = screen.actions?.map { $0.mappingTexts(transform) }
            completion.screen = screen
        }
        return completion
    }
}

extension JSONValue {
    /// Strings under keys that name data (`id`, `value`, `field`, `symbol`…) are left alone.
    func mappingStrings(member: String, _ transform: (String, CopyRole) -> String) -> JSONValue {
        switch self {
        case .string(let text):
            return CopyBook.dataMembers.contains(member) ? self : .string(transform(text, .content(member)))
        case .array(let items):
            return .array(items.map { $0.mappingStrings(member: member, transform) })
        case .object(let members):
            return .object(
                Dictionary(
                    uniqueKeysWithValues: members.map { key, value in
                        (key, value.mappingStrings(member: key, transform))
                    }))
        default:
            return self
        }
    }
}

extension CopyBook {
    /// Members of `content` and `extra` whose strings are ids, values or names for code, never
    /// shown as words.
    static let dataMembers: Set<String> = [
        "id", "value", "values", "field", "step", "edit", "symbol", "background", "brand", "link", "url", "image",
        "icon", "kind", "type", "code", "key", "estimatedMinutes",
    ]

    /// The view with every text in `locale` (a served locale), and `locale` set.
    public func localized(_ view: SessionView, in locale: String) -> SessionView {
        var view = view
        if let table = tables[locale] {
            view = view.mappingTexts { text, _ in table.remembered(text) ?? text }
        }
        view.locale = locale
        return view
    }

    /// Field errors in `locale`.
    public func localized(_ errors: [FieldError], in locale: String) -> [FieldError] {
        guard let table = tables[locale] else { return errors }
        return errors.map { $0.mappingTexts { text, _ in table.remembered(text) ?? text } }
    }

    /// A gate's decision with its copy in `locale`.
    public func localized(_ decision: GateDecision, in locale: String) -> GateDecision {
        guard !isVerbatim(locale) else { return decision }
        var decision = decision
        decision.title = decision.title.map { text($0, in: locale) }
        decision.message = decision.message.map { text($0, in: locale) }
        decision.cta = decision.cta.map { text($0, in: locale) }
        decision.requirements = decision.requirements.map { requirement in
            var requirement = requirement
            requirement.label = text(requirement.label, in: locale)
            return requirement
        }
        return decision
    }

    /// The copy texts of `view` (in the base language) that `locale` does not translate: what a
    /// translator still has to write. Texts without a letter are left out, and strings in
    /// `content` count only when they read as words (a space in them).
    public func untranslated(_ view: SessionView, in locale: String) -> [String] {
        var missing: [String] = []
        _ = view.mappingTexts { text, role in
            // A number or a sign has nothing to translate; a one-word content string is a name
            // for code ("gradient") more often than a word.
            guard text.contains(where: \.isLetter) else { return text }
            if case .content = role, !text.contains(" ") { return text }
            if translation(of: text, in: locale) == nil, !missing.contains(text) { missing.append(text) }
            return text
        }
        return missing
    }
}
