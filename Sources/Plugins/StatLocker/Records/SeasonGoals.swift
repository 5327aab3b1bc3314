import Foundation
import PlatformCore

/// A custom goal as posted in `seasonGoals`: `{ "title", "targetValue"?, "unit"? }`.
enum CustomGoal {
    /// The keys of a custom goal, shown to clients as the field's `itemFields` (the seed's modal).
    static let itemFields: [FieldSpec] = [
        FieldSpec(
            id: "title", type: .text, label: "Goal name", placeholder: "Improve weak-side coverage",
            minLength: 3, maxLength: 80, normalization: .collapsedSpaces,
            messages: [
                .required: "Give your custom goal a name.",
                .invalidType: "Give your custom goal a name.",
                .tooShort: "Custom goal names need at least 3 characters.",
                .tooLong: "Custom goal names can be up to 80 characters.",
            ]),
        FieldSpec(
            id: "targetValue", type: .number, label: "Target", required: false, min: 0, max: 100_000,
            messages: [
                .invalidType: "A custom goal's target must be a number, or leave it blank.",
                .outOfRange: "A custom goal's target must be between 0 and 100,000.",
            ]),
        FieldSpec(
            id: "unit", type: .text, label: "Unit", required: false, placeholder: "games, saves, or leave blank",
            maxLength: 20,
            messages: [
                .invalidType: "A custom goal's unit must be text, or leave it blank.",
                .tooLong: "Keep the unit to 20 characters or fewer.",
            ]),
    ]

    /// The goal as kept (its known keys, cleaned), or the reason it was refused.
    static func cleaned(_ item: [String: JSONValue], field: String) -> Result<JSONValue, FieldError> {
        let validator = FieldValidator()
        var kept: [String: JSONValue] = [:]
        for spec in itemFields {
            switch validator.check(item[spec.id], against: spec) {
            case .valid(let value): kept[spec.id] = value
            case .absent: break
            case .invalid(let error): return .failure(FieldError(field: field, code: error.code, message: error.message))
            }
        }
        return .success(.object(kept))
    }

    static func titleKey(_ title: String) -> String {
        title.precomposedStringWithCanonicalMapping.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
    }
}

/// The season-goal rules beyond the field's own (a template id or a custom object, exactly 3,
/// no duplicates), shared by the `season_goals` step and `profile.update`.
struct SeasonGoalRules: Sendable {
    let library: GoalsLibrary
    let fieldId = FieldID.seasonGoals

    /// The `seasonGoals` field: library options for this player, up to 3 custom goals.
    func field(offering goals: [GoalTemplate]) -> FieldSpec {
        FieldSpec(
            id: fieldId, type: .multiChoice, label: "Season goals", options: goals.map(\.option),
            minItems: 3, maxItems: 3, allowCustom: true, itemFields: CustomGoal.itemFields,
            messages: [
                .required: "Pick 3 season goals to continue.",
                .count: "Pick exactly 3 goals to lock in your season.",
                .duplicate: "You already picked that goal. Choose a different one.",
                .notAnOption: Messages.goalNotOffered,
                .invalidType: "Pick goals from the list or add a custom goal.",
            ],
            extra: ["customLabel": "Custom Goal"])
    }

    /// Errors the field's own checks leave to us: custom goals' keys, and a custom goal that
    /// repeats a library goal picked alongside it. `items` passed the field's checks.
    func errors(in items: [JSONValue]) -> [FieldError] {
        // Only custom goals have anything to check: the picks' titles are normalised for them alone.
        guard items.contains(where: { $0.objectValue != nil }) else { return [] }
        let pickedTitles = Set(items.compactMap { $0.stringValue.flatMap(library.goal)?.title }.map(CustomGoal.titleKey))
        for item in items {
            guard let object = item.objectValue else { continue }
            if case .failure(let error) = CustomGoal.cleaned(object, field: fieldId) { return [error] }
            if let title = object["title"]?.stringValue, pickedTitles.contains(CustomGoal.titleKey(title)) {
                return [FieldError(field: fieldId, code: .duplicate, message: Messages.customGoalRepeatsPick)]
            }
        }
        return []
    }

    /// The items as kept: template ids as sent, custom goals with only their known keys.
    func cleaned(_ items: [JSONValue]) -> [JSONValue] {
        items.map { item in
            guard let object = item.objectValue, case .success(let kept) = CustomGoal.cleaned(object, field: fieldId) else {
                return item
            }
            return kept
        }
    }

    /// The items as the seed's SeasonGoal objects. A library goal's id is its template id; a
    /// custom goal gets a new id from `newID` (the step context's), unless `existing` holds a
    /// custom goal with the same title, whose id and progress it keeps (so re-saving goals after
    /// onboarding loses nothing).
    func seasonGoals(_ items: [JSONValue], existing: [SeasonGoal] = [], newID: () -> String) -> [SeasonGoal] {
        cleaned(items).compactMap { item -> SeasonGoal? in
            if let id = item.stringValue {
                guard let template = library.goal(id) else { return nil }
                let before = existing.first { $0.id == id && !$0.isCustom }
                return SeasonGoal(template, currentValue: before?.currentValue ?? 0)
            }
            let title = item["title"]?.stringValue ?? ""
            let before = existing.first { $0.isCustom && CustomGoal.titleKey($0.title) == CustomGoal.titleKey(title) }
            let unit = item["unit"]?.stringValue ?? ""
            let isPercent = unit == "%"
            // Percent targets are fractions, as the library's (60 % is 0.6); a target of at most 1 already is one.
            let target = item["targetValue"]?.doubleValue.map { isPercent && $0 > 1 ? $0 / 100 : $0 }
            return SeasonGoal(
                id: before?.id ?? newID(), title: title, targetValue: target,
                currentValue: before?.currentValue ?? 0, unit: unit, metricType: isPercent ? "percent" : "count",
                trackingKey: "custom", isCustom: true)
        }
    }

    /// Titles for logs and the review: a template's title, a custom goal's own.
    func titles(_ items: [JSONValue]) -> [String] {
        items.compactMap { item in
            if let id = item.stringValue { return library.goal(id)?.title ?? id }
            return item["title"]?.stringValue
        }
    }
}
