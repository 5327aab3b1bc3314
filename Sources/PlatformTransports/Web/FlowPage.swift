import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage

/// One step of a flow as an HTML page: every field type the engine has as a labelled control,
/// each `FieldError` beside its field (tied to it with `aria-describedby`), the progress bar, the
/// step's buttons. A form that POSTs works without JavaScript; nothing here knows an app.
struct FlowPage {
    let view: SessionView
    let tenant: String
    let flow: String
    let csrf: String
    /// What the person posted, shown again when the server refused it or a list changed size.
    var posted: FormBody? = nil
    /// Errors of a refused submit (else the step's own).
    var errors: [FieldError] = []
    /// Results of a search asked for with the form's Search button, by field id.
    var searchResults: [String: [SearchResult]] = [:]
    /// Entries a list shows, by field id, when the person added or removed one.
    var entryCounts: [String: Int] = [:]
    /// The tenant's texts: the page's own words ("Search", "Add") are in the view's locale.
    var copy: CopyBook = .base
    /// The tenant's look (theme, name, logo, return link); none: the platform's plain page.
    var look: HostedLook? = nil

    /// One of the page's own words, in the view's locale.
    func t(_ text: String) -> String { copy.text(text, in: locale) }

    var locale: String { view.locale ?? copy.baseLanguage }

    var action: String { "/flow/\(tenant)/?flow=\(HostedFlow.query(flow))" }

    var chrome: PageChrome? {
        look.map { look in PageChrome(tenant: tenant, look: look, footerText: look.theme.footer.map { copy.text($0, in: locale) }) }
    }

    var progressStyle: Theme.ProgressStyle { look?.theme.progress ?? .segmented }

    func render() -> String {
        let language = view.locale ?? "en"
        guard let step = view.step, !view.status.isFinal else {
            return HTML.page(title: ending, language: language, body: "<main class=\"done\">\n\(endingBody)\n</main>", chrome: chrome)
        }
        // A step whose content asks for the gradient (StatLocker's motivational screens) is drawn
        // as one full card in the brand's colors with its button.
        let motivational = step.content["background"]?.stringValue == "gradient"
        var body = motivational ? "<main class=\"motivational\">\n" : "<main>\n"
        body += progress()
        body += "<h1 id=\"title\">\(HTML.decorated(step.title))</h1>\n"
        if let subtitle = step.subtitle { body += "<p class=\"subtitle\">\(HTML.decorated(subtitle))</p>\n" }
        body += "<form method=\"post\" action=\"\(HTML.attribute(action))\" novalidate aria-labelledby=\"title\">\n"
        body += hidden("_csrf", csrf) + hidden("_step", step.id) + hidden("_revision", String(view.revision))
        let shown = errors.isEmpty ? step.errors : errors
        let general = shown.filter { error in error.field == nil || !step.fields.contains { $0.id == error.field } }
        if !general.isEmpty {
            body += "<div class=\"errors\" role=\"alert\">" + general.map { "<p>\(HTML.text($0.message))</p>" }.joined() + "</div>\n"
        }
        if let message = step.content["message"]?.stringValue { body += "<p class=\"message\">\(HTML.decorated(message))</p>\n" }
        body += review(step)
        for field in step.fields {
            body += render(field, errors: shown.filter { $0.field == field.id })
        }
        if let helper = step.helper { body += "<p class=\"helper\">\(HTML.decorated(helper))</p>\n" }
        body += "<div class=\"actions\">\n"
        // Continue first in the markup (Enter submits it), Back last.
        let actions = step.actions.filter { $0.id != "edit" }.sorted { ($0.id == "back" ? 1 : 0) < ($1.id == "back" ? 1 : 0) }
        for action in actions {
            let primary = action.id == "continue" ? " class=\"primary\"" : ""
            body += "<button type=\"submit\" name=\"_action\" value=\"\(HTML.attribute(action.id))\"\(primary)>\(HTML.text(action.label))</button>\n"
        }
        body += "</div>\n</form>\n</main>"
        return HTML.page(title: step.title, language: language, body: body, chrome: chrome)
    }

    // MARK: - the end of a flow

    var ending: String {
        switch view.status {
        case .completed: view.completion?.screen?.title ?? view.completion?.message ?? t("Done")
        case .rejected: view.rejection?.message ?? t("Ended")
        default: t("Expired")
        }
    }

