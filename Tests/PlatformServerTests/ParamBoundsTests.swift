import PlatformProtocol
import PlatformServer
import Testing

/// A parameter's bound is written once (`ParamBounds`): the schema `rpc.discover` publishes and
/// the server's check are both derived from it, so changing it changes both.
@Suite("Parameter bounds")
struct ParamBoundsTests {
    @Test func aChangedIntegerBoundChangesTheSchemaAndTheCheck() throws {
        var bound = ParamBounds.searchLimit
        bound.range = 2...7
        bound.defaultValue = 3
        #expect(bound.schema["minimum"] == 2)
        #expect(bound.schema["maximum"] == 7)
        #expect(bound.schema["description"] == "Default 3.")
        #expect(try RPCParams([:]).integer(bound) == 3)
        #expect(try RPCParams(["limit": 7]).integer(bound) == 7)
        let refused = #expect(throws: RPCError.self) { try RPCParams(["limit": 8]).integer(bound) }
        #expect(refused?.code == ErrorCode.invalidParams.rawValue)
        #expect(refused?.message.hasSuffix(": limit must be between 2 and 7") == true, "\(refused?.message ?? "")")
        #expect(refused?.data?["param"] == "limit")
        #expect(throws: RPCError.self) { try RPCParams(["limit": 1]).integer(bound) }
    }

    @Test func aChangedTextBoundChangesTheSchemaAndTheCheck() throws {
        var bound = ParamBounds.searchQuery
        bound.maxLength = 4
        #expect(bound.schema["maxLength"] == 4)
        #expect(try RPCParams(["query": "abcd"]).string(bound) == "abcd")
        let refused = #expect(throws: RPCError.self) { try RPCParams(["query": "abcde"]).string(bound) }
        #expect(refused?.message.hasSuffix(": query must be at most 4 characters") == true)
    }

    /// An experiment id longer than any the tenants file accepts is refused before it is looked up.
    @Test func anOverlongExperimentIdIsRefused() throws {
        let id = String(repeating: "e", count: 63)
        #expect(try RPCParams(["experiment": .string(id)]).string(ParamBounds.experiment) == id)
        let refused = #expect(throws: RPCError.self) { try RPCParams(["experiment": .string(id + "e")]).string(ParamBounds.experiment) }
        #expect(refused?.message.hasSuffix(": experiment must be at most 63 characters") == true)
    }

    /// The published document carries each bound exactly as `ParamBounds` holds it.
    @Test func theDiscoveryDocumentPublishesEachBound() throws {
        let document = try JSONValue(encoding: OpenRPCDocument(version: "test"))
        func member(_ method: PlatformMethod, _ name: String) -> JSONValue? {
            let entry = document["methods"]?.arrayValue?.first { $0["name"] == .string(method.rawValue) }
            return entry?["params"]?.arrayValue?.first { $0["name"] == .string(name) }?["schema"]
        }
        for (method, bound) in ParamBounds.integers {
            #expect(member(method, bound.name) == bound.schema, "\(method.rawValue).\(bound.name)")
        }
        for (method, bound) in ParamBounds.texts where method != .start {
            #expect(member(method, bound.name) == bound.schema, "\(method.rawValue).\(bound.name)")
        }
        #expect(document["components"]?["schemas"]?["TenantId"] == ParamBounds.tenant.schema)
        #expect(document["components"]?["schemas"]?["UserId"] == ParamBounds.userId.schema)
    }
}
