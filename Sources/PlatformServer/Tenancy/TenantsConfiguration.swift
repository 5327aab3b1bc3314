import Foundation
import PlatformCore
import PlatformStorage

/// A tenant as the platform serves it: its id, the plugin built with its settings, its limits.
public struct HostedTenant: Sendable {
    public var id: String
    /// The registered plugin's name (`platform.info`'s `plugin`).
    public var pluginName: String
    public var plugin: any OnboardingPlugin
    public var limits: RateLimit?
    /// Where the tenant's completion events are delivered (none: they are kept for `events.list`).
    public var webhooks: [Webhook]
    /// Abandonment, expiry and retention (none by default: everything is kept).
    public var dataPolicy: DataPolicy
    /// The tenant's texts in every locale: the plugin's catalogs with the tenant's overrides.
    public var copy: CopyBook
    /// Splits of the people starting a flow between variants (none by default).
    public var experiments: [Experiment]
    /// How its hosted pages look: the plugin's theme with the tenant's `hosted` overrides.
    public var look: HostedLook

    /// - Parameter copy: nil: the plugin's catalogs as shipped (a catalog that does not read
    ///   stops the start: it is part of the build).
    public init(
        id: String, pluginName: String, plugin: any OnboardingPlugin, limits: RateLimit? = nil, webhooks: [Webhook] = [],
        dataPolicy: DataPolicy = DataPolicy(), copy: CopyBook? = nil, experiments: [Experiment] = [], look: HostedLook? = nil
    ) {
        self.experiments = experiments
        self.look = look ?? HostedLook(plugin: plugin)
        self.dataPolicy = dataPolicy
        self.copy = copy ?? .shipped(by: plugin)
        self.id = id
        self.pluginName = pluginName
        self.plugin = plugin
        self.limits = limits
        self.webhooks = webhooks
    }
}

/// A token bucket per tenant and host: `requestsPerSecond` refill, `burst` capacity.
public struct RateLimit: Sendable, Hashable {
    public var requestsPerSecond: Double
    public var burst: Int

    public init(requestsPerSecond: Double, burst: Int) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
    }
}

/// The tenants a server hosts: the defaults (one per registered plugin), or those of a tenants file.
public enum TenantsConfiguration {
    /// One tenant per registered plugin, under its default id, with default settings; `outbound`
    /// is the host's HTTP client the plugins are handed (`TenantSettings.outbound`).
    public static func defaults(
        _ registrations: [PluginRegistration], environment: [String: String] = [:], outbound: (any OutboundHTTP)? = nil
    ) -> [HostedTenant] {
        registrations.map { registration in
            // The declared defaults always resolve: a registration whose defaults are invalid is a bug.
            var settings =
                (try? TenantSettings.resolve([:], against: registration.settings, environment: environment))
                ?? TenantSettings(environment: environment)
            settings.outbound = outbound
            return HostedTenant(id: registration.defaultTenant, pluginName: registration.name, plugin: registration.make(settings))
        }
    }