    var endingBody: String {
        switch view.status {
        case .completed:
            var body = "<h1>\(HTML.decorated(view.completion?.message ?? ""))</h1>\n"
            if let screen = view.completion?.screen {
                body += "<h2>\(HTML.decorated(screen.title))</h2>\n<p>\(HTML.decorated(screen.body))</p>\n"
                let lines = (screen.summary ?? []).compactMap { item -> String? in
                    let label = item["label"]?.stringValue ?? ""
                    let text = item["text"]?.stringValue ?? item["value"].map(Self.plain) ?? ""
                    return label.isEmpty && text.isEmpty ? nil : "<li>\(HTML.text(label))\(label.isEmpty || text.isEmpty ? "" : ": ")\(HTML.text(text))</li>"
                }
                if !lines.isEmpty { body += "<ul class=\"summary\">\(lines.joined())</ul>\n" }
            }
            return body + returnLink
        case .rejected:
            return "<h1>\(HTML.decorated(view.rejection?.message ?? ""))</h1>\n" + returnLink
        default:
            return "<h1>\(HTML.text(t("This onboarding expired: it was left unfinished too long. Open it again to start afresh.")))</h1>"
        }
    }

    /// The tenant's way back to its app (`hosted.returnUrl`), when it has one.
    var returnLink: String {
        guard let look, let url = look.returnUrl else { return "" }
        let words = copy.format("Back to %@", [look.appName], in: locale)
        return "<p class=\"actions\"><a class=\"button primary return\" href=\"\(HTML.attribute(url))\">\(HTML.text(words))</a></p>\n"
    }

    // MARK: - the step

    /// The app's progress indicator (segments, dots over a bar, or "1/4"), one accessible
    /// progressbar named by the flow's own label ("Step 2 of 11").
    func progress() -> String {
        let progress = view.progress
        guard progress.total > 0, !progress.label.isEmpty else { return "" }
        let index = min(progress.index, progress.total)
        var html =
            "<div class=\"progress\" role=\"progressbar\" aria-valuemin=\"0\" aria-valuemax=\"\(progress.total)\" aria-valuenow=\"\(index)\" aria-valuetext=\"\(HTML.attribute(progress.label))\" aria-labelledby=\"progress-label\">\n"
        func marks(_ kind: String) -> String {
            "<div class=\"\(kind)\" aria-hidden=\"true\">" + (1...progress.total).map { $0 <= index ? "<span class=\"on\"></span>" : "<span></span>" }.joined()
                + "</div>\n"
        }
        switch progressStyle {
        case .segmented:
            html += marks("progress-segments")
        case .dots:
            html += marks("progress-dots")
            // A bar's fill has no inline width (the pages' policy allows no inline style): the
            // dots carry the position; the bar is drawn by a progress element.
            html += "<progress class=\"progress-native\" max=\"\(progress.total)\" value=\"\(index)\" aria-hidden=\"true\"></progress>\n"
        case .fraction:
            // The app's own label is the fraction ("1/4"): shown large, it names the bar itself.
            let fraction = "\(index)/\(progress.total)"
            if progress.label == fraction {
                return html + "<p class=\"progress-fraction\" id=\"progress-label\">\(HTML.text(fraction))</p>\n</div>\n"
            }
            html += "<p class=\"progress-fraction\" aria-hidden=\"true\">\(fraction)</p>\n"
        }
        html += "<p class=\"progress-label\" id=\"progress-label\">\(HTML.text(progress.label))</p>\n</div>\n"
        return html
    }

    /// A review's sections, each with the button that goes back to its step (`flow.goto`).
    func review(_ step: StepView) -> String {
        // Steps a newer version of the flow added that this person has not answered: finishing
        // takes them there first.
        var missing = ""
        if let titles = step.content["missing"]?.arrayValue?.compactMap({ $0["title"]?.stringValue }), !titles.isEmpty {
            let names = titles.map { copy.text($0, in: locale) }.joined(separator: ", ")
            missing =
                "<div class=\"errors\" role=\"status\"><p>\(HTML.text(copy.format("Still to answer before you finish: %@", [names], in: locale)))</p></div>\n"
        }
        guard let sections = step.content["sections"]?.arrayValue, !sections.isEmpty else { return missing }
        let edit = step.actions.first { $0.id == "edit" }?.label ?? "Edit"
        var html = missing + "<div class=\"review\">\n"
        for section in sections {
            let title = section["title"]?.stringValue ?? ""
            html += "<section><h2><span>\(HTML.text(title))</span>"
            if let target = section["edit"]?.stringValue {
                html +=
                    "<button type=\"submit\" class=\"link\" name=\"_action\" value=\"edit:\(HTML.attribute(target))\" aria-label=\"\(HTML.attribute("\(edit): \(title)"))\">\(HTML.text(edit))</button>"
            }
            html += "</h2>"
            let lines =
                section["lines"]?.arrayValue?.compactMap(\.stringValue)
                ?? section["answers"]?.arrayValue?.compactMap { $0["text"]?.stringValue } ?? []
            html += lines.map { "<p>\(HTML.text($0))</p>" }.joined()
            html += "</section>\n"
        }
        return html + "</div>\n"
    }

