import PlatformCore
import PlatformStorage

/// The JSON Schema (2020-12 subset that every MCP host reads) of `onboarding_answer`'s arguments
/// for the step the person is on: `values` lists that step's fields with their types, options
/// and bounds. The server still checks every answer itself; the schema tells the assistant what
/// the step asks, so it describes rather than restricts where the two could differ (a text
/// field's pattern is in its description, not a `pattern` keyword a host's regex engine might
/// read differently; locked options are listed, so the person hears the app's own refusal).
public enum AnswerSchema {
    /// The tool's input schema for `view`'s step; a generic object when there is no step to answer
    /// (not started, completed, rejected).
    public static func inputSchema(for view: SessionView?) -> JSONValue {
        guard let view, !view.status.isFinal, let step = view.step else {
            return [
                "type": "object",
                "properties": [
                    "values": [
                        "type": "object",
                        "description": "Field ids mapped to the person's answers. Call onboarding_status to see the current step and its fields.",
                    ],
                    "action": actionSchema(["continue"]),
                ],
                "required": ["values"],
            ]
        }
        var properties: [String: JSONValue] = [:]
        var required: [JSONValue] = []
        for field in step.fields {
            properties[field.id] = schema(of: field)
            if field.required && field.visibleWhen == nil { required.append(.string(field.id)) }  // a condition: see its notes
        }
        var values: [String: JSONValue] = [
            "type": "object",
            "description": .string(
                step.fields.isEmpty
                    ? "This step (\(step.id)) asks nothing: send an empty object."
                    : "Answers to step \(step.id), by field id. Send only what the person said."),
            "properties": .object(properties),
        ]
        if !required.isEmpty { values["required"] = .array(required) }
        let submitActions = step.actions.map(\.id).filter { $0 != "back" && $0 != "edit" }
        return [
            "type": "object",
            "properties": ["values": .object(values), "action": actionSchema(submitActions.isEmpty ? ["continue"] : submitActions)],
            "required": ["values"],
        ]
    }

    static func actionSchema(_ actions: [String]) -> JSONValue {
        [
            "type": "string",
            "enum": .array(actions.map(JSONValue.string)),
            "description":
                "The button pressed: continue (the default) submits the answers; skip and later only where the step offers them. Back and Edit are the tools onboarding_back and onboarding_edit.",
        ]
    }

    /// One field's schema.
    static func schema(of field: FieldView) -> JSONValue {
        var schema: [String: JSONValue] = [:]
        var notes: [String] = [field.label]
        if let placeholder = field.placeholder { notes.append("e.g. \(placeholder)") }
        switch field.type {
        case .text:
            schema["type"] = "string"
            if let low = field.minLength { schema["minLength"] = .int(Int64(low)) }
            if let high = field.maxLength { schema["maxLength"] = .int(Int64(high)) }
            if let pattern = field.pattern { notes.append("must match the pattern \(pattern)") }
        case .integer:
            schema["type"] = "integer"
            bound(field, &schema)
        case .number, .slider:
            schema["type"] = "number"
            bound(field, &schema)
        case .boolean:
            schema["type"] = "boolean"
        case .date:
            schema["type"] = "string"
            schema["format"] = "date"
            notes.append("YYYY-MM-DD")
            if let low = field.min?.stringValue { notes.append("from \(low)") }
            if let high = field.max?.stringValue { notes.append("until \(high)") }
        case .time:
            schema["type"] = "string"
            schema["pattern"] = "^[0-9]{2}:[0-9]{2}$"
            notes.append("HH:mm")
        case .choice:
            schema["type"] = "string"
            schema["enum"] = .array((field.options ?? []).map { .string($0.value) })
            notes.append(optionNotes(field))
        case .multiChoice:
            let values: JSONValue = ["type": "string", "enum": .array((field.options ?? []).map { .string($0.value) })]
            schema["type"] = "array"
            schema["items"] =
                field.allowCustom == true
                ? ["anyOf": [values, ["type": "object", "description": "a custom entry the person wrote"]]]
                : values
            if let low = field.minItems { schema["minItems"] = .int(Int64(low)) }
            if let high = field.maxItems { schema["maxItems"] = .int(Int64(high)) }
            notes.append(optionNotes(field))
        case .search:
            schema["type"] = "string"
            notes.append("the value of a result of onboarding_search for field \(field.id), never a name typed in")
        case .list:
            var item: [String: JSONValue] = ["type": "object"]
            let items = field.itemFields ?? []
            item["properties"] = .object(Dictionary(items.map { ($0.id, Self.schema(of: $0)) }, uniquingKeysWith: { first, _ in first }))
            let requiredItems = items.filter { $0.required && $0.visibleWhen == nil }.map { JSONValue.string($0.id) }
            if !requiredItems.isEmpty { item["required"] = .array(requiredItems) }
            schema["type"] = "array"
            schema["items"] = .object(item)
            if let low = field.minItems { schema["minItems"] = .int(Int64(low)) }
            if let high = field.maxItems { schema["maxItems"] = .int(Int64(high)) }
        }
        if let condition = field.visibleWhen {
            notes.append("only when \(condition)")
        }
        if let condition = field.requiredWhen {
            notes.append("required when \(condition)")
        }
        if !field.required { notes.append("optional") }
        schema["description"] = .string(notes.joined(separator: "; "))
        return .object(schema)
    }

    static func bound(_ field: FieldView, _ schema: inout [String: JSONValue]) {
        if let low = field.min, low.doubleValue != nil { schema["minimum"] = low }
        if let high = field.max, high.doubleValue != nil { schema["maximum"] = high }
    }

    static func optionNotes(_ field: FieldView) -> String {
        let options = (field.options ?? []).map { option in
            "\(option.value) (\(option.label)\(option.locked ? ", locked" : ""))"
        }
        return "options: " + options.joined(separator: ", ")
    }
}
