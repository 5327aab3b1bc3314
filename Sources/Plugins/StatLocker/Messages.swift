/// Copy sent outside any field's own messages, kept together so the copy test sees all of it.
enum Messages {
    static let answersMissing = "A few answers are missing. Go back and finish each step."
    static let noAthleteProfile = "This profile has no athlete details to change."
    static let goalNotOffered = "That goal isn't offered for your position and level. Pick one from the list."
    static let customGoalRepeatsPick = "That custom goal is already one of your picks. Choose a different one."

    static let all = [answersMissing, noAthleteProfile, goalNotOffered, customGoalRepeatsPick]
}
