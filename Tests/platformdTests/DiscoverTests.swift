import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// `rpc.discover` as served by the real binary, and an independent check of real replies against
/// it with Python's jsonschema (every other platformd test checks its replies with the Swift
/// validator in PlatformTesting as it reads them).
@Suite("rpc.discover")
struct DiscoverTests {
    @Test func theDocumentListsEveryMethodWithSchemasAndErrorCodes() async throws {
        try await PlatformdProcess.withServer { server in
            let reply = try await server.call("rpc.discover", id: 1)
            let document = try #require(reply["result"])
            #expect(document == SchemaValidator.served.document)
            #expect(document["openrpc"]?.stringValue?.hasPrefix("1.") == true)
            let names = Set(document["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
            #expect(names == Set(PlatformMethod.allCases.map(\.rawValue)))
            let schemas = try #require(document["components"]?["schemas"]?.objectValue)
            for shape in ["SessionView", "StepView", "FieldView", "FieldError", "GateDecision", "Profile", "Funnel"] {
                #expect(schemas[shape] != nil, "components.schemas.\(shape)")
            }
            let codes = document["components"]?["errors"]?.objectValue?.values.compactMap { $0["code"]?.intValue } ?? []
            #expect(Set(codes).isSuperset(of: [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008]))
        }
    }

    /// For every tenant the server lists: the replies a client meets first (start, get, describe,
    /// an empty submit, a stale submit, a gate, a profile before completion, a funnel) checked by
    /// jsonschema, the reference validator, against the document the same server published.
    @Test(.enabled("needs python3 with the jsonschema package (pip install jsonschema)") { await Python.has("jsonschema") })
    func realRepliesOfEveryTenantValidateWithJsonschema() async throws {
        try await withTemporaryDirectory { directory in
            var samples: [JSONValue] = []
            let document = try await PlatformdProcess.withServer { server -> JSONValue in
                var id: Int64 = 0
                func call(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
                    id += 1
                    let reply = try await server.call(method, params, id: .int(id))
                    samples.append(["method": .string(method), "reply": reply])
                    return reply
                }
                let info = try await call("platform.info")
                let tenants = info["result"]?["tenants"]?.arrayValue?.compactMap({ $0["tenant"] }) ?? []
                // Every registered tenant is sampled.
                #expect(tenants.compactMap(\.stringValue) == Hosted.tenants)
                for tenant in tenants {
                    let started = try await call("flow.start", ["tenant": tenant, "userId": "schema", "user": ["firstName": "Sam"]])
                    let view = try #require(started["result"])
                    _ = try await call("flow.get", ["tenant": tenant, "sessionId": view["sessionId"]!])
                    _ = try await call("flow.describe", ["tenant": tenant])
                    let submit: JSONValue = [
                        "tenant": tenant, "sessionId": view["sessionId"]!, "stepId": view["step"]!["id"]!,
                        "revision": view["revision"]!, "values": [:],
                    ]
                    _ = try await call("flow.submit", submit)
                    _ = try await call("flow.submit", .object(submit.objectValue!.merging(["revision": 99]) { $1 }))
                    _ = try await call("flow.back", ["tenant": tenant, "sessionId": view["sessionId"]!, "revision": 99])
                    _ = try await call("gate.check", ["tenant": tenant, "userId": "schema", "action": "anything"])
                    _ = try await call("profile.get", ["tenant": tenant, "userId": "schema"])
                    _ = try await call("analytics.funnel", ["tenant": tenant])
                }
                _ = try await call("flow.start", ["tenant": "nope", "userId": "u"])
                _ = try await call("flow.start", ["userId": "u"])
                return try #require(try await call("rpc.discover")["result"])
            }
            let bundle = directory.appendingPathComponent("replies.json")
            try Data((["document": document, "samples": .array(samples)] as JSONValue).serializedBytes()).write(to: bundle)
            let (status, output) = try await Python.run([Self.script.path, bundle.path])
            #expect(status == 0, "\(output)")
            #expect(output.contains("\(samples.count) passed, 0 failed"), "\(output)")
        }
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Scripts/validate_replies.py")
}
