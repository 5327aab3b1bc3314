/// One member of a method's params: its name, whether a request must give it, and its schema.
///
/// Each member is declared once, beside the params type it belongs to (`StartParams.members`).
/// `rpc.discover` lists them, the server reads a request through them (a required member's
/// absence is the -32602 that names it) and the client encodes the same type.
public struct ParamMember: Sendable {
    public let name: String
    public let required: Bool
    public let schema: JSONValue

    public init(_ name: String, required: Bool, schema: JSONValue) {
        self.name = name
        self.required = required
        self.schema = schema
    }

    /// The same member, optional (for a method where it is one of two ways to name something).
    public var optional: ParamMember { ParamMember(name, required: false, schema: schema) }
}

/// A method's params as one type: what a client encodes, what the server decodes, and what the
/// OpenRPC document describes (`members`).
public protocol MethodParams: Codable, Sendable {
    /// The members in the order a positional client would list them.
    static var members: [ParamMember] { get }
}

extension ParamMember {
    public static let tenant = ParamMember("tenant", required: true, schema: Schema.ref("TenantId"))
    public static let userId = ParamMember("userId", required: true, schema: Schema.ref("UserId"))
    public static let sessionId = ParamMember("sessionId", required: true, schema: Schema.string)
    public static let stepId = ParamMember("stepId", required: true, schema: Schema.string)
    public static let revision = ParamMember("revision", required: true, schema: Schema.integer(minimum: 0))
    public static let flow = ParamMember("flow", required: false, schema: Schema.string(description: "Default \"onboarding\"."))

    public static func bounded(_ bound: IntegerParam) -> ParamMember {
        ParamMember(bound.name, required: false, schema: bound.schema)
    }

    public static func bounded(_ bound: TextParam, required: Bool) -> ParamMember {
        ParamMember(bound.name, required: required, schema: bound.schema)
    }

    static func locale(_ description: String) -> ParamMember {
        ParamMember(
            "locale", required: false,
            schema: Schema.string(
                description: description, maxLength: ParamBounds.locale.maxLength, minLength: ParamBounds.locale.minLength))
    }
}
