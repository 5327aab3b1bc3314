import Foundation
import PlatformCore

/// How a tenant's hosted pages look: its plugin's ``Theme`` with the tenant's `hosted` overrides
/// from the tenants file (brand color, logo, app name, the completion page's link back).
public struct HostedLook: Sendable {
    /// A logo platformd serves at `/assets/tenant/TENANT/logo`, read once at start.
    public struct Logo: Sendable, Hashable {
        public var bytes: [UInt8]
        public var contentType: String

        public init(bytes: [UInt8], contentType: String) {
            self.bytes = bytes
            self.contentType = contentType
        }

        /// The largest logo accepted: a page's header image, not a photograph.
        public static let maxBytes = 256 * 1024

        /// PNG, JPEG, GIF, WebP or SVG, told by the file's first bytes; nil for anything else.
        public static func contentType(of bytes: [UInt8]) -> String? {
            if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
            if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
            if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
            if bytes.count > 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
            let head = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
            if head.contains("<svg") { return "image/svg+xml" }
            return nil
        }
    }

    public var theme: Theme
    /// The name the pages show and title themselves with (the plugin's by default).
    public var appName: String
    public var logo: Logo?
    /// Where the completion page's link goes (back to the app); none: no link.
    public var returnUrl: String?

    public init(plugin: any OnboardingPlugin, brandColor: ThemeColor? = nil, logo: Logo? = nil, appName: String? = nil, returnUrl: String? = nil) {
        var theme = plugin.theme
        if let brandColor {
            // The brand fills buttons in both schemes and colors links on the light one; the dark
            // scheme keeps its own light link color, which a brand dark enough for text on a
            // light page would fail against a dark one. A button's text on the brand is white
            // or near-black, whichever reads better on it.
            let onBrand = Self.textColor(on: brandColor)
            theme.light.primary = brandColor
            theme.light.onPrimary = onBrand
            theme.light.link = brandColor
            theme.light.gradientEnd = brandColor
            theme.dark.primary = brandColor
            theme.dark.onPrimary = onBrand
            theme.dark.gradientEnd = brandColor
        }
        self.theme = theme
        self.appName = appName ?? plugin.name
        self.logo = logo
        self.returnUrl = returnUrl
    }

    /// White or near-black: the one with more contrast on `background`.
    static func textColor(on background: ThemeColor) -> ThemeColor {
        let white: ThemeColor = "#FFFFFF"
        let black: ThemeColor = "#0B0B0B"
        return white.contrast(with: background) >= black.contrast(with: background) ? white : black
    }

    /// A tenant's `hosted` object, every key checked; a logo's path is read relative to the
    /// tenants file. A text color failing 4.5:1 (the plugin's own, or one the brand color makes)
    /// is refused naming the pair.
    static func parse(
        _ value: JSONValue?, plugin: any OnboardingPlugin, tenant: String, file: String,
        fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> HostedLook {
        if let problem = plugin.theme.contrastProblems().first {
            throw fail(tenant, "plugin", "the theme of plugin \(plugin.name) cannot be served: \(problem)")
        }
        guard let value, !value.isNull else { return HostedLook(plugin: plugin) }
        guard let fields = value.objectValue else {
            throw fail(tenant, "hosted", "must be an object: { \"brandColor\", \"logo\", \"appName\", \"returnUrl\" }")
        }
        let allowed = ["brandColor", "logo", "appName", "returnUrl"]
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail(tenant, "hosted.\(unknown)", "unknown key (hosted has \(allowed.joined(separator: ", ")))")
        }
        var brand: ThemeColor?
        if let raw = fields["brandColor"] {
            guard let text = raw.stringValue, let color = ThemeColor(hex: text) else {
                throw fail(tenant, "hosted.brandColor", "must be a color as #RRGGBB")
            }
            brand = color
        }
        var appName: String?
        if let raw = fields["appName"] {
            guard let text = raw.stringValue, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, text.count <= 60,
                text.utf8.count <= 240, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw fail(tenant, "hosted.appName", "must be a name of 1-60 characters, with no control character")
            }
            appName = text
        }
        var returnUrl: String?
        if let raw = fields["returnUrl"] {
            guard let text = raw.stringValue, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                ["https", "http"].contains(scheme), url.host?.isEmpty == false, text.utf8.count <= 2048
            else {
                throw fail(tenant, "hosted.returnUrl", "must be an absolute https:// (or http://) URL of at most 2048 bytes")
            }
            returnUrl = text
        }
        var logo: Logo?
        if let raw = fields["logo"] {
            guard let path = raw.stringValue, !path.isEmpty else { throw fail(tenant, "hosted.logo", "must be the path of an image file") }
            logo = try readLogo(path, tenantsFile: file) { fail(tenant, "hosted.logo", $0) }
        }
        let look = HostedLook(plugin: plugin, brandColor: brand, logo: logo, appName: appName, returnUrl: returnUrl)
        if let problem = look.theme.contrastProblems().first {
            throw fail(tenant, "hosted.brandColor", "\(brand.map(String.init(describing:)) ?? "") cannot be served: \(problem)")
        }
        return look
    }

    /// The logo's bytes, from `path` (relative to the tenants file's folder unless absolute).
    static func readLogo(_ path: String, tenantsFile: String, fail: (String) -> ConfigurationError) throws(ConfigurationError) -> Logo {
        // Symlinks resolved: a logo mounted from a Kubernetes ConfigMap or Secret is one.
        let url =
            (path.hasPrefix("/")
            ? URL(fileURLWithPath: path) : URL(fileURLWithPath: tenantsFile).deletingLastPathComponent().appendingPathComponent(path))
            .resolvingSymlinksInPath()
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let size = attributes?[.size] as? Int, attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw fail("\(url.path) cannot be read (missing, or not a file)")
        }
        guard size <= Logo.maxBytes else { throw fail("\(url.path) is \(size) bytes; a logo may be at most \(Logo.maxBytes)") }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw fail("\(url.path) cannot be read") }
        let bytes = Array(data)
        guard let type = Logo.contentType(of: bytes) else { throw fail("\(url.path) is not a PNG, JPEG, GIF, WebP or SVG image") }
        return Logo(bytes: bytes, contentType: type)
    }
}
