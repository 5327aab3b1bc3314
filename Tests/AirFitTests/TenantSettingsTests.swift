import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

/// AirFit's analyzer settings in a `--tenants` file, checked by the real binary at start-up.
@Suite("platformd: AirFit tenant settings")
struct TenantSettingsTests {
    @Test(arguments: [
        (#"{ "tenants": [ { "id": "x", "plugin": "AirFit", "settings": { "analyzerUrl": "http://127.0.0.1:9" } } ] }"#, "settings.analyzerModel", "required"),
        (
            #"{ "tenants": [ { "id": "x", "plugin": "AirFit", "settings": { "analyzerApiKeyEnv": "sk-live-123" } } ] }"#, "settings.analyzerApiKeyEnv",
            "environment variable"
        ),
    ])
    func aBadSettingStopsTheServerNamingIt(file: String, key: String, reason: String) async throws {
        try await expectTenantsFileRefused(file, tenant: "x", key: key, reason: reason)
    }
}
