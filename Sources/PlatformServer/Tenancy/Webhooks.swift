import Foundation
import PlatformCore
import PlatformStorage

/// Where a tenant's completion events are POSTed: a URL, the secret their signature is made with
/// (read at start-up from the environment variable the tenants file names), and the event types
/// it takes. A tenant's webhooks are told apart by their URL.
public struct Webhook: Sendable, Hashable, CustomStringConvertible {
    public var url: String
    /// The environment variable the secret came from (the file names it; it never holds the secret).
    public var secretEnv: String
    public var events: Set<PlatformEventType>
    /// The signing secret's bytes (UTF-8 of the variable's value). Never logged or printed.
    let secret: [UInt8]

    public init(url: String, secretEnv: String, secret: [UInt8], events: Set<PlatformEventType>) {
        self.url = url
        self.secretEnv = secretEnv
        self.secret = secret
        self.events = events
    }

    /// The URL without its query and fragment, for logs (a query may carry a token of the receiver's).
    public var description: String {
        guard var components = URLComponents(string: url) else { return url }
        components.query = nil
        components.fragment = nil
        return components.string ?? url
    }

    public func takes(_ type: PlatformEventType) -> Bool { events.contains(type) }
}

extension TenantsConfiguration {
    static let webhookKeys = ["url", "secretEnv", "events"]

    /// A tenant's `webhooks`: an array of `{ url, secretEnv, events }`, each checked, the secret
    /// read from `environment` now so a missing one stops the server at start-up.
    static func parseWebhooks(
        _ value: JSONValue?, tenant: String, environment: [String: String],
        fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> [Webhook] {
        guard let value, !value.isNull else { return [] }
        guard let entries = value.arrayValue else { throw fail(tenant, "webhooks", "must be an array of webhooks") }
        var webhooks: [Webhook] = []
        for (index, entry) in entries.enumerated() {
            let key = "webhooks[\(index)]"
            guard let fields = entry.objectValue else {
                throw fail(tenant, key, "must be an object with url, secretEnv and events")
            }
            if let unknown = fields.keys.sorted().first(where: { !webhookKeys.contains($0) }) {
                throw fail(tenant, "\(key).\(unknown)", "unknown key (a webhook has url, secretEnv, events)")
            }
            guard let urlValue = fields["url"], !urlValue.isNull else { throw fail(tenant, "\(key).url", "is required") }
            if let problem = SettingDeclaration("url", .url, help: "").problem(with: urlValue) {
                throw fail(tenant, "\(key).url", problem)
            }
            let url = urlValue.stringValue ?? ""
            guard url.utf8.count <= 2048 else { throw fail(tenant, "\(key).url", "must be at most 2048 characters") }
            if let parsed = URLComponents(string: url), parsed.user != nil || parsed.password != nil {
                throw fail(tenant, "\(key).url", "must not carry a user name or password (the signature is what authenticates platformd)")
            }
            guard !webhooks.contains(where: { $0.url == url }) else {
                throw fail(tenant, "\(key).url", "is used by another webhook of this tenant")
            }
            guard let nameValue = fields["secretEnv"], !nameValue.isNull else {
                throw fail(tenant, "\(key).secretEnv", "is required: the name of the environment variable that holds the signing secret")
            }
            if let problem = SettingDeclaration("secretEnv", .environmentVariable, help: "").problem(with: nameValue) {
                throw fail(tenant, "\(key).secretEnv", problem)
            }
            let name = nameValue.stringValue ?? ""
            guard let secret = environment[name], !secret.isEmpty else {
                throw fail(tenant, "\(key).secretEnv", "\(name) is not set in the environment (the webhook's signing secret is read from it at start-up)")
            }
            let allTypes = PlatformEventType.allCases.map(\.rawValue).joined(separator: ", ")
            guard let names = fields["events"]?.arrayValue, !names.isEmpty else {
                throw fail(tenant, "\(key).events", "must be a non-empty array of event types (\(allTypes))")
            }
            var types = Set<PlatformEventType>()
            for name in names {
                guard let text = name.stringValue, let type = PlatformEventType(rawValue: text) else {
                    throw fail(tenant, "\(key).events", "unknown event type \(name.stringValue ?? name.serialized()) (the types are \(allTypes))")
                }
                guard types.insert(type).inserted else { throw fail(tenant, "\(key).events", "lists \(text) twice") }
            }
            webhooks.append(Webhook(url: url, secretEnv: name, secret: Array(secret.utf8), events: types))
        }
        return webhooks
    }
}
