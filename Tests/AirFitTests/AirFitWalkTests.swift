import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// The AirFit flow end to end through the real binary: JSON lines in, JSON lines out.
@Suite("platformd airfit walk")
struct AirFitWalkTests {
    /// Sends one hand-written request line and returns its result, failing on an error reply.
    static func result(_ server: PlatformdProcess, _ line: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let reply = try await server.request(line)
        return try #require(reply["result"], "error reply: \(reply.serialized())", sourceLocation: sourceLocation)
    }

    @Test func walkTheWholeFlowAndReadTheProfile() async throws {
        try await PlatformdProcess.withServer { server in
            var view = try await Self.result(
                server,
                #"""
                {"jsonrpc":"2.0","id":1,"method":"flow.start","params":{"tenant":"airfit","userId":"walker","user":{"firstName":"Jordan Lee"}}}
                """#)
            let session = try #require(view["sessionId"]?.stringValue)
            #expect(view["step"]?["id"] == "opening_screen")
            #expect(view["step"]?["title"] == "Let's design your AirFit Coach.")
            #expect(view["progress"]?["label"] == "1 of 8")

            // Maybe Later, then flow.start returns the deferred session, then Begin.
            view = try await Self.result(
                server,
                """
                {"jsonrpc":"2.0","id":2,"method":"flow.submit","params":{"tenant":"airfit","sessionId":"\(session)","stepId":"opening_screen","revision":0,"action":"later"}}
                """)
            #expect(view["status"] == "deferred")
            view = try await Self.result(
                server,
                #"""
                {"jsonrpc":"2.0","id":3,"method":"flow.start","params":{"tenant":"airfit","userId":"walker"}}
                """#)
            #expect(view["status"] == "deferred")
            #expect(view["sessionId"] == .string(session))

            let steps: [(id: String, values: String)] = [
                ("opening_screen", "{}"),
                ("life_snapshot", #"{"lifeSnapshot":["frequentTravel","prefersEvening"]}"#),
                ("core_aspiration", #"{"aspirationPreset":"describe_own","aspirationText":"Lose 10 pounds by summer"}"#),
                ("coaching_style", #"{"authoritativeDirect":0,"empatheticEncouraging":0,"analyticalInsightful":0,"playfullyProvocative":0}"#),
                ("engagement_preferences", #"{"engagementPreset":"consistentBalanced"}"#),
                (
                    "typical_availability",
                    #"{"availability":[{"dayOfWeek":6,"startTime":"09:00","endTime":"10:30"},{"dayOfWeek":2,"startTime":"19:00","endTime":"20:00"}]}"#
                ),
                ("sleep_and_boundaries", #"{"sleepBedtime":"23:30","sleepWakeTime":"07:00"}"#),
                ("motivation_and_checkins", #"{"preferredUnits":"metric"}"#),
                ("generating_coach", "{}"),
            ]
            var id = 4
            for step in steps {
                #expect(view["step"]?["id"] == .string(step.id))
                let revision = try #require(view["revision"]?.intValue)
                view = try await Self.result(
                    server,
                    """
                    {"jsonrpc":"2.0","id":\(id),"method":"flow.submit","params":{"tenant":"airfit","sessionId":"\(session)","stepId":"\(step.id)","revision":\(revision),"values":\(step.values)}}
                    """)
                id += 1
            }

            #expect(view["status"] == "completed")
            #expect(view["step"] == .null)
            #expect(view["progress"]?["label"] == "8 of 8")
            let completion = try #require(view["completion"])
            #expect(completion["message"] == "Your AirFit Coach is ready, Jordan.")
            #expect(completion["records"] == ["onboarding_profile", "user"])
            let screen = try #require(completion["screen"])
            #expect(screen["title"] == "Your AirFit Coach Is Ready")
            #expect(
                screen["actions"] == [
                    ["id": "begin", "label": "Begin with My Coach"], ["id": "refine", "label": "Review & Refine Settings"],
                ])
            #expect(
                screen["summary"]?.arrayValue?.map { $0["id"]?.stringValue } == [
                    "coachingStyle", "aspiration", "engagementStyle", "communicationBoundaries", "establishBaseline",
                ])

            let profile = try await Self.result(
                server,
                #"""
                {"jsonrpc":"2.0","id":20,"method":"profile.get","params":{"tenant":"airfit","userId":"walker"}}
                """#)
            #expect(profile["tenant"] == "airfit")
            #expect(profile["userId"] == "walker")
            let records = try #require(profile["records"])
            #expect(records["user"] == ["preferredUnits": "metric"])
            let onboarding = try #require(records["onboarding_profile"])
            #expect(onboarding["establishBaseline"] == true)
            let persona = try #require(onboarding["personaProfile"])
            #expect(persona["schemaVersion"] == 1)
            #expect(
                persona["coachingBlend"] == [
                    "authoritativeDirect": 25, "empatheticEncouraging": 25, "analyticalInsightful": 25, "playfullyProvocative": 25,
                ])
            let goal = try #require(persona["goal"])
            #expect(goal["text"] == "Lose 10 pounds by summer")
            #expect(goal["structured"]?["goal_type"] == "weight_loss")
            #expect(goal["structured"]?["primary_metric"] == "body_weight")
            #expect(goal["structured"]?["target"] == ["value": 10, "unit": "lb"])
            // Weeks to 1 June depend on today's date; the text gives a timeframe, so there is one.
            #expect((1...52).contains(goal["structured"]?["timeframe_weeks"]?.intValue ?? 0))
            #expect(
                persona["trackingStyle"] == [
                    "preset": "consistentBalanced", "detailedTracking": false, "dailyInsights": false, "autoRecoveryAdjust": true,
                ])
            #expect(
                persona["availability"] == [
                    ["dayOfWeek": 2, "startTime": "19:00", "endTime": "20:00", "durationMinutes": 60],
                    ["dayOfWeek": 6, "startTime": "09:00", "endTime": "10:30", "durationMinutes": 90],
                ])
            #expect(
                persona["sleep"] == [
                    "bedtime": "23:30", "wakeTime": "07:00", "rhythm": "consistent", "durationMinutes": 450, "crossesMidnight": true,
                ])
            #expect(persona["celebrationStyle"] == "subtleAffirming")
            #expect(persona["absenceResponse"] == "gentleNudge")
            #expect(persona["units"] == "metric")
            #expect(
                onboarding["communicationPreferences"] == [
                    "quietHours": ["start": "23:30", "end": "07:00", "durationMinutes": 450],
                    "achievementAcknowledgement": "subtleAffirming", "inactivityResponse": "gentleNudge", "insightCadence": "weekly",
                ])

            let updated = try await Self.result(
                server,
                #"""
                {"jsonrpc":"2.0","id":21,"method":"profile.update","params":{"tenant":"airfit","userId":"walker","values":{"establishBaseline":false}}}
                """#)
            #expect(updated["records"]?["onboarding_profile"]?["establishBaseline"] == false)
            // The person's words never reach the server's log.
            #expect(!server.stderrText.contains("Lose 10 pounds"))
        }
    }

    @Test func refusalsComeBackAsValidationErrors() async throws {
        try await PlatformdProcess.withServer { server in
            let start = try await Self.result(
                server,
                #"""
                {"jsonrpc":"2.0","id":1,"method":"flow.start","params":{"tenant":"airfit","userId":"overlapper"}}
                """#)
            let session = try #require(start["sessionId"]?.stringValue)
            let walk: [(String, String)] = [
                ("opening_screen", "{}"), ("life_snapshot", "{}"), ("core_aspiration", #"{"aspirationPreset":"lasting_health"}"#),
                ("coaching_style", "{}"), ("engagement_preferences", "{}"),
            ]
            for (revision, step) in walk.enumerated() {
                _ = try await Self.result(
                    server,
                    """
                    {"jsonrpc":"2.0","id":2,"method":"flow.submit","params":{"tenant":"airfit","sessionId":"\(session)","stepId":"\(step.0)","revision":\(revision),"values":\(step.1)}}
                    """)
            }
            let reply = try await server.request(
                """
                {"jsonrpc":"2.0","id":3,"method":"flow.submit","params":{"tenant":"airfit","sessionId":"\(session)","stepId":"typical_availability","revision":5,"values":{"availability":[{"dayOfWeek":1,"startTime":"07:00","endTime":"08:00"},{"dayOfWeek":1,"startTime":"07:30","endTime":"09:00"}]}}}
                """)
            expectError(reply, code: -32004, id: 3)
            #expect(
                reply["error"]?["data"]?["errors"] == [
                    [
                        "field": "availability", "code": "overlap",
                        "message": "Monday 07:00–08:00 overlaps Monday 07:30–09:00. Adjust or remove one of them.",
                    ]
                ])
            #expect(reply["error"]?["data"]?["session"]?["revision"] == 5)
        }
    }
}
