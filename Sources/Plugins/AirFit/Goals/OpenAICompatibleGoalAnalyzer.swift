import Foundation
import PlatformCore

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

    /// Sends its requests through `outbound`, the host's client (`TenantSettings.outbound`); a
    /// host that hands none gets Foundation's `URLSession` (`FoundationOutboundHTTP`).
    public init(configuration: Configuration, outbound: (any OutboundHTTP)? = nil) {
        self.configuration = configuration
        self.outbound = outbound ?? FoundationOutboundHTTP()
    }

    let outbound: any OutboundHTTP
    /// A chat completion is a few kilobytes; an answer past this is not one.
    static let maxResponseBytes = 1 << 20

    public func analyze(_ request: GoalAnalysisRequest) async throws -> StructuredGoal {
        let response: OutboundHTTPResponse
        do {
            response = try await outbound.post(
                configuration.endpoint, headers: requestHeaders, body: requestBody(for: request), timeout: configuration.requestTimeout,
                maxResponseBytes: Self.maxResponseBytes)
        } catch {
            throw GoalAnalysisError.unavailable("request failed: \(error)")
        }
        guard (200..<300).contains(response.status) else { throw GoalAnalysisError.unavailable("HTTP status \(response.status)") }
        return try Self.goal(fromResponse: Data(response.body))
    }

    var requestHeaders: [(name: String, value: String)] {
        var headers = [(name: "Content-Type", value: "application/json")]
        if let key = configuration.apiKey { headers.append((name: "Authorization", value: "Bearer \(key)")) }
        return headers
    }

    func requestBody(for request: GoalAnalysisRequest) -> [UInt8] {
        let body: JSONValue = [
            "model": .string(configuration.model),
            "temperature": 0,
            "response_format": ["type": "json_object"],
            "messages": [
                ["role": "system", "content": .string(Self.instructions(today: request.referenceDate))],
                ["role": "user", "content": .string(request.text)],
            ],
        ]
        return body.serializedBytes()
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

    /// - Parameter outbound: the host's HTTP client for the remote analyzer (nil: `URLSession`).
    public init(environment: [String: String], outbound: (any OutboundHTTP)? = nil) {
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
                        configuration: .init(baseURL: url, model: model, apiKey: key, requestTimeout: timeout), outbound: outbound)
                }
            } else {
                problems.append("\(Self.urlVariable) must be an http or https URL; using the offline analyzer")
            }
        }
        self.analyzer = analyzer
        self.problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}