    /// The tenants of a tenants file's bytes (JSON), every tenant, key and value checked.
    public static func parse(
        _ bytes: [UInt8], file: String, registrations: [PluginRegistration], environment: [String: String] = [:],
        outbound: (any OutboundHTTP)? = nil
    ) throws(ConfigurationError) -> [HostedTenant] {
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes)
        } catch {
            throw ConfigurationError(file: file, tenant: nil, key: nil, reason: "invalid JSON: \(error)")
        }
        return try parse(root, file: file, registrations: registrations, environment: environment, outbound: outbound)
    }

    /// The tenants of a tenants file's document, however it was written (JSON, or YAML read
    /// into the same values), every tenant, key and value checked.
    public static func parse(
        _ root: JSONValue, file: String, registrations: [PluginRegistration], environment: [String: String] = [:],
        outbound: (any OutboundHTTP)? = nil
    ) throws(ConfigurationError) -> [HostedTenant] {
        func fail(_ tenant: String?, _ key: String?, _ reason: String) -> ConfigurationError {
            ConfigurationError(file: file, tenant: tenant, key: key, reason: reason)
        }
        guard let object = root.objectValue else { throw fail(nil, nil, "must be an object with a \"tenants\" array") }
        if let unknown = object.keys.sorted().first(where: { $0 != "tenants" }) {
            throw fail(nil, unknown, "unknown key (the file has only \"tenants\")")
        }
        guard let entries = object["tenants"]?.arrayValue else { throw fail(nil, "tenants", "must be an array of tenants") }
        guard !entries.isEmpty else { throw fail(nil, "tenants", "must list at least one tenant") }
        let plugins = Dictionary(registrations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        var hosted: [HostedTenant] = []
        for (index, entry) in entries.enumerated() {
            guard let fields = entry.objectValue else { throw fail("#\(index + 1)", nil, "must be an object") }
            guard let id = fields["id"]?.stringValue else { throw fail("#\(index + 1)", "id", "is required and must be a string") }
            guard Self.isValidID(id) else {
                throw fail(id, "id", "must be 1-63 characters of a-z, 0-9 and -, starting with a letter or digit")
            }
            guard seen.insert(id).inserted else { throw fail(id, "id", "is used by another tenant") }
            let allowed: Set<String> = ["id", "plugin", "settings", "limits", "webhooks", "sessions", "retention", "copy", "experiments", "hosted"]
            if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
                throw fail(id, unknown, "unknown key (a tenant has id, plugin, settings, limits, webhooks, sessions, retention, copy, experiments, hosted)")
            }
            guard let name = fields["plugin"]?.stringValue else { throw fail(id, "plugin", "is required and must be a string") }
            guard let registration = plugins[name] else {
                throw fail(id, "plugin", "unknown plugin \(name) (registered: \(registrations.map(\.name).joined(separator: ", ")))")
            }
            let given: [String: JSONValue]
            switch fields["settings"] {
            case nil, .null?: given = [:]
            case .object(let values)?: given = values
            default: throw fail(id, "settings", "must be an object")
            }
            var settings: TenantSettings
            do {
                settings = try TenantSettings.resolve(given, against: registration.settings, environment: environment)
            } catch {
                throw fail(id, "settings.\(error.key)", error.reason)
            }
            settings.outbound = outbound
            if let problem = registration.check(settings) {
                throw fail(id, "settings.\(problem.key)", problem.reason)
            }
            let limits = try parseLimits(fields["limits"], tenant: id, fail: fail)
            let webhooks = try parseWebhooks(fields["webhooks"], tenant: id, environment: environment, fail: fail)
            let policy = try DataPolicy.parse(sessions: fields["sessions"], retention: fields["retention"], tenant: id, fail: fail)
            let plugin = registration.make(settings)
            let copy = try parseCopy(fields["copy"], plugin: plugin, tenant: id, fail: fail)
            let experiments = try Experiment.parse(fields["experiments"], plugin: plugin, tenant: id, fail: fail)
            let look = try HostedLook.parse(fields["hosted"], plugin: plugin, tenant: id, file: file, fail: fail)
            hosted.append(
                HostedTenant(
                    id: id, pluginName: name, plugin: plugin, limits: limits, webhooks: webhooks, dataPolicy: policy, copy: copy,
                    experiments: experiments, look: look))
        }
        return hosted
    }

    /// `copy`: per locale, a text per key (`platformd copy keys` lists them), over the plugin's
    /// catalogs. An unknown key, or a text that drops or adds a placeholder of its key, stops the
    /// start here rather than showing a broken sentence later.
    static func parseCopy(
        _ value: JSONValue?, plugin: any OnboardingPlugin, tenant: String, fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> CopyBook {
        var overrides: [String: [String: String]] = [:]
        switch value {
        case nil, .null?: break
        case .object(let locales)?:
            for (locale, texts) in locales.sorted(by: { $0.key < $1.key }) {
                guard LocaleTag.normalized(locale) != nil else {
                    throw fail(tenant, "copy.\(locale)", "is not a BCP 47 language tag (such as es or es-MX)")
                }
                guard let texts = texts.objectValue else {
                    throw fail(tenant, "copy.\(locale)", "must be an object of texts by key")
                }
                for (key, text) in texts.sorted(by: { $0.key < $1.key }) {
                    guard let text = text.stringValue, !text.isEmpty else {
                        throw fail(tenant, "copy.\(locale).\(key)", "must be a non-empty string")
                    }
                    overrides[locale, default: [:]][key] = text
                }
            }
        default:
            throw fail(tenant, "copy", "must be an object: { \"es\": { \"KEY\": \"TEXT\" } }")
        }
        do {
            return try CopyBook(catalogs: plugin.stringCatalogs, overrides: overrides)
        } catch {
            throw fail(tenant, "copy", error.description)
        }
    }

    static func parseLimits(
        _ value: JSONValue?, tenant: String, fail: (String?, String?, String) -> ConfigurationError
    ) throws(ConfigurationError) -> RateLimit? {
        guard let value, !value.isNull else { return nil }
        guard let fields = value.objectValue else { throw fail(tenant, "limits", "must be an object") }
        if let unknown = fields.keys.sorted().first(where: { !["requestsPerSecond", "burst"].contains($0) }) {
            throw fail(tenant, "limits.\(unknown)", "unknown key (limits has requestsPerSecond and burst)")
        }
        guard let rate = fields["requestsPerSecond"]?.doubleValue, fields["requestsPerSecond"]?.boolValue == nil,
            rate > 0, rate <= 1_000_000
        else {
            throw fail(tenant, "limits.requestsPerSecond", "must be a number above 0")
        }
        let burst: Int
        if let given = fields["burst"] {
            guard let number = given.intValue, given.doubleValue == Double(number), (1...1_000_000).contains(number) else {
                throw fail(tenant, "limits.burst", "must be an integer from 1 to 1000000")
            }
            burst = number
        } else {
            burst = max(1, Int(rate.rounded(.up)))
        }
        return RateLimit(requestsPerSecond: rate, burst: burst)
    }

    /// The contract's tenant ids: 1-63 of a-z, 0-9 and -, starting with a letter or digit.
    public static func isValidID(_ id: String) -> Bool {
        guard (1...63).contains(id.utf8.count), let first = id.utf8.first, first != UInt8(ascii: "-") else { return false }
        return id.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") }
    }
}

/// A tenants file that cannot be used: one line naming the file, the tenant and the key.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var tenant: String?
    public var key: String?
    public var reason: String

    public init(file: String, tenant: String?, key: String?, reason: String) {
        self.file = file
        self.tenant = tenant
        self.key = key
        self.reason = reason
    }

    public var description: String {
        var parts = ["tenants file \(file)"]
        if let tenant { parts.append("tenant \(tenant)") }
        if let key { parts.append("key \(key)") }
        return parts.joined(separator: ": ") + ": " + reason
    }
}
