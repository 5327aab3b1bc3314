import PlatformCore

/// 3.1: "What should we call you?" — the name other golfers see.
struct NicknameStep: FlowStep {
    let id = StepID.nickname
    let kind = StepKind.question

    static let minimumLength = 2
    static let maximumLength = 30

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.nickname, type: .text, label: "Nickname", placeholder: "Your nickname",
                minLength: Self.minimumLength, maxLength: Self.maximumLength, normalization: .collapsedSpaces,
                messages: [
                    .required: "Enter a nickname so other golfers know what to call you.",
                    .tooShort: "Your nickname needs at least \(Self.minimumLength) characters.",
                    .tooLong: "Your nickname can be at most \(Self.maximumLength) characters.",
                ])
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(title: "What should we call you?", helper: "This is how other golfers will see you")
    }

    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        guard let nickname = values[FieldID.nickname]?.stringValue, !NicknameCharacters.allowed(nickname) else { return [] }
        return [
            FieldError(
                field: FieldID.nickname, code: .invalidFormat,
                message: "Your nickname can only use letters, numbers and spaces (no emoji or symbols).")
        ]
    }
}

/// The seed's "alphanumeric + spaces", for every script: each character (grapheme cluster) is a
/// space, or starts with a letter or a decimal digit and holds only letters, digits and the marks
/// its script writes on them (accents, vowel signs, viramas: "स्ते" is one character).
/// Emoji, symbols, punctuation and invisible joiners are refused.
enum NicknameCharacters {
    static func allowed(_ text: String) -> Bool {
        text.allSatisfy(allowed)
    }

    static func allowed(_ character: Character) -> Bool {
        if character == " " { return true }
        let scalars = character.unicodeScalars
        guard let base = scalars.first, isLetterOrDigit(base) else { return false }
        return scalars.dropFirst().allSatisfy { isLetterOrDigit($0) || isScriptMark($0) }
    }

    static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber: true
        default: false
        }
    }

    /// Accents and vowel signs; not the variation selectors and enclosing marks that turn a
    /// digit into an emoji keycap.
    static func isScriptMark(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.properties.isVariationSelector else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark: return true
        default: return false
        }
    }
}
