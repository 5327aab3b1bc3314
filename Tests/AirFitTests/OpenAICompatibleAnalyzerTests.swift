import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import PlatformTransports
import SQLiteStore
import Testing

@testable import AirFit

/// The optional analyzer for an OpenAI-compatible endpoint, against a local stub server.
@Suite struct OpenAICompatibleAnalyzer {
    static let reference = Date(timeIntervalSince1970: 1_795_000_000)
    static let text = "Bench 100 kg by the end of the year, secret-word-xyzzy"

    /// A chat-completions reply whose message content is `content`.
    static func completion(_ content: String) -> String {
        (["id": "stub", "object": "chat.completion", "choices": [["index": 0, "message": ["role": "assistant", "content": .string(content)]]]] as JSONValue)
            .serialized()
    }

    /// The stub answers at once: a wait this long only guards against a hang. A test that reads
    /// the answer must not fall back because a full test run's opening kept it waiting (a 5 s
    /// bound did, and its log said "timed out" where a 503 was expected).
    static let stormProof: Duration = .seconds(240)

    /// The analyzer as `platformd` makes it: sending through the server's client.
    func analyzer(_ server: StubHTTPServer, timeout: Duration = stormProof) -> OpenAICompatibleGoalAnalyzer {
        OpenAICompatibleGoalAnalyzer(
            configuration: .init(baseURL: server.baseURL, model: "stub-model", apiKey: "test-key", requestTimeout: timeout),
            outbound: ServerOutboundHTTP())
    }

