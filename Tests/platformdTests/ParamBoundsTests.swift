import Foundation
import PlatformCore
import PlatformTesting
import Testing

/// Through the real binary: each bounded member is taken at its bound and refused one past it
/// with -32602 naming it, as `ParamBounds` (which `rpc.discover` publishes) says.
@Suite("Parameter bounds, served")
struct ServedParamBoundsTests {
    @Test func eachIntegerBoundIsTheServersCheck() async throws {
        try await PlatformdProcess.withServer { server in
            let tenant = JSONValue.string(Hosted.tenant)
            let started = try await server.call("flow.start", ["tenant": tenant, "userId": "bounds"])
            let sessionId = try #require(started["result"]?["sessionId"])
            let base: [PlatformMethod: [String: JSONValue]] = [
                .search: ["tenant": tenant, "sessionId": sessionId, "field": "nosuchfield", "query": "a"],
                .eventsList: ["tenant": tenant],
                .userToken: ["tenant": tenant, "userId": "bounds"],
            ]
            for (method, bound) in ParamBounds.integers {
                var params = try #require(base[method], "a call of \(method.rawValue) to check \(bound.name) on")
                for (value, refused) in [(bound.range.upperBound, false), (bound.range.upperBound + 1, true), (bound.range.lowerBound - 1, true)] {
                    params[bound.name] = .int(Int64(value))
                    let reply = try await server.call(method.rawValue, .object(params))
                    let invalid =
                        reply["error"]?["code"] == .int(Int64(ErrorCode.invalidParams.rawValue)) && reply["error"]?["data"]?["param"] == .string(bound.name)
                    #expect(invalid == refused, "\(method.rawValue) \(bound.name) = \(value): \(reply.serialized())")
                    if refused {
                        #expect(reply["error"]?["message"]?.stringValue?.hasSuffix(bound.outOfRange) == true, "\(reply.serialized())")
                    }
                }
            }
            // A text bound: the query one past its length.
            let long = String(repeating: "a", count: ParamBounds.searchQuery.maxLength + 1)
            let reply = try await server.call("flow.search", ["tenant": tenant, "sessionId": sessionId, "field": "x", "query": .string(long)])
            #expect(reply["error"]?["data"]?["param"] == "query", "\(reply.serialized())")
        }
    }
}
