import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// A tenants file ending in `.yaml` or `.yml` may be YAML: it hosts what the same file in JSON
/// hosts, and is checked with the same messages; what YAML can say and JSON cannot is refused
/// with its line.
@Suite("Tenants from a YAML file")
struct YAMLTenantsTests {
    static var yaml: String {
        """
        # Two tenants of one plugin and one of another.
        tenants:
          - id: \(Hosted.tenant)
            plugin: \(Hosted.plugin)
          - id: "\(Hosted.tenant)-eu"
            plugin: \(Hosted.plugin)
            limits: { requestsPerSecond: 0.0001, burst: 3 }
          - id: club-a
            plugin: \(Hosted.registrations.last?.name ?? Hosted.plugin)
        """
    }

    static var json: String {
        """
        { "tenants": [
            { "id": "\(Hosted.tenant)", "plugin": "\(Hosted.plugin)" },
            { "id": "\(Hosted.tenant)-eu", "plugin": "\(Hosted.plugin)", "limits": { "requestsPerSecond": 0.0001, "burst": 3 } },
            { "id": "club-a", "plugin": "\(Hosted.registrations.last?.name ?? Hosted.plugin)" }
        ] }
        """
    }

    func info(_ path: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await AuthTests.command(["info", "--tenants", path])
    }

    @Test(arguments: ["tenants.yaml", "tenants.yml"])
    func aYAMLFileHostsWhatTheSameJSONFileHosts(name: String) async throws {
        try await withTemporaryDirectory { directory in
            let yaml = try TenancyTests.write(Self.yaml, in: directory, name: name)
            let json = try TenancyTests.write(Self.json, in: directory)
            let fromYAML = try await info(yaml)
            let fromJSON = try await info(json)
            #expect(fromYAML.status == 0, "\(fromYAML.stderr)")
            #expect(fromYAML.stdout == fromJSON.stdout)
            #expect(fromYAML.stdout.split(separator: "\n").count == 3)
            // Served: the limits read from YAML hold (a burst of 3, then -32007; one token per 10,000 s, so
            // a slow machine cannot refill the bucket between requests).
            try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", yaml]) { server in
                var codes: [JSONValue?] = []
                for index in 0..<4 {
                    let params: JSONValue = ["tenant": .string("\(Hosted.tenant)-eu"), "userId": .string("u\(index)")]
                    let reply = try await server.call("flow.start", params)
                    codes.append(reply["error"]?["code"])
                }
                #expect(codes == [nil, nil, nil, .int(-32007)])
            }
        }
    }

    @Test(
        arguments: [
            ("tenants:\n  - id: x\n    plugin: [unclosed\n", nil, nil, "invalid YAML"),
            ("tenants:\n  - id: x\n    plugin: \(Hosted.plugin)\n    limits: { requestsPerSecond: 1, burst: \"3\" }\n", "x", "limits.burst", "integer"),
            ("tenants:\n  - id: x\n    plugin: \(Hosted.plugin)\n    extra: 1\n", "x", "extra", "unknown key"),
            ("tenants:\n  - id: x\n    plugin: \(Hosted.plugin)\n    ? [a, b]\n    : c\n", nil, nil, "line 4"),
            // An alias stands for what it names: here a second tenant with the first one's id.
            ("tenants:\n  - &t { id: x, plugin: \(Hosted.plugin) }\n  - *t\n", "x", "id", "another tenant"),
            ("", nil, nil, "empty"),
            ("tenants:\n  - id: x\n    plugin: \(Hosted.plugin)\n    limits: { requestsPerSecond: .inf }\n", nil, nil, "not a finite number"),
        ] as [(String, String?, String?, String)])
    func aBadYAMLFileIsRefusedLikeAJSONOne(file: String, tenant: String?, key: String?, reason: String) async throws {
        try await expectTenantsFileRefused(file, tenant: tenant, key: key, reason: reason, fileName: "tenants.yaml")
    }

    /// YAML 1.2's core types: `no` is a string (a tenant may be called that), not YAML 1.1's false.
    @Test func wordsYAML11TookForBooleansStayStrings() async throws {
        try await withTemporaryDirectory { directory in
            let path = try TenancyTests.write("tenants:\n  - id: no\n    plugin: \(Hosted.plugin)\n", in: directory, name: "tenants.yaml")
            let result = try await info(path)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("no\t"), "\(result.stdout)")
        }
    }
}