    // MARK: - fields

    func render(_ field: FieldView, errors: [FieldError], prefix: String = "") -> String {
        let name = prefix + field.id
        let id = "f-" + name.map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
        let errorID = "e-" + id.dropFirst(2)
        let invalid = !errors.isEmpty
        // A field's own help (StatLocker's "Club stats will be tracked separately", AirFit's
        // switches' details) under it, read with it like its error.
        let help = (field.extra["helper"] ?? field.extra["detail"])?.stringValue.map { copy.text($0, in: locale) }
        let helpID = "h-" + id.dropFirst(2)
        let describedBy = (help == nil ? [] : [helpID]) + (invalid ? [errorID] : [])
        let described =
            (describedBy.isEmpty ? "" : " aria-describedby=\"\(describedBy.joined(separator: " "))\"") + (invalid ? " aria-invalid=\"true\"" : "")
        // A requiredWhen field's mark is there, hidden, for the page's script to show.
        let required =
            field.required
            ? " <span class=\"required\" aria-hidden=\"true\">*</span>"
            : (field.requiredWhen == nil ? "" : " <span class=\"required\" aria-hidden=\"true\" hidden>*</span>")
        let requiredAttribute = field.required ? " required aria-required=\"true\"" : ""
        let errorHTML =
            (help.map { "<p class=\"field-help\" id=\"\(helpID)\">\(HTML.text($0))</p>\n" } ?? "")
            + (invalid ? "<p class=\"error\" id=\"\(errorID)\">" + errors.map { HTML.text($0.message) }.joined(separator: " ") + "</p>\n" : "")
        let label = HTML.text(field.label) + required
        let value = postedValue(name) ?? field.value.map(Self.plain) ?? field.default.map(Self.plain) ?? ""
        let hint = field.placeholder.map { " placeholder=\"\(HTML.attribute($0))\"" } ?? ""
        // The page's script shows, hides and requires by these as the server does (a field
        // hidden on submit is dropped there anyway); without it every field is shown.
        var visible = field.visibleWhen.map { " data-visible-when=\"\(HTML.attribute($0.json.serialized()))\"" } ?? ""
        visible += field.requiredWhen.map { " data-required-when=\"\(HTML.attribute($0.json.serialized()))\"" } ?? ""
        if !visible.isEmpty { visible += " data-scope=\"\(HTML.attribute(prefix))\"" }
        var dataType = " data-field-type=\"\(field.type.rawValue)\" data-field=\"\(HTML.attribute(name))\""
        if let minimum = field.minItems { dataType += " data-min-items=\"\(minimum)\"" }
        if let maximum = field.maxItems { dataType += " data-max-items=\"\(maximum)\"" }

        switch field.type {
        case .text, .integer, .number, .date, .time:
            let inputType: String
            var extra = ""
            switch field.type {
            case .integer:
                inputType = "number"
                extra = " inputmode=\"numeric\" step=\"1\"" + bounds(field)
            case .number:
                inputType = "number"
                extra = " inputmode=\"decimal\" step=\"\(HTML.attribute(field.step.map(Self.plain) ?? "any"))\"" + bounds(field)
            case .date:
                inputType = "date"
                extra = bounds(field)
            case .time:
                inputType = "time"
                extra = bounds(field)
            default:
                inputType = Self.isEmail(field) ? "email" : "text"
                if let minimum = field.minLength { extra += " minlength=\"\(minimum)\"" }
                if let maximum = field.maxLength { extra += " maxlength=\"\(maximum)\"" }
                if inputType == "email" { extra += " autocomplete=\"email\"" }
            }
            return """
                <div class="field"\(dataType)\(visible)>
                <label for="\(id)">\(label)</label>
                <input type="\(inputType)" id="\(id)" name="\(HTML.attribute(name))" value="\(HTML.attribute(value))"\(hint)\(extra)\(requiredAttribute)\(described)>
                \(errorHTML)</div>

                """
        case .slider:
            let output = id + "-value"
            return """
                <div class="field"\(dataType)\(visible)>
                <label for="\(id)">\(label) <output id="\(output)" for="\(id)">\(HTML.text(value))</output></label>
                <input type="range" id="\(id)" name="\(HTML.attribute(name))" value="\(HTML.attribute(value))" step="\(HTML.attribute(field.step.map(Self.plain) ?? "any"))"\(bounds(field)) data-output="\(output)"\(described)>
                \(errorHTML)</div>

                """
        case .boolean:
            let checked = value == "true" ? " checked" : ""
            return """
                <div class="field"\(dataType)\(visible)>
                <input type="hidden" name="\(HTML.attribute(name))" value="false">
                <label class="option" for="\(id)"><input type="checkbox" id="\(id)" name="\(HTML.attribute(name))" value="true"\(checked)\(described)> <span>\(label)</span><span class="tick" aria-hidden="true"></span></label>
                \(errorHTML)</div>

                """
        case .choice:
            let options = field.options ?? []
            if options.count > 12 && options.allSatisfy({ $0.detail == nil && $0.badge == nil }) {
                let choices = options.map { option in
                    "<option value=\"\(HTML.attribute(option.value))\"\(option.value == value ? " selected" : "")\(option.locked ? " disabled" : "")>\(HTML.text(option.label))</option>"
                }.joined()
                return """
                    <div class="field"\(dataType)\(visible)>
                    <label for="\(id)">\(label)</label>
                    <select id="\(id)" name="\(HTML.attribute(name))"\(requiredAttribute)\(described)><option value="">—</option>\(choices)</select>
                    \(errorHTML)</div>

                    """
            }
            return group(
                field, id: id, name: name, label: label, errorHTML: errorHTML, described: described, extra: dataType + visible,
                inputType: "radio", chosen: [value])
        case .multiChoice:
            var chosen = posted.map { $0.all(name) } ?? []
            if posted == nil, let saved = field.value?.arrayValue { chosen = saved.compactMap(\.stringValue) }
            var html = group(
                field, id: id, name: name, label: label, errorHTML: errorHTML, described: described, extra: dataType + visible,
                inputType: "checkbox", chosen: chosen, marker: true)
            if field.allowCustom == true, let items = field.itemFields, !items.isEmpty {
                html += "<fieldset class=\"field entry\"><legend>\(HTML.text(field.label)): +</legend>\n"
                for item in items { html += render(item, errors: [], prefix: name + ".custom.") }
                html += "</fieldset>\n"
            }
            return html
        case .list:
            return list(field, name: name, label: label, errorHTML: errorHTML, extra: dataType + visible)
        case .search:
            return search(field, id: id, name: name, label: label, errorHTML: errorHTML, described: described, extra: dataType + visible)
        }
    }

