/// The OpenRPC 1.x document `rpc.discover` answers with.
public struct OpenRPCDocument: Sendable, Hashable, Codable {
    public struct Info: Sendable, Hashable, Codable {
        public var title: String
        public var version: String
        public var description: String
    }

    public struct ContentDescriptor: Sendable, Hashable, Codable {
        public var name: String
        public var required: Bool?
        public var schema: JSONValue
    }

    public struct ErrorDescription: Sendable, Hashable, Codable {
        public var code: Int
        public var message: String
        public var data: JSONValue?
    }

    public struct Method: Sendable, Hashable, Codable {
        public var name: String
        public var summary: String
        public var paramStructure: String
        public var params: [ContentDescriptor]
        public var result: ContentDescriptor
        public var errors: [ErrorDescription]
    }

    public struct Components: Sendable, Hashable, Codable {
        public var schemas: [String: JSONValue]
        public var errors: [String: ErrorDescription]
    }

    public var openrpc = "1.3.2"
    public var info: Info
    public var methods: [Method]
    public var components: Components

    /// The document for these methods (the server passes the ones its table serves).
    public init(version: String, methods: [PlatformMethod] = PlatformMethod.allCases) {
        info = Info(
            title: "platformd", version: version,
            description: "Multi-tenant onboarding flows over JSON-RPC 2.0, one message per line.")
        func describe(_ code: ErrorCode) -> ErrorDescription {
            ErrorDescription(code: code.rawValue, message: code.title, data: .string(code.meaning))
        }
        self.methods = methods.map { method in
            Method(
                name: method.rawValue, summary: method.summary, paramStructure: "by-name",
                params: method.params.map { ContentDescriptor(name: $0.name, required: $0.required, schema: $0.schema) },
                result: ContentDescriptor(name: "result", required: nil, schema: Schema.ref(method.resultSchema)),
                errors: method.errors.map(describe))
        }
        components = Components(
            schemas: Schema.components,
            errors: Dictionary(uniqueKeysWithValues: ErrorCode.allCases.map { ("\($0)", describe($0)) }))
    }
}
