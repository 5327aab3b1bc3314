extension FieldValidator {
    /// The values of a `profile.update` checked against the plugin's editable fields, as a
    /// submit's are: each by its own rules, with every field's conditions read from the update
    /// and, for what it leaves out, from the profile's records (the field's ``FieldSpec/record``).
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
        func saved(_ id: String) -> JSONValue? {
            specs[id].flatMap { spec in spec.record.flatMap { profile.records[$0]?[id] } }
        }
        var clean: [String: JSONValue] = [:]
        var reader = ConditionReader { clean[$0] ?? values[$0] ?? saved($0) }
        for original in editable {
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
