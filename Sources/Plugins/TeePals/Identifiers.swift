/// The contract's step ids for TeePals, in flow order. Clients rely on them: never rename.
enum StepID {
    static let nickname = "nickname"
    static let birthdate = "birthdate"
    static let location = "location"
    static let gender = "gender"
}

/// The contract's field ids for TeePals, fixed like the step ids: one field per wizard step, named
/// like its step, and the two `profile.update` fields that tier 2 asks for.
enum FieldID {
    static let nickname = "nickname"
    static let birthdate = "birthdate"
    static let location = "location"
    static let gender = "gender"
    static let photoUrl = "photoUrl"
    static let skillLevel = "skillLevel"
}
