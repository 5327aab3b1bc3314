import Foundation

/// One setting a plugin lets operators choose per tenant, declared by the plugin and checked when
/// the tenants file is read, so a wrong value stops the server before it serves anything.
public struct SettingDeclaration: Sendable {
    /// What values a setting takes.
    public enum Kind: Sendable, Hashable {
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// A number in the range.
        case number(ClosedRange<Double>)
        /// `true` or `false`.
        case boolean
        /// Any string up to `maxLength` characters, or one of `allowed` when that is not empty.
        case string(maxLength: Int = 2048, allowed: [String] = [])
        /// An absolute http or https URL.
        case url
        /// The name of an environment variable that holds a secret: secrets never go in the file.
        case environmentVariable
    }

    /// The key in the tenant's `settings` object.
    public var name: String
    public var kind: Kind
    /// Used when the file does not set it; nil means "not set" (the feature is off).
    public var defaultValue: JSONValue?
    /// One line for `Docs/plugins/<app>.md` and error messages.
    public var help: String

    public init(_ name: String, _ kind: Kind, default defaultValue: JSONValue? = nil, help: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.help = help
    }

    /// The reason `value` does not fit, or nil.
    public func problem(with value: JSONValue) -> String? {
        switch kind {
        case .integer(let range):
            guard let number = value.intValue, value.doubleValue == Double(number) else { return "must be an integer" }
            return range.contains(number) ? nil : "must be between \(range.lowerBound) and \(range.upperBound)"
        case .number(let range):
            guard let number = value.doubleValue, value.boolValue == nil else { return "must be a number" }
            return range.contains(number) ? nil : "must be between \(range.lowerBound) and \(range.upperBound)"
        case .boolean:
            return value.boolValue == nil ? "must be true or false" : nil
        case .string(let maxLength, let allowed):
            guard let text = value.stringValue else { return "must be a string" }
            if !allowed.isEmpty, !allowed.contains(text) { return "must be one of \(allowed.joined(separator: ", "))" }
            return text.count > maxLength ? "must be at most \(maxLength) characters" : nil
        case .url:
            guard let text = value.stringValue, let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""),
                url.host != nil
            else { return "must be an http or https URL" }
            return nil
        case .environmentVariable:
            guard let text = value.stringValue, !text.isEmpty,
                text.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }),
                !(text.first?.isNumber ?? true)
            else {
                return "must be the name of an environment variable (letters, digits and _), never the secret itself"
            }
            return nil
        }
    }

    /// How the kind reads in docs and errors.
    public var kindDescription: String {
        switch kind {
        case .integer(let range): "integer \(range.lowerBound)-\(range.upperBound)"
        case .number(let range): "number \(range.lowerBound)-\(range.upperBound)"
        case .boolean: "boolean"
        case .string(_, let allowed) where !allowed.isEmpty: allowed.joined(separator: " | ")
        case .string(let maxLength, _): "string, at most \(maxLength) characters"
        case .url: "http(s) URL"
        case .environmentVariable: "environment variable name"
        }
    }
}

/// A tenant's settings with the plugin's defaults applied, every value checked.
public struct TenantSettings: Sendable, Hashable {
    public var values: [String: JSONValue]
    /// The process environment, for settings that name a variable holding a secret.
    public var environment: [String: String]
    /// The host's HTTP client for calls outside the server (nil: the host hands none). Not a
    /// setting: two tenants with the same values are the same settings whatever client they got.
    public var outbound: (any OutboundHTTP)?

    public init(values: [String: JSONValue] = [:], environment: [String: String] = [:], outbound: (any OutboundHTTP)? = nil) {
        self.values = values
        self.environment = environment
        self.outbound = outbound
    }

    public static func == (lhs: TenantSettings, rhs: TenantSettings) -> Bool {
        lhs.values == rhs.values && lhs.environment == rhs.environment
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
        hasher.combine(environment)
    }

    public subscript(name: String) -> JSONValue? { values[name] }
    public func integer(_ name: String) -> Int? { values[name]?.intValue }
    public func number(_ name: String) -> Double? { values[name]?.doubleValue }
    public func string(_ name: String) -> String? { values[name]?.stringValue }
    public func boolean(_ name: String) -> Bool? { values[name]?.boolValue }

    /// The secret held by the environment variable a setting names.
    public func secret(named setting: String) -> String? {
        string(setting).flatMap { environment[$0] }
    }

    /// `given` checked against `declarations`, defaults filled in.
    public static func resolve(
        _ given: [String: JSONValue], against declarations: [SettingDeclaration], environment: [String: String] = [:]
    ) throws(SettingProblem) -> TenantSettings {
        let known = Dictionary(declarations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in given.keys.sorted() where known[name] == nil {
            let names = declarations.map(\.name)
            throw SettingProblem(
                key: name,
                reason: names.isEmpty
                    ? "unknown setting: this plugin has no settings"
                    : "unknown setting (known: \(names.joined(separator: ", ")))")
        }
        var values: [String: JSONValue] = [:]
        for declaration in declarations {
            if let value = given[declaration.name], !value.isNull {
                if let problem = declaration.problem(with: value) {
                    throw SettingProblem(key: declaration.name, reason: "\(problem) (\(declaration.help))")
                }
                values[declaration.name] = value
            } else if let fallback = declaration.defaultValue {
                values[declaration.name] = fallback
            }
        }
        return TenantSettings(values: values, environment: environment)
    }
}

/// A setting that cannot be used, named by its key.
public struct SettingProblem: Error, Sendable, Hashable {
    public var key: String
    public var reason: String

    public init(key: String, reason: String) {
        self.key = key
        self.reason = reason
    }
}

/// A plugin as the host registers it: its name in tenants files, its settings, and how to build
/// it for one tenant.
public struct PluginRegistration: Sendable {
    /// The name tenants files and `platform.info` use (`StatLocker`, `AFLFantasy`).
    public var name: String
    /// The tenant id of the default configuration (`statlocker`).
    public var defaultTenant: String
    /// The settings operators may give; a key not declared here is refused when the tenants file
    /// is read.
    public var settings: [SettingDeclaration]
    /// Rules across settings (one needs another), checked after each setting's own.
    public var check: @Sendable (TenantSettings) -> SettingProblem?
    /// Builds the plugin for one tenant from its checked settings (defaults filled in).
    public var make: @Sendable (TenantSettings) -> any OnboardingPlugin

    public init(
        name: String, defaultTenant: String, settings: [SettingDeclaration] = [],
        check: @escaping @Sendable (TenantSettings) -> SettingProblem? = { _ in nil },
        make: @escaping @Sendable (TenantSettings) -> any OnboardingPlugin
    ) {
        self.name = name
        self.defaultTenant = defaultTenant
        self.settings = settings
        self.check = check
        self.make = make
    }
}
