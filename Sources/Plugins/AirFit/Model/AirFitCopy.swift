import PlatformCore

extension StepCopy {
    /// The seed's persistent footer, under every screen of the flow.
    static let privacyFooter = "Privacy & Data"

    /// A step's copy with the footer in its content, so a thin client shows it everywhere.
    static func airFit(
        title: String, subtitle: String? = nil, helper: String? = nil,
        content: [String: JSONValue] = [:], actions: [StepAction]
    ) -> StepCopy {
        var content = content
        content["footer"] = .string(privacyFooter)
        return StepCopy(title: title, subtitle: subtitle, helper: helper, content: content, actions: actions)
    }
}
