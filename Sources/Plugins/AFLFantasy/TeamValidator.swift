import PlatformCore

/// Checks a Team ID (and the optional team name) before onboarding completes.
///
/// The `validation` step runs it as server work, outside any database transaction and bounded
/// by the plugin's `validationTimeout`. Throwing (the service is unreachable) or running past the
/// timeout is not the user's fault: the step then accepts the Team ID on its form alone and marks
/// the account `teamValidation: "fallback"`, so the app can check it again later. Only an
/// `.invalid` verdict sends the user back to `credentials`.
public protocol TeamValidator: Sendable {
    func validate(teamId: String, teamName: String?) async throws -> TeamValidation
}

/// A validator's answer about one Team ID.
public struct TeamValidation: Sendable, Hashable {
    public enum Verdict: Sendable, Hashable {
        case valid
        /// `reason` is shown to the user on `credentials`, under the Team ID: write it for them.
        case invalid(reason: String)
    }

    public var verdict: Verdict
    /// The team's name as the validator knows it; kept in the account when the user gave none.
    public var teamName: String?

    public init(verdict: Verdict, teamName: String? = nil) {
        self.verdict = verdict
        self.teamName = teamName
    }

    public static let valid = TeamValidation(verdict: .valid)

    public static func invalid(_ reason: String) -> TeamValidation {
        TeamValidation(verdict: .invalid(reason: reason))
    }
}

/// The default validator: no network, so it accepts any Team ID of the documented form
/// (4 to 10 digits) and refuses anything else.
public struct OfflineTeamValidator: TeamValidator {
    public init() {}

    public func validate(teamId: String, teamName: String?) async throws -> TeamValidation {
        TeamIDFormat.isWellFormed(teamId) ? .valid : .invalid(TeamIDFormat.message)
    }
}

/// The form of an AFL Fantasy Team ID: 4 to 10 ASCII digits.
public enum TeamIDFormat {
    public static let lengths = 4...10

    public static func isWellFormed(_ teamId: String) -> Bool {
        // Unicode scalars, not Characters: "١٢٣٤" (Arabic-Indic digits) is numeric but not an ID.
        let scalars = teamId.unicodeScalars
        return lengths.contains(scalars.count) && scalars.allSatisfy { ("0"..."9").contains($0) }
    }

    static let message =
        "Your Team ID is 4 to 10 digits. You'll find it on your team page at fantasy.afl.com.au."
}

/// How a validation result travels through the session: the step's work result is JSON
/// (`context.computed(for: "validation")`), read back by `transition` and the completion.
struct TeamCheck: Sendable, Hashable {
    enum Source: String {
        /// The configured validator answered.
        case validator
        /// The validator failed or timed out; the ID was accepted on its form.
        case fallback
    }

    var validation: TeamValidation
    var source: Source

    var json: JSONValue {
        var object: [String: JSONValue] = ["source": .string(source.rawValue)]
        switch validation.verdict {
        case .valid:
            object["verdict"] = "valid"
        case .invalid(let reason):
            object["verdict"] = "invalid"
            object["reason"] = .string(reason)
        }
        if let name = validation.teamName { object["teamName"] = .string(name) }
        return .object(object)
    }

    init(validation: TeamValidation, source: Source) {
        self.validation = validation
        self.source = source
    }

    init?(json: JSONValue?) {
        guard let json, let source = json["source"]?.stringValue.flatMap(Source.init(rawValue:)) else { return nil }
        let verdict: TeamValidation.Verdict
        switch json["verdict"]?.stringValue {
        case "valid": verdict = .valid
        case "invalid": verdict = .invalid(reason: json["reason"]?.stringValue ?? TeamIDFormat.message)
        default: return nil
        }
        self.init(validation: TeamValidation(verdict: verdict, teamName: json["teamName"]?.stringValue), source: source)
    }

    /// What the step keeps when the validator cannot answer: the offline rule, so a user with a
    /// well-formed ID is never blocked by an outage.
    static func fallback(teamId: String) -> TeamCheck {
        TeamCheck(
            validation: TeamIDFormat.isWellFormed(teamId) ? .valid : .invalid(TeamIDFormat.message),
            source: .fallback)
    }
}
