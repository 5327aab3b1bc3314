import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// TeePals' tenant settings through the real binary's `--tenants` file: `minimumAge` checked at
/// start-up, and two tenants with different minimum ages side by side.
@Suite("platformd: TeePals tenant settings")
struct TenantSettingsTests {
    static func write(_ text: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent("tenants.json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static let twoTeePals = """
        { "tenants": [
            { "id": "teepals", "plugin": "TeePals" },
            { "id": "teepals-eu", "plugin": "TeePals", "settings": { "minimumAge": 16 } },
            { "id": "club-a", "plugin": "TeePals" }
        ] }
        """

    @Test(arguments: [
        (#"{ "tenants": [ { "id": "x", "plugin": "TeePals", "settings": { "maxAge": 3 } } ] }"#, "settings.maxAge", "unknown setting"),
        (#"{ "tenants": [ { "id": "x", "plugin": "TeePals", "settings": { "minimumAge": "16" } } ] }"#, "settings.minimumAge", "must be an integer"),
        (#"{ "tenants": [ { "id": "x", "plugin": "TeePals", "settings": { "minimumAge": 12 } } ] }"#, "settings.minimumAge", "between 13 and 21"),
    ])
    func aBadSettingStopsTheServerNamingIt(file: String, key: String, reason: String) async throws {
        try await expectTenantsFileRefused(file, tenant: "x", key: key, reason: reason)
    }

    /// Two TeePals tenants with different minimum ages: the same 14-year-old is accepted by one and
    /// rejected by the other, and neither sees the other's sessions, records or funnel.
    @Test func twoTenantsOfOnePluginBehaveDifferentlyAndNeverSeeEachOther() async throws {
        try await withTemporaryDirectory { directory in
            let path = try Self.write(Self.twoTeePals, in: directory)
            try await PlatformdProcess.with(["serve", "--db", ":memory:", "--tenants", path]) { server in
                let info = try await server.call("platform.info")["result"]
                #expect(info?["protocol"] == 4)
                #expect(info?["tenants"]?.arrayValue?.map { $0["tenant"]?.stringValue ?? "" } == ["teepals", "teepals-eu", "club-a"])
                #expect(info?["tenants"]?.arrayValue?.map { $0["plugin"]?.stringValue ?? "" } == ["TeePals", "TeePals", "TeePals"])

                var id: Int64 = 0
                func call(_ method: String, _ params: JSONValue) async throws -> JSONValue {
                    id += 1
                    return try await server.call(method, params, id: .int(id))
                }
                func walk(_ tenant: JSONValue) async throws -> JSONValue {
                    var view = try #require(try await call("flow.start", ["tenant": tenant, "userId": "teen"])["result"])
                    view = try #require(
                        try await call(
                            "flow.submit",
                            [
                                "tenant": tenant, "sessionId": view["sessionId"]!, "stepId": "nickname", "revision": view["revision"]!,
                                "values": ["nickname": "Teen Golfer"],
                            ])["result"])
                    let today = Date()
                    let born = Calendar(identifier: .gregorian).date(byAdding: .year, value: -14, to: today)!
                    let birthdate = String(Timestamp.string(born).prefix(10))
                    return try #require(
                        try await call(
                            "flow.submit",
                            [
                                "tenant": tenant, "sessionId": view["sessionId"]!, "stepId": "birthdate", "revision": view["revision"]!,
                                "values": ["birthdate": .string(birthdate)],
                            ])["result"])
                }
                let global = try await walk("teepals")
                #expect(global["status"] == "active")
                #expect(global["step"]?["id"] == "location")
                let eu = try await walk("teepals-eu")
                #expect(eu["status"] == "rejected")
                #expect(eu["rejection"] == ["code": "underage", "message": "You must be 16+ to use TeePals"])

                // Each tenant's session is "not found" in the other.
                let crossed = try await call("flow.get", ["tenant": "teepals-eu", "sessionId": global["sessionId"]!])
                #expect(crossed["error"]?["code"] == -32002)
                let back = try await call("flow.get", ["tenant": "teepals", "sessionId": eu["sessionId"]!])
                #expect(back["error"]?["code"] == -32002)
                #expect(try await call("flow.get", ["tenant": "club-a", "userId": "teen"])["error"]?["code"] == -32002)

                let globalFunnel = try #require(try await call("analytics.funnel", ["tenant": "teepals"])["result"])
                let euFunnel = try #require(try await call("analytics.funnel", ["tenant": "teepals-eu"])["result"])
                #expect(globalFunnel["started"] == 1)
                #expect(globalFunnel["rejected"] == 0)
                #expect(euFunnel["started"] == 1)
                #expect(euFunnel["rejected"] == 1)
                #expect(try await call("profile.get", ["tenant": "teepals-eu", "userId": "teen"])["error"]?["code"] == -32002)

                let describeEU = try #require(try await call("flow.describe", ["tenant": "teepals-eu"])["result"])
                #expect(describeEU["tenant"] == "teepals-eu")
            }
        }
    }

}
