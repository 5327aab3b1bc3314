import PlatformCore

/// The session row's small JSON columns (`user_json`, `progress_json`'s `stepErrors`) read and
/// written by hand. Through `Codable` each read serialised the parsed value again and ran
/// Foundation's `JSONDecoder` over it, on every command; these give the same values (and the
/// same text: `JSONValue` writes keys sorted, as the encoder did) without the round trip.
enum StoredJSON {
    /// A column that does not hold what this server writes there.
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func value(of user: UserDetails) -> JSONValue {
        var object: [String: JSONValue] = [:]
        if let firstName = user.firstName { object["firstName"] = .string(firstName) }
        if let lastName = user.lastName { object["lastName"] = .string(lastName) }
        if let email = user.email { object["email"] = .string(email) }
        if let displayName = user.displayName { object["displayName"] = .string(displayName) }
        return .object(object)
    }

    static func user(_ json: JSONValue) throws -> UserDetails {
        guard let object = json.objectValue else { throw Malformed(description: "user_json is not an object") }
        func string(_ key: String) throws -> String? {
            switch object[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw Malformed(description: "user_json's \(key) is not a string")
            }
        }
        return UserDetails(
            firstName: try string("firstName"), lastName: try string("lastName"),
            email: try string("email"), displayName: try string("displayName"))
    }

    static func value(of stepErrors: [String: [FieldError]]) -> JSONValue {
        .object(
            stepErrors.mapValues { errors in
                .array(
                    errors.map { error in
                        ["field": error.field.map(JSONValue.string) ?? .null, "code": .string(error.code.rawValue), "message": .string(error.message)]
                    })
            })
    }

    static func stepErrors(_ json: JSONValue) throws -> [String: [FieldError]] {
        guard let object = json.objectValue else { throw Malformed(description: "stepErrors is not an object") }
        return try object.mapValues { errors in
            guard let errors = errors.arrayValue else { throw Malformed(description: "a step's errors are not a list") }
            return try errors.map { error in
                guard let code = error["code"]?.stringValue.flatMap(FieldErrorCode.init(rawValue:)),
                    let message = error["message"]?.stringValue
                else { throw Malformed(description: "a stored field error has no code or message") }
                let field: String?
                switch error["field"] {
                case nil, .null?: field = nil
                case .string(let text)?: field = text
                default: throw Malformed(description: "a stored field error's field is not a string")
                }
                return FieldError(field: field, code: code, message: message)
            }
        }
    }
}
