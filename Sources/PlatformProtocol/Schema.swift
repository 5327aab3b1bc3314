/// JSON Schema (draft 7, as OpenRPC uses) for the wire types, written beside the types they
/// describe and checked against real replies by the test suite, so neither can drift.
enum Schema {
    static let string: JSONValue = ["type": "string"]
    static let boolean: JSONValue = ["type": "boolean"]
    static let number: JSONValue = ["type": "number"]
    static let anyValue: JSONValue = [:]
    static let numberOrString: JSONValue = ["type": ["number", "string"]]
    static let timestamp: JSONValue = [
        "type": "string", "format": "date-time", "description": "ISO 8601 in UTC, e.g. 2026-11-21T22:43:37Z",
    ]

    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    static func string(description: String? = nil, maxLength: Int? = nil, minLength: Int? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "string"]
        if let description { schema["description"] = .string(description) }
        if let maxLength { schema["maxLength"] = .int(Int64(maxLength)) }
        if let minLength { schema["minLength"] = .int(Int64(minLength)) }
        return .object(schema)
    }

    static func integer(minimum: Int? = nil, maximum: Int? = nil, description: String? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "integer"]
        if let minimum { schema["minimum"] = .int(Int64(minimum)) }
        if let maximum { schema["maximum"] = .int(Int64(maximum)) }
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    static func object(description: String) -> JSONValue {
        ["type": "object", "description": .string(description)]
    }

    static func enumeration(_ values: [String], description: String? = nil) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "string", "enum": .array(values.map(JSONValue.string))]
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }

    static func nullable(_ schema: JSONValue) -> JSONValue { ["oneOf": [["type": "null"], schema]] }

    /// An object with these members; `closed` objects refuse members not listed.
    static func object(
        _ properties: [String: JSONValue], required: [String], closed: Bool = true, description: String? = nil
    ) -> JSONValue {
        var schema: [String: JSONValue] = [
            "type": "object", "properties": .object(properties),
            "required": .array(required.sorted().map(JSONValue.string)),
        ]
        if closed { schema["additionalProperties"] = false }
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }

    /// Each form of a condition, closed so exactly one matches.
    static var fieldCondition: JSONValue {
        let comparisons = FieldCondition.Comparison.allCases.map { comparison -> JSONValue in
            let operand = comparison == .in ? array(anyValue) : anyValue
            return object(["field": string, comparison.rawValue: operand], required: ["field", comparison.rawValue])
        }
        let combinations: [JSONValue] = [
            object(["field": string, "answered": boolean], required: ["field", "answered"]),
            object(["all": array(ref("FieldCondition"))], required: ["all"]),
            object(["any": array(ref("FieldCondition"))], required: ["any"]),
            object(["not": ref("FieldCondition")], required: ["not"]),
        ]
        return [
            "oneOf": .array(comparisons + combinations),
            "description":
                "When a field is shown (visibleWhen) or required (requiredWhen); `field` names a field of the flow, or in a list's itemFields a sibling item field.",
        ]
    }

    /// The shared shapes, by name, for `components.schemas`.
    static var components: [String: JSONValue] {
        [
            "TenantId": ParamBounds.tenant.schema,
            "UserId": ParamBounds.userId.schema,
            "UserDetails": object(
                Dictionary(uniqueKeysWithValues: UserDetails.members.map { ($0, string(maxLength: ParamBounds.userDetail.maxLength)) }), required: [],
                closed: false, description: "What the app knows of the person, all optional."),
            "SessionStatus": enumeration(SessionStatus.allCases.map(\.rawValue)),
            "SessionView": object(
                [
                    "sessionId": string, "tenant": string, "userId": string, "flow": string, "flowVersion": string,
                    "locale": string(description: "The BCP 47 locale the view's texts are in."),
                    "status": ref("SessionStatus"), "revision": integer(minimum: 0),
                    "progress": ref("Progress"), "step": nullable(ref("StepView")),
                    "completion": nullable(ref("Completion")), "rejection": nullable(ref("Rejection")),
                    "experiment": ref("ExperimentMembership"),
                ],
                required: [
                    "sessionId", "tenant", "userId", "flow", "flowVersion", "locale", "status", "revision", "progress", "step", "completion", "rejection",
                ]),
            "Progress": object(
                [
                    "index": integer(minimum: 0), "total": integer(minimum: 0), "label": string,
                    "fraction": ["type": "number", "minimum": 0, "maximum": 1],
                ], required: ["index", "total", "label", "fraction"]),
            "StepKind": enumeration(StepKind.allCases.map(\.rawValue)),
            "StepView": object(
                [
                    "id": string, "kind": ref("StepKind"), "title": string, "subtitle": string, "helper": string,
                    "fields": array(ref("FieldView")), "actions": array(ref("Action")),
                    "content": ["type": "object"], "errors": array(ref("FieldError")),
                ], required: ["id", "kind", "title", "fields", "actions", "content", "errors"]),
            "Action": object(["id": string, "label": string], required: ["id", "label"]),
            "FieldType": enumeration(FieldType.allCases.map(\.rawValue)),
            "FieldView": object(
                [
                    "id": string, "type": ref("FieldType"), "label": string, "required": boolean,
                    "placeholder": string, "options": array(ref("Option")),
                    "min": numberOrString, "max": numberOrString, "step": number,
                    "minLength": integer(minimum: 0), "maxLength": integer(minimum: 0),
                    "minItems": integer(minimum: 0), "maxItems": integer(minimum: 0),
                    "default": anyValue, "value": anyValue, "visibleWhen": ref("FieldCondition"),
                    "requiredWhen": ref("FieldCondition"), "allowCustom": boolean, "itemFields": array(ref("FieldView")), "pattern": string,
                ], required: ["id", "type", "label", "required", "value"], closed: false,
                description: "Members beyond these carry type-specific data (a slider's value bands)."),
            "Option": object(
                [
                    "value": string, "label": string, "detail": string, "locked": boolean, "badge": string, "link": string,
                ], required: ["value", "label", "locked"]),
            "FieldCondition": fieldCondition,
            "VisibilityCondition": ref("FieldCondition"),
            "FieldErrorCode": enumeration(FieldErrorCode.allCases.map(\.rawValue)),
            "FieldError": object(
                [
                    "field": nullable(string), "code": ref("FieldErrorCode"), "message": string,
                ], required: ["field", "code", "message"]),
            "Completion": object(
                [
                    "message": string, "records": array(string), "screen": ref("CompletionScreen"),
                ], required: ["message", "records"]),
            "CompletionScreen": object(
                [
                    "title": string, "body": string, "summary": array(["type": "object"]), "actions": array(ref("Action")),
                ], required: ["title", "body"]),
            "Rejection": object(["code": string, "message": string], required: ["code", "message"]),
            "ExperimentMembership": object(
                ["id": string, "variant": string], required: ["id", "variant"],
                description: "The experiment a session is in and its variant; absent when in none."),
            "Profile": object(
                [
                    "tenant": string, "userId": string, "completedAt": timestamp,
                    "records": ["type": "object", "additionalProperties": ["type": "object"]],
                ], required: ["tenant", "userId", "completedAt", "records"]),
            "GateRequirement": object(["id": string, "label": string, "satisfied": boolean], required: ["id", "label", "satisfied"]),
            "GateDecision": object(
                [
                    "action": string, "allowed": boolean, "gate": string, "title": string, "message": string, "cta": string,
                    "requirements": array(ref("GateRequirement")),
                ], required: ["action", "allowed", "requirements"]),
            "SearchResult": object(["value": string, "label": string], required: ["value", "label"], closed: false),
            "SearchResults": object(["results": array(ref("SearchResult")), "message": string], required: ["results"]),
            "FlowDescription": object(
                [
                    "tenant": string, "flow": string,
                    "steps": array(
                        object(
                            ["id": string, "kind": ref("StepKind"), "title": string, "fields": array(string)],
                            required: ["id", "kind", "title", "fields"])),
                    "edges": array(object(["from": string, "to": string, "when": string], required: ["from", "to"])),
                    "mermaid": string, "intro": anyValue, "version": string, "fingerprint": string,
                ], required: ["steps", "edges", "mermaid", "version", "fingerprint"]),
            "ExperimentResults": object(
                [
                    "experiment": string, "seed": string, "status": enumeration(["running", "stopped", "shipped"]), "control": string,
                    "srm": nullable(
                        object(
                            ["chiSquare": number, "pValue": number, "mismatch": boolean], required: ["chiSquare", "pValue", "mismatch"])),
                    "variants": array(
                        object(
                            [
                                "id": string, "flow": string, "version": string, "share": number, "exposed": integer(minimum: 0),
                                "completed": integer(minimum: 0), "completionRate": nullable(number),
                                "secondsToComplete": nullable(object(["median": number, "p90": number], required: ["median", "p90"])),
                                "steps": array(
                                    object(
                                        [
                                            "id": string, "reached": integer(minimum: 0), "left": integer(minimum: 0),
                                            "dropped": integer(minimum: 0), "medianSeconds": nullable(number),
                                        ], required: ["id", "reached", "left", "dropped", "medianSeconds"])),
                                "vsControl": nullable(
                                    object(
                                        [
                                            "difference": nullable(number),
                                            "interval": nullable(["type": "array", "items": number, "minItems": 2, "maxItems": 2]),
                                            "decision": enumeration(["better", "worse", "inconclusive"]),
                                        ], required: ["difference", "interval", "decision"])),
                            ],
                            required: [
                                "id", "flow", "version", "share", "exposed", "completed", "completionRate", "secondsToComplete", "steps", "vsControl",
                            ])),
                    "stopped": nullable(object(["at": timestamp, "variant": string, "reason": string], required: ["at", "variant", "reason"])),
                ], required: ["experiment", "seed", "status", "control", "srm", "variants", "stopped"],
                description: "analytics.experiment's answer."),
            "Funnel": object(
                [
                    "started": integer(minimum: 0), "completed": integer(minimum: 0), "deferred": integer(minimum: 0),
                    "rejected": integer(minimum: 0), "completionRate": number,
                    "steps": array(
                        object(
                            [
                                "id": string, "reached": integer(minimum: 0), "left": integer(minimum: 0),
                                "dropped": integer(minimum: 0), "medianSeconds": nullable(number),
                            ], required: ["id", "reached", "left", "dropped", "medianSeconds"])),
                    "branches": array(
                        object(
                            [
                                "from": string, "to": string, "count": integer(minimum: 0), "completed": integer(minimum: 0),
                            ], required: ["from", "to", "count", "completed"])),
                    "skips": array(object(["step": string, "count": integer(minimum: 0)], required: ["step", "count"])),
                    "versions": array(
                        object(
                            [
                                "version": string, "started": integer(minimum: 0), "completed": integer(minimum: 0),
                            ], required: ["version", "started", "completed"])),
                ], required: ["started", "completed", "deferred", "rejected", "completionRate", "steps", "branches", "skips", "versions"]),
            "PlatformInfo": object(
                [
                    "name": string, "version": string, "protocol": integer(minimum: 1),
                    "tenants": array(
                        object(
                            [
                                "tenant": ref("TenantId"), "plugin": string, "version": string, "flows": array(string),
                            ], required: ["tenant", "plugin", "flows"])),
                ], required: ["name", "version", "protocol", "tenants"]),
            "Principal": object(
                [
                    "kind": enumeration(Principal.Kind.allCases.map(\.rawValue)), "tenant": ref("TenantId"),
                    "userId": ref("UserId"), "expiresAt": timestamp,
                ], required: ["kind"]),
            "LoginResult": object(["principal": ref("Principal")], required: ["principal"]),
            "UserToken": object(["token": string, "expiresAt": timestamp], required: ["token", "expiresAt"]),
            "RevokedTokens": object(["revoked": integer(minimum: 0)], required: ["revoked"]),
            "EventCursor": string(
                description: "An opaque position in a tenant's events: pass an events.list reply's next as after.",
                maxLength: 40, minLength: 1),
            "EventType": enumeration(PlatformEventType.allCases.map(\.rawValue)),
            "Event": object(
                [
                    "id": string, "type": ref("EventType"), "tenant": ref("TenantId"),
                    "userId": string(description: "The user the event is about; empty for experiment.stopped, which is about no one."),
                    "sessionId": string, "occurredAt": timestamp,
                    "data": object(
                        [
                            "records": ["type": "object", "additionalProperties": ["type": "object"]], "code": string,
                            "flowVersion": string, "step": nullable(string), "progress": ref("Progress"),
                            "experiment": ["oneOf": [ref("ExperimentMembership"), string]], "variant": string,
                            "interval": ["type": "array", "items": number],
                        ], required: [],
                        description:
                            "{ records, flowVersion } for session.completed; { records } for profile.updated; { code } for session.rejected; { step, progress } for session.abandoned and session.expired; {} for user.erased. session.completed and session.rejected add experiment { id, variant } when the session is in one; { experiment, variant, interval } for experiment.stopped."
                    ),
                ], required: ["id", "type", "tenant", "userId", "occurredAt", "data"],
                description: "A completion event, as webhooks receive it and events.list returns it."),
            "UserExport": object(
                [
                    "tenant": string, "userId": string, "exportedAt": timestamp,
                    "sessions": array(
                        object(
                            [
                                "sessionId": string, "flow": string, "flowVersion": string, "status": ref("SessionStatus"),
                                "createdAt": timestamp, "updatedAt": timestamp, "user": ref("UserDetails"),
                                "answers": ["type": "object", "additionalProperties": ["type": "object"]],
                            ], required: ["sessionId", "flow", "flowVersion", "status", "createdAt", "updatedAt", "user", "answers"])),
                    "profile": nullable(ref("Profile")),
                    "events": array(object(["type": string, "step": string, "at": timestamp], required: ["type", "at"])),
                    "assignments": array(
                        object(
                            ["experiment": string, "seed": string, "variant": string, "flow": string, "assignedAt": timestamp],
                            required: ["experiment", "seed", "variant", "flow", "assignedAt"])),
                ], required: ["tenant", "userId", "exportedAt", "sessions", "profile", "events", "assignments"]),
            "UserErasure": object(
                [
                    "erased": object(
                        [
                            "sessions": integer(minimum: 0), "records": integer(minimum: 0), "events": integer(minimum: 0),
                            "deliveries": integer(minimum: 0),
                        ], required: ["sessions", "records", "events", "deliveries"])
                ], required: ["erased"]),
            "EventsPage": object(["events": array(ref("Event")), "next": ref("EventCursor")], required: ["events", "next"]),
            "OpenRPCDocument": object(
                ["openrpc": string, "info": ["type": "object"], "methods": ["type": "array"]],
                required: ["openrpc", "info", "methods"], closed: false),
            "ErrorData": object(
                [
                    "param": string, "errors": array(ref("FieldError")), "session": ref("SessionView"),
                    "retryAfterMs": integer(minimum: 0),
                    "tenants": array(ref("TenantId")),
                ], required: [], closed: false, description: "The data of the contract's errors."),
            "Error": object(
                [
                    "code": ["type": "integer"], "message": string, "data": ref("ErrorData"),
                ], required: ["code", "message"], description: "A JSON-RPC error object."),
        ]
    }
}
