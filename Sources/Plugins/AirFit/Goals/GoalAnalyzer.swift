import Foundation

/// What an analyzer is asked: the person's own words and the day they wrote them, so that
/// "by summer" means the same thing every time the same text is analysed on the same day.
public struct GoalAnalysisRequest: Sendable {
    public var text: String
    public var referenceDate: Date

    public init(text: String, referenceDate: Date) {
        self.text = text
        self.referenceDate = referenceDate
    }
}

/// Turns a free-text aspiration into a structured goal (the seed's "LLM Call 1: Goal Analysis").
/// The flow runs it as server work with a timeout; when it throws or is too slow, the offline
/// analyzer's result is used instead, so an analyzer can never block onboarding.
public protocol GoalAnalyzer: Sendable {
    /// A short name for logs and the persona's analysis record ("offline", "openai-compatible").
    var name: String { get }
    func analyze(_ request: GoalAnalysisRequest) async throws -> StructuredGoal
}

/// Why an analysis was not used. Descriptions never contain the person's text, because they
/// end up in logs.
public enum GoalAnalysisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The analyzer answered, but not with a goal in our vocabularies.
    case unusableResult(String)
    /// The analyzer could not be reached or answered with an HTTP error.
    case unavailable(String)
    /// The analyzer threw something of its own; only its type is kept.
    case failed(errorType: String)

    public var description: String {
        switch self {
        case .unusableResult(let why): "unusable result: \(why)"
        case .unavailable(let why): "unavailable: \(why)"
        case .failed(let type): "failed with \(type)"
        }
    }

    /// Any error, reduced to what is safe to log.
    static func sanitized(_ error: any Error) -> GoalAnalysisError {
        if let known = error as? GoalAnalysisError { return known }
        if error is CancellationError { return .unavailable("cancelled") }
        return .failed(errorType: String(reflecting: type(of: error)))
    }
}
