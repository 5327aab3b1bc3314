import PlatformCore

/// The contract's email rule: one `@`, something before it, a dotted domain (no empty label),
/// no whitespace, up to 254 characters. Every way of breaking it is `invalid_format`.
enum EmailRule {
    static let maxLength = 254

    static func isWellFormed(_ email: String) -> Bool {
        guard email.count <= maxLength, !email.contains(where: \.isWhitespace) else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }

    static func error(for email: String) -> FieldError? {
        if email.count > maxLength {
            return FieldError(
                field: FieldID.email, code: .invalidFormat,
                message: "That email is too long. Use an address of up to \(maxLength) characters.")
        }
        guard !isWellFormed(email) else { return nil }
        return FieldError(
            field: FieldID.email, code: .invalidFormat,
            message: "Enter a valid email address, like name@example.com.")
    }
}

/// Personal info, step 3 of 6 on the existing-team path, also 3 of 6 after the guide.
/// Pre-filled (as `default`) with what the app passed in `flow.start`'s `user`.
struct PersonalInfoStep: FlowStep {
    let id = StepID.personalInfo
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] {
        [
            FieldSpec(
                id: FieldID.firstName, type: .text, label: "First name", placeholder: "Your first name",
                maxLength: 50, defaultValue: Self.cleaned(context.user.firstName).map(JSONValue.string),
                messages: [.required: "Please enter your first name."]),
            FieldSpec(
                id: FieldID.email, type: .text, label: "Email", placeholder: "name@example.com",
                defaultValue: Self.cleaned(context.user.email).map(JSONValue.string),
                messages: [.required: "Please enter your email address."],
                // Shown to clients; checked by `validate` so that an over-long address is
                // `invalid_format` like every other malformed one.
                extra: ["maxLength": .int(Int64(EmailRule.maxLength))]),
        ]
    }

    func copy(in context: StepContext) -> StepCopy {
        StepCopy(
            title: "Tell us about you",
            subtitle: "We'll use this to personalise your trade and captain insights.")
    }

    func validate(_ values: [String: JSONValue], in context: StepContext) -> [FieldError] {
        guard let email = values[FieldID.email]?.stringValue else { return [] }
        return EmailRule.error(for: email).map { [$0] } ?? []
    }

    /// What the app passed, as the field would keep it: trimmed, inner runs of spaces collapsed.
    static func cleaned(_ text: String?) -> String? {
        guard let text else { return nil }
        let clean = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return clean.isEmpty ? nil : clean
    }
}
