import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PlatformCore
import PlatformServer
import Testing

/// A tenant's `hosted` overrides reach its pages: the brand color in its stylesheet, its logo
/// served as read at start (an SVG may run nothing), its name on the page.
@Suite("Tenant look over HTTP")
struct TenantLookRoutesTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 40)

    @Test func theBrandColorAndLogoAreServedForTheTenant() async throws {
        let look = HostedLook(
            plugin: TwoStepPlugin(), brandColor: "#0B6E4F", logo: .init(bytes: Self.png, contentType: "image/png"), appName: "Green Club",
            returnUrl: "https://club.example/")
        try await HTTPRoutesTests.serving(look: look) { _, client in
            try await client.execute(uri: "/assets/tenant/\(TwoStepPlugin.tenant)/theme.css", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/css; charset=utf-8")
                let css = String(buffer: response.body)
                #expect(css.contains("--primary: #0B6E4F;") && css.contains("--link: #0B6E4F;"))
            }
            try await client.execute(uri: "/assets/tenant/\(TwoStepPlugin.tenant)/logo", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(Array(response.body.readableBytesView) == Self.png)
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!]?.contains("sandbox") == true)
            }
            try await client.execute(uri: "/assets/tenant/nobody/theme.css", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func aTenantWithoutALogoAnswers404ForIt() async throws {
        try await HTTPRoutesTests.serving { _, client in
            try await client.execute(uri: "/assets/tenant/\(TwoStepPlugin.tenant)/logo", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }
}