    @Test func sendsAChatCompletionAndReadsTheGoal() async throws {
        let server = try StubHTTPServer { _ in
            .json(
                status: 200,
                body: Self.completion(#"{"goal_type":"strength","primary_metric":"one_rep_max","target":{"value":100,"unit":"kg"},"timeframe_weeks":6}"#))
        }
        defer { server.close() }
        let goal = try await analyzer(server).analyze(GoalAnalysisRequest(text: Self.text, referenceDate: Self.reference))
        #expect(goal == StructuredGoal(goalType: .strength, primaryMetric: .oneRepMax, target: GoalTarget(value: 100, unit: .kg), timeframeWeeks: 6))

        let request = try #require(server.received.first)
        #expect(request.head.hasPrefix("POST /v1/chat/completions HTTP/1.1"))
        #expect(request.head.lowercased().contains("authorization: bearer test-key"))
        let body = try JSONValue.parse(request.body)
        #expect(body["model"] == "stub-model")
        #expect(body["temperature"] == 0)
        #expect(body["response_format"] == ["type": "json_object"])
        let messages = try #require(body["messages"]?.arrayValue)
        #expect(messages.map { $0["role"]?.stringValue } == ["system", "user"])
        #expect(messages[1]["content"] == .string(Self.text))
        let instructions = try #require(messages[0]["content"]?.stringValue)
        #expect(instructions.contains("Today is 2026-11-18"))
        for type in GoalType.allCases { #expect(instructions.contains(type.rawValue)) }
        for metric in PrimaryMetric.allCases { #expect(instructions.contains(metric.rawValue)) }
    }

    @Test func acceptsAFencedObjectAndNullOptionals() throws {
        let fenced = "```json\n{\"goal_type\":\"mobility\",\"primary_metric\":\"range_of_motion\",\"target\":null,\"timeframe_weeks\":null}\n```"
        let goal = try OpenAICompatibleGoalAnalyzer.goal(fromResponse: Data(Self.completion(fenced).utf8))
        #expect(goal == StructuredGoal(goalType: .mobility, primaryMetric: .rangeOfMotion))
    }

    /// Every way a reply can be unusable, with an error that names the failure and not the text.
    @Test(arguments: [
        (StubHTTPServer.Reply.json(status: 500, body: #"{"error":"secret-word-xyzzy"}"#), "unavailable: HTTP status 500"),
        (.json(status: 200, body: "not json secret-word-xyzzy"), "unusable result: the response is not JSON"),
        (.json(status: 200, body: #"{"choices":[]}"#), "unusable result: the response has no choices[0].message.content"),
        (.json(status: 200, body: completion("Sure! secret-word-xyzzy")), "unusable result: the message content is not a JSON object"),
        (
            .json(status: 200, body: completion(#"{"goal_type":"get_rich","primary_metric":"body_weight"}"#)),
            "unusable result: goal_type is missing or not in the vocabulary"
        ),
        (
            .json(status: 200, body: completion(#"{"goal_type":"strength","primary_metric":"one_rep_max","target":{"value":100,"unit":"km"}}"#)),
            "unusable result: unit km does not measure one_rep_max"
        ),
    ])
    func unusableRepliesThrowWithoutTheText(reply: StubHTTPServer.Reply, expected: String) async throws {
        let server = try StubHTTPServer { _ in reply }
        defer { server.close() }
        do {
            _ = try await analyzer(server).analyze(GoalAnalysisRequest(text: Self.text, referenceDate: Self.reference))
            Issue.record("expected an error")
        } catch let error as GoalAnalysisError {
            #expect(error.description == expected)
            #expect(!error.description.contains("xyzzy"))
        }
    }

    @Test func anUnreachableServerIsUnavailable() async throws {
        let server = try StubHTTPServer { _ in .hang }
        let url = server.baseURL
        server.close()
        let closed = OpenAICompatibleGoalAnalyzer(configuration: .init(baseURL: url, model: "m", requestTimeout: .seconds(5)), outbound: ServerOutboundHTTP())
        await #expect(throws: GoalAnalysisError.self) {
            _ = try await closed.analyze(GoalAnalysisRequest(text: Self.text, referenceDate: Self.reference))
        }
    }

    @Test func theFlowUsesAWorkingEndpoint() async throws {
        let server = try StubHTTPServer { _ in
            .json(status: 200, body: Self.completion(#"{"goal_type":"strength","primary_metric":"one_rep_max","target":{"value":225,"unit":"lb"}}"#))
        }
        defer { server.close() }
        let logs = LogRecorder()
        let d = try await driver(AirFitPlugin(analyzer: analyzer(server), analysisTimeout: Self.stormProof), logs: logs)
        _ = try await complete(d, replacing: [.coreAspiration: ["aspirationPreset": "describe_own", "aspirationText": .string(Self.text)]])
        let goal = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["goal"]
        #expect(goal?["structured"] == ["goal_type": "strength", "primary_metric": "one_rep_max", "target": ["value": 225, "unit": "lb"]])
        #expect(goal?["analysis"] == ["source": "analysis", "analyzer": "openai-compatible", "fellBack": false])
        #expect(logs.all.isEmpty)
    }

    @Test func theFlowFallsBackWhenTheEndpointMisbehaves() async throws {
        let server = try StubHTTPServer { _ in .json(status: 503, body: "{}") }
        defer { server.close() }
        let logs = LogRecorder()
        let d = try await driver(AirFitPlugin(analyzer: analyzer(server), analysisTimeout: Self.stormProof), logs: logs)
        _ = try await complete(d, replacing: [.coreAspiration: ["aspirationPreset": "describe_own", "aspirationText": .string(Self.text)]])
        let goal = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["goal"]
        #expect(goal?["structured"] == AnalyzerFallback.offline)
        #expect(goal?["analysis"] == ["source": "analysis", "analyzer": "offline", "fellBack": true])
        #expect(logs.all.count == 1)
        #expect(logs.all.first?.contains("HTTP status 503") == true)
        #expect(logs.all.allSatisfy { !$0.contains("xyzzy") })
    }

    @Test func theFlowFallsBackWhenTheEndpointHangs() async throws {
        let server = try StubHTTPServer { _ in .hang }
        defer { server.close() }
        let logs = LogRecorder()
        let d = try await driver(AirFitPlugin(analyzer: analyzer(server, timeout: .seconds(5)), analysisTimeout: .milliseconds(100)), logs: logs)
        _ = try await complete(d, replacing: [.coreAspiration: ["aspirationPreset": "describe_own", "aspirationText": .string(Self.text)]])
        let goal = try await d.profile("u1")["records"]?["onboarding_profile"]?["personaProfile"]?["goal"]
        #expect(goal?["structured"] == AnalyzerFallback.offline)
        #expect(goal?["analysis"]?["fellBack"] == true)
        #expect(logs.all.first?.contains("timed out") == true)
    }
}

@Suite struct AnalyzerConfiguration {
    @Test func withoutAURLTheAnalyzerIsOffline() {
        let setup = GoalAnalyzerSetup(environment: [:])
        #expect(setup.analyzer is OfflineGoalAnalyzer)
        #expect(setup.timeout == .seconds(8))
        #expect(setup.problem == nil)
        #expect(GoalAnalyzerSetup(environment: ["AIRFIT_ANALYZER_URL": ""]).analyzer is OfflineGoalAnalyzer)
    }

    @Test func aURLAndModelConfigureTheRemoteAnalyzer() throws {
        let setup = GoalAnalyzerSetup(environment: [
            "AIRFIT_ANALYZER_URL": "https://llm.example.com/v1", "AIRFIT_ANALYZER_MODEL": "coach-mini",
            "AIRFIT_ANALYZER_API_KEY": "k-123", "AIRFIT_ANALYZER_TIMEOUT_SECONDS": "12",
        ])
        let remote = try #require(setup.analyzer as? OpenAICompatibleGoalAnalyzer)
        #expect(remote.configuration.endpoint.absoluteString == "https://llm.example.com/v1/chat/completions")
        #expect(remote.configuration.model == "coach-mini")
        #expect(remote.configuration.apiKey == "k-123")
        #expect(remote.configuration.requestTimeout == .seconds(12))
        #expect(setup.timeout == .seconds(12))
        #expect(setup.problem == nil)
        #expect(remote.requestHeaders.map(\.name) == ["Content-Type", "Authorization"])
        #expect(remote.requestHeaders.last?.value == "Bearer k-123")
        // No client handed in: Foundation's, as before.
        #expect(remote.outbound is FoundationOutboundHTTP)
    }

    @Test func misconfigurationKeepsTheOfflineAnalyzerAndSaysWhy() {
        let noModel = GoalAnalyzerSetup(environment: ["AIRFIT_ANALYZER_URL": "http://127.0.0.1:8080/v1"])
        #expect(noModel.analyzer is OfflineGoalAnalyzer)
        #expect(noModel.problem == "AIRFIT_ANALYZER_MODEL is required with AIRFIT_ANALYZER_URL; using the offline analyzer")
        let badURL = GoalAnalyzerSetup(environment: ["AIRFIT_ANALYZER_URL": "ftp://example.com", "AIRFIT_ANALYZER_MODEL": "m"])
        #expect(badURL.analyzer is OfflineGoalAnalyzer)
        #expect(badURL.problem == "AIRFIT_ANALYZER_URL must be an http or https URL; using the offline analyzer")
        let badTimeout = GoalAnalyzerSetup(environment: ["AIRFIT_ANALYZER_TIMEOUT_SECONDS": "600"])
        #expect(badTimeout.timeout == .seconds(8))
        #expect(badTimeout.problem == "AIRFIT_ANALYZER_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 60")
    }

    @Test func theEnvironmentInitLogsAProblemOnce() {
        let logs = LogRecorder()
        _ = AirFitPlugin(environment: ["AIRFIT_ANALYZER_URL": "nonsense"], logger: logs.logger)
        #expect(logs.all.count == 1)
        #expect(logs.all.first?.contains("goal analyzer configuration ignored") == true)
    }
}
