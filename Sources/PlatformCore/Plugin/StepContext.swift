import Foundation

/// What a step sees of its session: who it is for, what was answered, and the time.
public struct StepContext: Sendable {
    public var tenant: String
    /// The user the session belongs to (the `userId` of `flow.start`); empty where there is no session (diagrams).
    public var userId: String
    public var user: UserDetails
    /// The personalised name (the contract's display-name rule).
    public var displayName: String
    /// Saved answers, by step id then field id.
    public var answers: [String: [String: JSONValue]]
    /// Results of server work, by step id.
    public var computedResults: [String: JSONValue]
    /// The steps visited, in order; the last is the current one.
    public var path: [String]
    public var skipped: Set<String>
    /// Seconds spent on each step, summed over every visit.
    public var secondsSpent: [String: Double]
    /// At completion: answers of steps visited but left off the final path (a branch the user
    /// went back from). `answers` then holds only the final path's.
    public var answersOffPath: [String: [String: JSONValue]] = [:]
    public var now: Date

    public init(
        tenant: String, userId: String = "", user: UserDetails = .empty, displayName: String,
        answers: [String: [String: JSONValue]] = [:], computedResults: [String: JSONValue] = [:],
        path: [String] = [], skipped: Set<String> = [], secondsSpent: [String: Double] = [:], now: Date
    ) {
        self.tenant = tenant
        self.userId = userId
        self.user = user
        self.displayName = displayName
        self.answers = answers
        self.computedResults = computedResults
        self.path = path
        self.skipped = skipped
        self.secondsSpent = secondsSpent
        self.now = now
    }

    /// A field's saved answer, wherever in the flow it was given (field ids are unique in a flow).
    public func value(of field: String) -> JSONValue? {
        for stepAnswers in answers.values {
            if let value = stepAnswers[field] { return value }
        }
        return nil
    }

    public func answers(of step: String) -> [String: JSONValue]? { answers[step] }
    public func computed(for step: String) -> JSONValue? { computedResults[step] }
    public func wasSkipped(_ step: String) -> Bool { skipped.contains(step) }
}