    /// Radio buttons or checkboxes in a fieldset whose legend is the label.
    func group(
        _ field: FieldView, id: String, name: String, label: String, errorHTML: String, described: String, extra: String,
        inputType: String, chosen: [String], marker: Bool = false
    ) -> String {
        var html = "<fieldset class=\"field\"\(extra)\(described)>\n<legend>\(label)</legend>\n"
        if marker { html += hidden("_present", name) }
        for (index, option) in (field.options ?? []).enumerated() {
            let optionID = "\(id)-\(index)"
            let checked = chosen.contains(option.value) ? " checked" : ""
            let locked = option.locked ? " disabled" : ""
            html += "<label class=\"option\(option.locked ? " locked" : "")\" for=\"\(optionID)\">"
            html +=
                "<input type=\"\(inputType)\" id=\"\(optionID)\" name=\"\(HTML.attribute(name))\" value=\"\(HTML.attribute(option.value))\"\(checked)\(locked)>"
            html += "<span>\(HTML.decorated(option.label))"
            if let badge = option.badge { html += "<span class=\"badge\">\(HTML.text(badge))</span>" }
            if let detail = option.detail { html += "<span class=\"detail\">\(HTML.text(detail))</span>" }
            html += "</span><span class=\"tick\" aria-hidden=\"true\"></span></label>\n"
        }
        return html + errorHTML + "</fieldset>\n"
    }

