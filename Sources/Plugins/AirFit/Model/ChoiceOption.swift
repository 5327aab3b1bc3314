import PlatformCore

extension FieldOption {
    /// Options of an enum whose cases carry their own label and detail.
    static func from<Choice: ChoiceOption>(_ choice: Choice) -> FieldOption {
        FieldOption(value: choice.rawValue, label: choice.label, detail: choice.detail)
    }
}

/// A closed set of answers, each shown as an option with a label and a one-line detail, and
/// written in records as its raw value.
protocol ChoiceOption: RawRepresentable<String>, CaseIterable, Codable, Sendable {
    var label: String { get }
    var detail: String { get }
}

extension ChoiceOption {
    static var options: [FieldOption] { allCases.map(FieldOption.from) }

    /// The answer saved under `field`, if it is one of ours.
    init?(_ value: JSONValue?) {
        guard let raw = value?.stringValue else { return nil }
        self.init(rawValue: raw)
    }
}
