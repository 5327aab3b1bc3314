import Foundation
import PlatformCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Goal analysis by a chat-completions endpoint that speaks OpenAI's API (OpenAI itself, or a
/// local server such as llama.cpp, vLLM or Ollama). The model is told the vocabularies and asked
/// for one JSON object; anything else it answers is refused, and the flow falls back to the
/// offline analyzer. Errors describe the failure, never the text or the model's reply.
public struct OpenAICompatibleGoalAnalyzer: GoalAnalyzer {
    public let name = "openai-compatible"
    public let configuration: Configuration

    public struct Configuration: Sendable, Equatable {
        /// The chat-completions URL: the configured base URL plus `/chat/completions`.
        public var endpoint: URL
        public var model: String
        /// Sent as `Authorization: Bearer …` when present.
        public var apiKey: String?
        /// How long one HTTP request may take.
        public var requestTimeout: Duration

        public init(baseURL: URL, model: String, apiKey: String? = nil, requestTimeout: Duration = AirFitPlugin.defaultAnalysisTimeout) {
            self.endpoint = baseURL.appendingPathComponent("chat/completions")
            self.model = model
            self.apiKey = apiKey
            self.requestTimeout = requestTimeout
        }
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// One session for every analysis: on Linux a session per request (each with its own curl
    /// multi-handle and queue) now and then never started its request when several ran at once,
    /// and the analysis then fell back after its whole timeout.
    /// Shared by every tenant and user, so it keeps nothing between requests: no cookies, no cache.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    public func analyze(_ request: GoalAnalysisRequest) async throws -> StructuredGoal {
        let session = Self.session
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest(for: request))
        } catch let error as URLError {
            throw GoalAnalysisError.unavailable("request failed with URLError \(error.code.rawValue)")
        }
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw GoalAnalysisError.unavailable("HTTP status \(http.statusCode)")
        }
        return try Self.goal(fromResponse: data)
    }

    func urlRequest(for request: GoalAnalysisRequest) -> URLRequest {
        var urlRequest = URLRequest(url: configuration.endpoint)
        urlRequest.httpMethod = "POST"
        urlRequest.timeoutInterval =
            Double(configuration.requestTimeout.components.seconds)
            + Double(configuration.requestTimeout.components.attoseconds) / 1e18
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let key = configuration.apiKey { urlRequest.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        let body: JSONValue = [
            "model": .string(configuration.model),
            "temperature": 0,
            "response_format": ["type": "json_object"],
            "messages": [
                ["role": "system", "content": .string(Self.instructions(today: request.referenceDate))],
                ["role": "user", "content": .string(request.text)],
            ],
        ]
        urlRequest.httpBody = Data(body.serializedBytes())
        return urlRequest
    }

    /// The goal in a chat-completions reply: `choices[0].message.content`, a JSON object,
    /// optionally inside a Markdown code fence.
    static func goal(fromResponse data: Data) throws(GoalAnalysisError) -> StructuredGoal {
        guard let reply = try? JSONValue.parse(String(decoding: data, as: UTF8.self)) else {
            throw .unusableResult("the response is not JSON")
        }
        guard let content = reply["choices"]?.arrayValue?.first?["message"]?["content"]?.stringValue else {
            throw .unusableResult("the response has no choices[0].message.content")
        }
        guard let goal = try? JSONValue.parse(unfenced(content)) else {
            throw .unusableResult("the message content is not a JSON object")
        }
        return try StructuredGoal(json: goal)
    }

    private static func unfenced(_ content: String) -> String {
        var text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("```"), text.hasSuffix("```"), text.count >= 6 else { return text }
        text = String(text.dropFirst(3).dropLast(3))
        if let newline = text.firstIndex(of: "\n") { text = String(text[text.index(after: newline)...]) }
        return text
    }

    /// The system message: the task, the vocabularies (from the same enums the answer is
    /// checked against) and the reference day.
    static func instructions(today: Date) -> String {
        let metrics = PrimaryMetric.allCases.map { metric in
            metric.units.isEmpty
                ? metric.rawValue
                : "\(metric.rawValue) (units: \(metric.units.map(\.rawValue).joined(separator: ", ")))"
        }
        let day = CalendarDate(today).description
        return """
            You turn a person's fitness aspiration into a structured goal. Reply with exactly one JSON object and \
            nothing else, with these keys: "goal_type", "primary_metric", "target" ({"value": a positive number, \
            "unit": a unit listed for the metric} or null) and "timeframe_weeks" (a whole number of weeks from 1 to \
            520, or null). Give a target or a timeframe only when the text states it; never guess one.
            goal_type is one of: \(GoalType.allCases.map(\.rawValue).joined(separator: ", ")).
            primary_metric is one of: \(metrics.joined(separator: "; ")).
            Today is \(day) (UTC). Count dates such as "by summer" from today; seasons are northern-hemisphere \
            (spring 1 March, summer 1 June, autumn 1 September, winter 1 December).
            """
    }
}

/// Chooses the analyzer from environment variables, for the server's default set-up.
///
/// - `AIRFIT_ANALYZER_URL`: the API's base URL (`https://api.openai.com/v1`, `http://127.0.0.1:8080/v1`);
///   unset or empty means the offline analyzer.
/// - `AIRFIT_ANALYZER_MODEL`: the model name; required with a URL.
/// - `AIRFIT_ANALYZER_API_KEY`: optional bearer token.
/// - `AIRFIT_ANALYZER_TIMEOUT_SECONDS`: how long analysis may take before the offline result is
///   used, 1-60, default 8. It also bounds the offline analyzer, which never comes near it.
public struct GoalAnalyzerSetup: Sendable {
    public static let urlVariable = "AIRFIT_ANALYZER_URL"
    public static let modelVariable = "AIRFIT_ANALYZER_MODEL"
    public static let apiKeyVariable = "AIRFIT_ANALYZER_API_KEY"
    public static let timeoutVariable = "AIRFIT_ANALYZER_TIMEOUT_SECONDS"

    public let analyzer: any GoalAnalyzer
    public let timeout: Duration
    /// Why the environment's set-up was not used in full, for a warning at start-up.
    public let problem: String?

    public init(environment: [String: String]) {
        var problems: [String] = []
        var timeout = AirFitPlugin.defaultAnalysisTimeout
        if let text = environment[Self.timeoutVariable], !text.isEmpty {
            if let seconds = Int(text), (1...60).contains(seconds) {
                timeout = .seconds(seconds)
            } else {
                problems.append("\(Self.timeoutVariable) must be a whole number of seconds from 1 to 60")
            }
        }
        self.timeout = timeout
        var analyzer: any GoalAnalyzer = OfflineGoalAnalyzer()
        if let text = environment[Self.urlVariable], !text.isEmpty {
            let model = environment[Self.modelVariable] ?? ""
            if let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil {
                if model.isEmpty {
                    problems.append("\(Self.modelVariable) is required with \(Self.urlVariable); using the offline analyzer")
                } else {
                    let key = environment[Self.apiKeyVariable].flatMap { $0.isEmpty ? nil : $0 }
                    analyzer = OpenAICompatibleGoalAnalyzer(
                        configuration: .init(
                            baseURL: url, model: model, apiKey: key, requestTimeout: timeout))
                }
            } else {
                problems.append("\(Self.urlVariable) must be an http or https URL; using the offline analyzer")
            }
        }
        self.analyzer = analyzer
        self.problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}