    /// A list's entries, each with its item fields and a Remove button, and an Add button; the
    /// buttons redraw the page with one entry more or less, nothing is saved until Continue.
    func list(_ field: FieldView, name: String, label: String, errorHTML: String, extra: String) -> String {
        let saved = field.value?.arrayValue ?? []
        let count = entryCounts[name] ?? posted.map { HostedFlow.entryCount($0, name) } ?? max(saved.count, field.minItems ?? 0, 1)
        // `_present` says the list was on the page (so removing its last entry clears it); each
        // entry's `_entry` keeps it counted when none of its items was answered.
        var html = "<fieldset class=\"field\"\(extra)>\n<legend>\(label)</legend>\n" + hidden("_present", name)
        for index in 0..<count {
            html += "<div class=\"entry\" role=\"group\" aria-label=\"\(HTML.attribute("\(field.label) \(index + 1)"))\">\n"
            html += hidden("\(name)[\(index)]._entry", "1")
            for item in field.itemFields ?? [] {
                var itemView = item
                if posted == nil, index < saved.count { itemView.value = saved[index][item.id] }
                html += render(itemView, errors: [], prefix: "\(name)[\(index)].")
            }
            html +=
                "<button type=\"submit\" name=\"_action\" value=\"remove:\(HTML.attribute(name)):\(index)\">\(HTML.text(copy.format("Remove %@ %lld", [field.label, String(index + 1)], in: locale)))</button>\n</div>\n"
        }
        html +=
            "<button type=\"submit\" name=\"_action\" value=\"add:\(HTML.attribute(name))\">\(HTML.text(copy.format("Add to %@", [field.label], in: locale)))</button>\n"
        return html + errorHTML + "</fieldset>\n"
    }

    /// A search field: the query and a Search button (the script suggests as one types), then the
    /// results as radio buttons; the saved place stays chosen until another is.
    func search(_ field: FieldView, id: String, name: String, label: String, errorHTML: String, described: String, extra: String) -> String {
        let query = posted?[name + ".query"] ?? ""
        let searchURL = "/flow/\(tenant)/search?flow=\(HostedFlow.query(flow))&field=\(HostedFlow.query(field.id))"
        var html =
            "<fieldset class=\"field\"\(extra) data-search-field=\"\(HTML.attribute(name))\" data-search-url=\"\(HTML.attribute(searchURL))\"\(described)>\n"
        html += "<legend>\(label)</legend>\n"
        html += "<label for=\"\(id)\" class=\"muted\">\(HTML.text(field.placeholder ?? field.label))</label>\n"
        // A text box in the searchbox role: axe-core holds autocomplete="off" inappropriate on
        // type=search, and the browser's own history list must not cover the suggestions.
        html +=
            "<input type=\"text\" role=\"searchbox\" inputmode=\"search\" enterkeyhint=\"search\" data-search-query id=\"\(id)\" name=\"\(HTML.attribute(name)).query\" value=\"\(HTML.attribute(query))\" autocomplete=\"off\">\n"
        html += "<button type=\"submit\" name=\"_action\" value=\"search:\(HTML.attribute(name))\">\(HTML.text(t("Search")))</button>\n"
        html += "<ul class=\"suggestions\"></ul>\n"
        var options: [(value: String, label: String)] = (searchResults[name] ?? []).map { ($0.value, $0.label) }
        if let saved = field.value, !saved.isNull, let value = saved["value"]?.stringValue ?? saved.stringValue,
            !options.contains(where: { $0.value == value })
        {
            options.insert((value, saved["label"]?.stringValue ?? Self.plain(saved)), at: 0)
        }
        let chosen = posted?[name] ?? field.value?["value"]?.stringValue ?? field.value?.stringValue
        for (index, option) in options.enumerated() {
            let optionID = "\(id)-\(index)"
            html +=
                "<label class=\"option\" for=\"\(optionID)\"><input type=\"radio\" id=\"\(optionID)\" name=\"\(HTML.attribute(name))\" value=\"\(HTML.attribute(option.value))\"\(option.value == chosen ? " checked" : "")><span>\(HTML.text(option.label))</span><span class=\"tick\" aria-hidden=\"true\"></span></label>\n"
        }
        return html + errorHTML + "</fieldset>\n"
    }

    // MARK: - helpers

    func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(HTML.attribute(name))\" value=\"\(HTML.attribute(value))\">\n"
    }

    func bounds(_ field: FieldView) -> String {
        var html = ""
        if let minimum = field.min { html += " min=\"\(HTML.attribute(Self.plain(minimum)))\"" }
        if let maximum = field.max { html += " max=\"\(HTML.attribute(Self.plain(maximum)))\"" }
        return html
    }

    func postedValue(_ name: String) -> String? {
        guard let posted, posted.has(name) else { return nil }
        return posted.all(name).last { $0 != "false" } ?? posted[name]
    }

    static func isEmail(_ field: FieldView) -> Bool {
        field.id.lowercased().contains("email") || field.extra["format"]?.stringValue == "email"
    }

    /// A value as a form shows it.
    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): JSONValue.double(number).serialized()
        case .null: ""
        case .array, .object: value["label"]?.stringValue ?? value["title"]?.stringValue ?? value.serialized()
        }
    }
}
