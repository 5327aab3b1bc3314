import Foundation
import Logging
import Synchronization

/// What a step sees of its session: who it is for, what was answered, and the time; and what it
/// may ask of the host: new ids (`newID()`) and log lines (`log(_:_:metadata:)`). A plugin never
/// calls `Date()`, `UUID()` or a `Logger` in its rules: the time is `now`, ids come from the
/// host's generator (deterministic in tests), and log lines are returned with the command's
/// transition and written only once it has committed.
public struct StepContext: Sendable {
    /// The tenant id the session is served under.
    public var tenant: String
    /// The user the session belongs to (the `userId` of `flow.start`); empty where there is no session (diagrams).
    public var userId: String
    /// What the client said about the person (names, email), merged over the session's starts.
    public var user: UserDetails
    /// The personalised name (the contract's display-name rule).
    public var displayName: String
    /// Saved answers, by step id then field id.
    public var answers: [String: [String: JSONValue]]
    /// Results of server work, by step id.
    public var computedResults: [String: JSONValue]
    /// The steps visited, in order; the last is the current one.
    public var path: [String]
    /// The steps the user skipped (their answers are cleared).
    public var skipped: Set<String>
    /// Seconds spent on each step, summed over every visit.
    public var secondsSpent: [String: Double]
    /// At completion: answers of steps visited but left off the final path (a branch the user
    /// went back from). `answers` then holds only the final path's.
    public var answersOffPath: [String: [String: JSONValue]] = [:]
    /// The time of the command: the only clock a plugin reads.
    public var now: Date
    /// Shared by every copy of this context made for one command.
    let effects: CommandEffects
    /// The flow the session runs on and the plugin's validator (dated to the command's day), set
    /// by the engine: a ``ReviewStep`` reads the steps on the path through them. Nil in contexts
    /// a plugin's tests make themselves.
    var flow: Flow?
    var validator: FieldValidator?

    /// The engine makes the contexts of a session; a plugin's tests make their own.
    ///
    /// - Parameters:
    ///   - tenant: ``tenant``.
    ///   - userId: ``userId``.
    ///   - user: ``user``.
    ///   - displayName: ``displayName``.
    ///   - answers: ``answers``.
    ///   - computedResults: ``computedResults``.
    ///   - path: ``path``.
    ///   - skipped: ``skipped``.
    ///   - secondsSpent: ``secondsSpent``.
    ///   - now: ``now``.
    ///   - newID: where `newID()` takes ids from; nil: `id-1`, `id-2`, … counted per context
    ///     (contexts with no command behind them: diagrams, definition checks, tests).
    ///   - logLabel: the label of the lines logged through the context; nil: the tenant.
    public init(
        tenant: String, userId: String = "", user: UserDetails = .empty, displayName: String,
        answers: [String: [String: JSONValue]] = [:], computedResults: [String: JSONValue] = [:],
        path: [String] = [], skipped: Set<String> = [], secondsSpent: [String: Double] = [:], now: Date,
        newID: (@Sendable () -> String)? = nil, logLabel: String? = nil
    ) {
        self.init(
            tenant: tenant, userId: userId, user: user, displayName: displayName, answers: answers,
            computedResults: computedResults, path: path, skipped: skipped, secondsSpent: secondsSpent, now: now,
            effects: CommandEffects(label: logLabel ?? tenant, newID: newID))
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

    /// The saved answers of a step, by field id; nil when it has none.
    public func answers(of step: String) -> [String: JSONValue]? { answers[step] }
    /// The result of a step's ``StepWork`` (or its fallback), if it ran.
    public func computed(for step: String) -> JSONValue? { computedResults[step] }
    /// Whether the user skipped the step.
    public func wasSkipped(_ step: String) -> Bool { skipped.contains(step) }
}

// MARK: - ids and log lines

extension StepContext {
    /// A new id (a record's, a custom goal's), from the host's generator: a UUID on the server,
    /// a predictable sequence in tests. Never `UUID()` in a plugin.
    public func newID() -> String { effects.newID() }

    /// Records a log line. The host writes it with the plugin's `Logger` (labelled with its
    /// `logLabel`) once the command has committed: a submit that is refused or rolled back logs
    /// nothing. Never put a secret or a value the user typed in a sensitive field here.
    public func log(_ level: Logger.Level, _ message: String, metadata: [String: String] = [:]) {
        effects.append(PluginLogLine(plugin: effects.label, level: level, message: message, metadata: metadata))
    }

    /// The lines logged through this context (and its copies) so far.
    public var logLines: [PluginLogLine] { effects.lines }
}

/// A plugin's log line, returned with a transition or a profile update and written by the host
/// after the commit.
public struct PluginLogLine: Sendable, Hashable {
    /// The plugin's `logLabel`: the writing Logger's label and the line's source.
    public var plugin: String
    public var level: Logger.Level
    public var message: String
    public var metadata: [String: String]

    public init(plugin: String, level: Logger.Level, message: String, metadata: [String: String] = [:]) {
        self.plugin = plugin
        self.level = level
        self.message = message
        self.metadata = metadata
    }

    /// Writes the line as the plugin would have itself: the plugin's label as its source.
    public func write(to logger: Logger, file: String = #fileID, function: String = #function, line: UInt = #line) {
        logger.log(
            level: level, "\(message)", metadata: metadata.mapValues { .string($0) }, source: plugin,
            file: file, function: function, line: line)
    }
}

/// What plugin code asks of the host during one command: ids from its generator, and a buffer
/// for log lines. Created per command by the engine (or the platform for a profile update); a
/// reference, so that the copies of a `StepContext` share it.
final class CommandEffects: Sendable {
    let label: String
    private let generator: (@Sendable () -> String)?
    private let state = Mutex<(lines: [PluginLogLine], issued: Int)>(([], 0))

    init(label: String, newID: (@Sendable () -> String)?) {
        self.label = label
        self.generator = newID
    }

    func newID() -> String {
        if let generator { return generator() }
        let count = state.withLock { state in
            state.issued += 1
            return state.issued
        }
        return "id-\(count)"
    }

    func append(_ line: PluginLogLine) {
        state.withLock { $0.lines.append(line) }
    }

    var lines: [PluginLogLine] { state.withLock { $0.lines } }
}
