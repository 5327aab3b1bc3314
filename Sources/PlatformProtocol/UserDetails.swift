import Foundation

/// What a client tells the server about the person onboarding (all optional).
public struct UserDetails: Sendable, Hashable, Codable {
    public var firstName: String?
    public var lastName: String?
    public var email: String?
    public var displayName: String?

    public init(firstName: String? = nil, lastName: String? = nil, email: String? = nil, displayName: String? = nil) {
        self.firstName = firstName
        self.lastName = lastName
        self.email = email
        self.displayName = displayName
    }

    /// The members' names on the wire, each a text of at most `ParamBounds.userDetail` characters.
    public static let members = ["firstName", "lastName", "email", "displayName"]

    /// Nothing known.
    public static let empty = UserDetails()

    /// The contract's display-name rule: first word of `firstName`, else `displayName`,
    /// else the email's local part, else the plugin's default.
    public func personalName(default fallback: String) -> String {
        if let first = firstName.flatMap(Self.firstWord) {
            return first
        }
        if let display = displayName?.trimmingWhitespace, !display.isEmpty {
            return display
        }
        if let local = email?.trimmingWhitespace.split(separator: "@", omittingEmptySubsequences: false).first,
            !local.isEmpty
        {
            return String(local)
        }
        return fallback
    }

    /// The first word of `text`, without splitting all of it (a name is read on every request).
    static func firstWord(_ text: String) -> String? {
        // ASCII (most names) by bytes: there a Character is whitespace exactly when its byte is
        // 9-13 or 32, and reading Character by Character was ~0.6 % of a request's CPU.
        if let ascii = text.utf8.withContiguousStorageIfAvailable(asciiFirstWord), ascii.isASCII { return ascii.word }
        guard let start = text.firstIndex(where: { !$0.isWhitespace }) else { return nil }
        let end = text[start...].firstIndex(where: \.isWhitespace) ?? text.endIndex
        return String(text[start..<end])
    }

    private static func asciiFirstWord(_ bytes: UnsafeBufferPointer<UInt8>) -> (isASCII: Bool, word: String?) {
        func isSpace(_ byte: UInt8) -> Bool { byte == 32 || (9...13).contains(byte) }
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return (false, nil) }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }) else { return (true, nil) }
        let end = bytes[start...].firstIndex(where: isSpace) ?? bytes.count
        return (true, String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
    }

    /// Fields given in `update` replace ours; absent ones are kept.
    public func merged(with update: UserDetails) -> UserDetails {
        UserDetails(
            firstName: update.firstName ?? firstName,
            lastName: update.lastName ?? lastName,
            email: update.email ?? email,
            displayName: update.displayName ?? displayName
        )
    }
}

extension StringProtocol {
    /// The text without the whitespace and newlines at its ends: what Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives (its set is Unicode's White_Space
    /// property and U+200B, every scalar compared), without its bridging, on paths every
    /// request takes.
    public var trimmingWhitespace: String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !Self.isWhitespace($0) }),
            let last = scalars.lastIndex(where: { !Self.isWhitespace($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII first: a tab, a line feed to a carriage return, or a space.
        if scalar.isASCII { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
        return scalar.properties.isWhitespace || scalar.value == 0x200B
    }
}
