import Foundation
import PlatformCore
import PlatformStorage

/// A request's named parameters, read with the contract's -32602 errors.
public struct RPCParams: Sendable {
    public let object: [String: JSONValue]
    /// The connection the request came on (for `auth.login`).
    public let connection: ConnectionState?

    public init(_ object: [String: JSONValue], connection: ConnectionState? = nil) {
        self.object = object
        self.connection = connection
    }

    /// `tenant`: at most 63 characters (a longer one names no tenant, and is not looked up).
    public func tenant() throws(RPCError) -> String {
        let bound = ParamBounds.tenant
        let tenant = try id(bound.name)
        guard tenant.count <= bound.maxLength else { throw .invalidParams(bound.name, bound.tooLong) }
        return tenant
    }

    /// An id (`tenant`, `userId`, `sessionId`): a string with no control character (`IDBytes`).
    public func id(_ name: String) throws(RPCError) -> String {
        guard let value = try optionalID(name) else { throw .invalidParams(name, "\(name) is required") }
        return value
    }

    public func optionalID(_ name: String) throws(RPCError) -> String? {
        guard let value = try optionalString(name) else { return nil }
        if let refusal = IDBytes.refusal(value) { throw .invalidParams(name, "\(name) \(refusal)") }
        return value
    }

    /// `sessionId`, an id.
    public func sessionId() throws(RPCError) -> String {
        try id("sessionId")
    }

    /// A required string within `bound`'s length.
    public func string(_ bound: TextParam) throws(RPCError) -> String {
        let value = try string(bound.name)
        guard value.count <= bound.maxLength else { throw .invalidParams(bound.name, bound.tooLong) }
        return value
    }

    /// An integer within `bound`'s range; its default when absent.
    public func integer(_ bound: IntegerParam) throws(RPCError) -> Int {
        let value = try optionalInt(bound.name) ?? bound.defaultValue
        guard bound.range.contains(value) else { throw .invalidParams(bound.name, bound.outOfRange) }
        return value
    }

    /// `userId`: 1-256 characters, not blank.
    public func userId() throws(RPCError) -> String {
        let userId = try id("userId")
        guard !userId.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidParams("userId", "userId must not be empty")
        }
        guard userId.count <= ParamBounds.userId.maxLength else { throw .invalidParams("userId", ParamBounds.userId.tooLong) }
        return userId
    }

    /// `locale`, a BCP 47 tag in canonical case (`es_mx` is `es-MX`), or nil when not given.
    public func locale() throws(RPCError) -> String? {
        guard let raw = try optionalString("locale") else { return nil }
        guard raw.count <= ParamBounds.locale.maxLength, let tag = LocaleTag.normalized(raw) else {
            throw .invalidParams("locale", "locale must be a BCP 47 language tag such as es or es-MX")
        }
        return tag
    }

    /// A present, non-null value; null counts as absent.
    func present(_ name: String) -> JSONValue? {
        guard let value = object[name], !value.isNull else { return nil }
        return value
    }

    public func string(_ name: String) throws(RPCError) -> String {
        guard let value = try optionalString(name) else { throw .invalidParams(name, "\(name) is required") }
        return value
    }

    public func optionalString(_ name: String) throws(RPCError) -> String? {
        guard let value = present(name) else { return nil }
        guard let text = value.stringValue else { throw .invalidParams(name, "\(name) must be a string") }
        return text
    }

    public func int(_ name: String) throws(RPCError) -> Int {
        guard let value = try optionalInt(name) else { throw .invalidParams(name, "\(name) is required") }
        return value
    }

    public func optionalInt(_ name: String) throws(RPCError) -> Int? {
        guard let value = present(name) else { return nil }
        guard let number = value.intValue, value.doubleValue == Double(number) else {
            throw .invalidParams(name, "\(name) must be an integer")
        }
        return number
    }

    public func optionalObject(_ name: String) throws(RPCError) -> [String: JSONValue]? {
        guard let value = present(name) else { return nil }
        guard let object = value.objectValue else { throw .invalidParams(name, "\(name) must be an object") }
        return object
    }
}
