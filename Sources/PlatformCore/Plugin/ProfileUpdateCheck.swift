extension FieldValidator {
    /// The values of a `profile.update` checked against the plugin's editable fields, as a
    /// submit's are: each by its own rules, with every field's conditions read from the update
    /// and, for what it leaves out, from the profile's records (an editable field's
    /// ``FieldSpec/record``, else any record holding the id). A condition reading an answer the
    /// profile does not hold is not applied: its field is checked as sent, never cleared.
    ///
    /// A key no editable field has is `not_editable` (named by `label`). A field the update hides
    /// is not written, and its saved value is cleared (`null`); a field whose ``FieldSpec/requiredWhen``
    /// now holds is `required` unless the update or the records give it a value.
    ///
    /// - Returns: the values to write (`null` clears), and every error.
    public func checkProfileUpdate(
        _ values: [String: JSONValue], editable: [FieldSpec], profile: Profile, label: (String) -> String?
    ) -> (clean: [String: JSONValue], errors: [FieldError]) {
        let specs = Dictionary(editable.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var errors: [FieldError] = []
        for key in values.keys.sorted() where specs[key] == nil {
            errors.append(FieldError(field: key, code: .notEditable, message: "\(label(key) ?? key) can't be changed after onboarding."))
        }
        // A field's saved value: in the record its spec names, else under its id in a record
        // (records by name, for one answer however many records hold the id).
        func saved(_ id: String) -> JSONValue? {
            if let record = specs[id]?.record { return profile.records[record]?[id] }
            return profile.records.keys.sorted().lazy.compactMap { profile.records[$0]?[id] }.first
        }
        // A condition whose answers the profile does not hold is not decided here: the field
        // is checked as sent, never cleared or required by it.
        func decidable(_ spec: FieldSpec) -> Bool {
            spec.conditions.allSatisfy { $0.condition.fields.allSatisfy { values[$0] != nil || saved($0) != nil || specs[$0] != nil } }
        }
        var clean: [String: JSONValue] = [:]
        var reader = ConditionReader { clean[$0] ?? values[$0] ?? saved($0) }
        for listed in editable {
            var original = listed
            if !decidable(original) {
                original.visibleWhen = nil
                original.requiredWhen = nil
            }
            guard let spec = reader.apply(original) else {
                if let current = saved(original.id), !current.isNull { clean[original.id] = .null }
                continue
            }
            guard let value = values[spec.id] else {
                if spec.requiredWhen != nil, case .invalid = check(saved(spec.id), against: spec) {
                    errors += allErrors(saved(spec.id), against: spec)
                }
                continue
            }
            switch check(value, against: spec) {
            case .valid(let value): clean[spec.id] = value
            case .absent: clean[spec.id] = .null
            case .invalid: errors += allErrors(value, against: spec)
            }
        }
        return (clean, errors)
    }
}
