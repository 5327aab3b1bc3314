extension FieldValidator {
    /// A step's values checked as a submit is: each visible field by its own rules, and the
    /// step's ``FlowStep/validate(_:in:)`` beside them on the values that passed (a list: its
    /// entries that passed), so the errors are all of them at once. The step's errors for a
    /// field that failed its own rules are dropped, except on a list.
    ///
    /// - Returns: the visible fields' values as kept, and every error.
    func checkStep(
        _ step: any FlowStep, values: [String: JSONValue], fields specs: [FieldSpec], context: StepContext
    ) -> (clean: [String: JSONValue], errors: [FieldError]) {
        var clean: [String: JSONValue] = [:]
        var errors: [FieldError] = []
        var partial = Set<String>()
        // A submit answers its own step only: a value it sends for another step's field must not
        // decide a condition (the view decided those parts from the saved answers).
        let own = Set(specs.map(\.id))
        var reader = ConditionReader { own.contains($0) ? (clean[$0] ?? values[$0] ?? context.value(of: $0)) : context.value(of: $0) }
        for spec in specs {
            guard let spec = reader.apply(spec) else { continue }
            switch check(values[spec.id], against: spec) {
            case .valid(let value): clean[spec.id] = value
            case .absent: break
            case .invalid:
                errors += allErrors(values[spec.id], against: spec)
                // A list's entries go on to the step's own rules, each in its place with the item
                // fields that passed, so one reply holds every error (an entry's own and, say,
                // two entries that overlap) and each names the right entry.
                if let passing = checkedEntries(values[spec.id], against: spec) {
                    clean[spec.id] = passing
                    partial.insert(spec.id)
                }
            }
        }
        let failed = Set(errors.compactMap(\.field)).subtracting(partial)
        errors += step.validate(clean, in: context).filter { $0.field.map { !failed.contains($0) } ?? true }
        return (clean, errors)
    }
}
