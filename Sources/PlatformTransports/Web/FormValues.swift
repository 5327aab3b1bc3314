import PlatformCore
import PlatformServer
import PlatformStorage

/// A posted form read as a submit's `values`, by the types of the step's fields. Nothing is
/// checked here: a number that does not read as one is sent as the text it is, so the refusal
/// is the server's own (`invalid_type`), as over JSON-RPC.
enum FormValues {
    static func values(_ form: FormBody, fields: [FieldView]) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for field in fields {
            if let value = value(form, field: field, name: field.id) { values[field.id] = value }
        }
        return values
    }

    /// The value of one field, or nil when the form did not send it (the saved answer stays).
    static func value(_ form: FormBody, field: FieldView, name: String) -> JSONValue? {
        switch field.type {
        case .text, .date, .time, .choice:
            return form[name].map(JSONValue.string)
        case .search:
            guard let chosen = form[name], !chosen.isEmpty else { return nil }
            return .string(chosen)
        case .integer:
            return form[name].map { text in
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { return .null }
                return Int64(trimmed).map(JSONValue.int) ?? .string(text)
            }
        case .number, .slider:
            return form[name].map(number)
        case .boolean:
            guard form.has(name) else { return nil }
            return .bool(form.all(name).contains("true"))
        case .multiChoice:
            guard form.all("_present").contains(name) || form.has(name) else { return nil }
            var items = form.all(name).map(JSONValue.string)
            if let custom = field.itemFields, !custom.isEmpty, let entry = entry(form, items: custom, prefix: "\(name).custom.") {
                items.append(.object(entry))
            }
            return .array(items)
        case .list:
            let entries = listEntries(form, field: field, name: name)
            return entries.map { JSONValue.array($0) }
        }
    }

    /// A list's entries as posted (`NAME[0].item`), an entry whose every item is empty left out;
    /// nil when the form has none of its inputs.
    static func listEntries(_ form: FormBody, field: FieldView, name: String) -> [JSONValue]? {
        let indices = Set(form.pairs.compactMap { entryIndex(of: $0.name, in: name) }).sorted()
        guard !indices.isEmpty || form.all("_present").contains(name) else { return nil }
        return indices.compactMap { index in
            entry(form, items: field.itemFields ?? [], prefix: "\(name)[\(index)].").map(JSONValue.object)
        }
    }

    /// The items of one entry (a list's, a custom choice's) under `prefix`, or nil when nothing in
    /// it was answered: an empty text, no number and an unticked box are nothing.
    static func entry(_ form: FormBody, items: [FieldView], prefix: String) -> [String: JSONValue]? {
        var entry: [String: JSONValue] = [:]
        for item in items {
            guard let value = value(form, field: item, name: prefix + item.id), value != .null, value != "" else { continue }
            entry[item.id] = value
        }
        return entry.values.contains(where: { $0 != .bool(false) }) ? entry : nil
    }

    /// `N` of a form name `LIST[N].…`, for the list named `list`; nil for any other name.
    static func entryIndex(of name: String, in list: String) -> Int? {
        guard name.hasPrefix(list + "[") else { return nil }
        let start = name.index(name.startIndex, offsetBy: list.count + 1)
        guard let close = name[start...].firstIndex(of: "]") else { return nil }
        return Int(name[start..<close])
    }

    static func number(_ text: String) -> JSONValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return .null }
        if let integer = Int64(trimmed) { return .int(integer) }
        if let double = Double(trimmed), double.isFinite { return .double(double) }
        return .string(text)
    }
}
