import Foundation
import Synchronization

/// What a step sees of its session: who it is for, what was answered, and the time; and what it
/// may ask of the host: new ids (`newID()`). A plugin never calls `Date()` or `UUID()` in its
/// rules: the time is `now`, and ids come from the host's generator (deterministic in tests).
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
    /// Shared by every copy of this context made for one command.
    let effects: CommandEffects

    /// - Parameters:
    ///   - newID: where `newID()` takes ids from; nil: `id-1`, `id-2`, … counted per context
    ///     (contexts with no command behind them: diagrams, definition checks, tests).
    public init(
        tenant: String, userId: String = "", user: UserDetails = .empty, displayName: String,
        answers: [String: [String: JSONValue]] = [:], computedResults: [String: JSONValue] = [:],
        path: [String] = [], skipped: Set<String> = [], secondsSpent: [String: Double] = [:], now: Date,
        newID: (@Sendable () -> String)? = nil
    ) {
        self.init(
            tenant: tenant, userId: userId, user: user, displayName: displayName, answers: answers,
            computedResults: computedResults, path: path, skipped: skipped, secondsSpent: secondsSpent, now: now,
            effects: CommandEffects(newID: newID))
    }

    init(
        tenant: String, userId: String, user: UserDetails, displayName: String,
        answers: [String: [String: JSONValue]], computedResults: [String: JSONValue],
        path: [String], skipped: Set<String>, secondsSpent: [String: Double], now: Date, effects: CommandEffects
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
        self.effects = effects
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

// MARK: - ids

extension StepContext {
    /// A new id (a record's, a custom goal's), from the host's generator: a UUID on the server,
    /// a predictable sequence in tests. Never `UUID()` in a plugin.
    public func newID() -> String { effects.newID() }
}

/// What plugin code asks of the host during one command: ids from its generator. Created per
/// command by the engine (or the platform for a profile update); a reference, so that the
/// copies of a `StepContext` share it.
final class CommandEffects: Sendable {
    private let generator: (@Sendable () -> String)?
    private let issued = Mutex(0)

    init(newID: (@Sendable () -> String)?) {
        self.generator = newID
    }

    func newID() -> String {
        if let generator { return generator() }
        let count = issued.withLock { issued in
            issued += 1
            return issued
        }
        return "id-\(count)"
    }
}
