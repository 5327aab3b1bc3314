import PlatformProtocol
import Testing

@testable import PlatformServer

/// One contract per method: the params type the client encodes is the one the server decodes,
/// and `rpc.discover` lists its members. For every method, a request built from the published
/// members decodes on the server and encodes back to the same members; dropping a required
/// member is the -32602 that names it; an optional one may be left out.
@Suite("One params type per method")
struct MethodParamsTests {
    /// A valid value for a member, chosen from its published schema.
    static func sample(_ member: ParamMember) -> JSONValue {
        let schema = member.schema
        if member.name == "locale" { return "es" }
        if schema["format"] == "date-time" { return "2026-11-21T00:00:00Z" }
        if schema["$ref"] == "#/components/schemas/EventCursor" { return "c5" }
        if schema["$ref"] == "#/components/schemas/UserDetails" { return ["firstName": "Ana"] }
        if let choices = schema["enum"]?.arrayValue, let first = choices.first { return first }
        switch schema["type"]?.stringValue {
        case "integer": return .int(Int64(schema["minimum"]?.intValue ?? 0) + 1)
        case "object": return ["a": 1]
        default: return .string("\(member.name)-1")
        }
    }

    static func reader(_ method: PlatformMethod) throws -> any RequestParams.Type {
        try #require(method.paramsType as? any RequestParams.Type, "\(method.rawValue)'s params are not read by the server")
    }

    /// The required members, plus the one alternative a method needs when it names a thing two
    /// ways (`flow.get`: sessionId or userId).
    static func minimalRequest(_ method: PlatformMethod) throws -> [String: JSONValue] {
        let members = method.paramsType.members
        var request = Dictionary(uniqueKeysWithValues: members.filter(\.required).map { ($0.name, sample($0)) })
        do {
            _ = try reader(method).init(reading: RPCParams(request))
        } catch let error as RPCError {
            let missing = try #require(error.data?["param"]?.stringValue)
            let alternative = try #require(members.first { $0.name == missing && !$0.required }, "\(method.rawValue): \(error.message)")
            request[missing] = sample(alternative)
        }
        return request
    }

    @Test(arguments: PlatformMethod.allCases)
    func theServerDecodesWhatTheClientEncodesAndDiscoveryLists(_ method: PlatformMethod) throws {
        let members = method.paramsType.members
        #expect(Set(members.map(\.name)).count == members.count, "a member listed twice")
        let request = try Self.minimalRequest(method)
        let decoded = try Self.reader(method).init(reading: RPCParams(request))
        #expect(try JSONValue(encoding: decoded) == .object(request), "\(method.rawValue)")

        for member in members where request[member.name] == nil {
            var fuller = request
            fuller[member.name] = Self.sample(member)
            do {
                let withMember = try JSONValue(encoding: try Self.reader(method).init(reading: RPCParams(fuller)))
                #expect(withMember[member.name] == Self.sample(member), "\(method.rawValue).\(member.name) is not carried by its params type")
            } catch let error as RPCError {
                // Only an alternative to an optional member already given may be refused, naming one of the two.
                let alternatives = [member.name] + members.filter { !$0.required && request[$0.name] != nil }.map(\.name)
                #expect(alternatives.map(JSONValue.string).contains(error.data?["param"] ?? nil), "\(method.rawValue).\(member.name): \(error.message)")
            }
        }
    }

    @Test(arguments: PlatformMethod.allCases)
    func aMissingRequiredMemberIsTheErrorThatNamesIt(_ method: PlatformMethod) throws {
        let request = try Self.minimalRequest(method)
        for member in method.paramsType.members where member.required {
            var missing = request
            missing[member.name] = nil
            let refused = #expect(throws: RPCError.self, "\(method.rawValue) without \(member.name)") {
                try Self.reader(method).init(reading: RPCParams(missing))
            }
            #expect(refused?.code == ErrorCode.invalidParams.rawValue)
            #expect(refused?.data?["param"] == .string(member.name), "\(method.rawValue): \(refused?.message ?? "")")
        }
    }

    /// The published document is the members, in order, with their required flags.
    @Test func discoveryListsEachParamsTypesMembers() throws {
        let document = try JSONValue(encoding: OpenRPCDocument(version: "test"))
        for method in PlatformMethod.allCases {
            let entry = try #require(document["methods"]?.arrayValue?.first { $0["name"] == .string(method.rawValue) })
            let published = entry["params"]?.arrayValue ?? []
            #expect(published.map { $0["name"]?.stringValue ?? "" } == method.paramsType.members.map(\.name))
            #expect(published.map { $0["required"]?.boolValue ?? false } == method.paramsType.members.map(\.required))
        }
    }
}
