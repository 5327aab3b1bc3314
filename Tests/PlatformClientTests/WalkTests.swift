import Foundation
import PlatformClient
import PlatformProtocol
import Testing

/// The four tenants' flows walked to completion through `PlatformClient` against the real
/// `platformd` on a Unix socket, with the answers of platformdTests' walk tests.
@Suite("PlatformClient walks", .timeLimit(.minutes(2)))
struct WalkTests {
    /// The step's saved answers, as a submit sends them back.
    static func savedValues(_ view: SessionView) -> [String: JSONValue] {
        Dictionary(uniqueKeysWithValues: (view.step?.fields ?? []).map { ($0.id, $0.value ?? .null) })
    }

    @Test func statLocker() async throws {
        try await Server.with { server in
            let client = try await server.connect()
            var view = try await client.start(
                tenant: "statlocker", userId: "walker",
                user: .init(firstName: "Alex", lastName: "Morgan", email: "alex@example.com"))
            let first = view
            #expect(view.status == .active)
            #expect(view.revision == 0)
            #expect(view.step?.id == "sport")
            #expect(view.step?.title == "Hey Alex 👋 What sport do you play?")
            #expect(view.progress.label == "Step 1 of 11")

            // Before completion the onboarding gate blocks everything.
            let blocked = try await client.checkGate(tenant: "statlocker", userId: "walker", action: "log_stats")
            #expect(!blocked.allowed)
            #expect(blocked.gate == "onboarding")

            // A locked sport: -32004 with the field's reason and the unchanged session.
            let locked = try await #require(throws: PlatformClientError.self) {
                try await client.submit(view, values: ["sport": "basketball"])
            }
            #expect(locked.kind == .server)
            #expect(locked.code == -32004)
            #expect(locked.errorCode == .validationFailed)
            #expect(locked.fieldErrors.count == 1)
            #expect(locked.fieldErrors.first?.field == "sport")
            #expect(locked.fieldErrors.first?.code == .locked)
            #expect(locked.session?.revision == 0)
            #expect(locked.session?.step?.id == "sport")

            let answers: [(step: String, values: [String: JSONValue])] = [
                ("sport", ["sport": "lacrosse"]),
                ("welcome_journey", [:]),
                ("team_gender", ["teamGender": "girls"]),
                ("profile_details", ["gradYear": 2026, "level": "JV"]),
                ("position", ["position": "Midfield"]),
                ("team_info", [
                    "hsTeamName": " Duxbury High School ", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": true,
                    "clubTeamName": "Laxachusetts", "clubCity": "Boston", "clubState": "MA",
                ]),
                ("season_goals", ["seasonGoals": ["g-mid-jv-dc-50", "g-mid-jv-goals-28", ["title": "Win 60% of draws", "targetValue": 60, "unit": "%"]]]),
                ("goals_locked_in", [:]),
                ("tone_quiz", ["aiTone": "Analyst"]),
                ("almost_there", [:]),
            ]
            for (index, answer) in answers.enumerated() {
                #expect(view.step?.id == answer.step)
                #expect(view.progress.label == "Step \(index + 1) of 11")
                let revision = view.revision
                view = try await client.submit(view, values: answer.values)
                #expect(view.revision == revision + 1)

                if answer.step == "profile_details" {
                    // Back: the previous step with its answers, then forward again with them.
                    view = try await client.back(view)
                    #expect(view.step?.id == "profile_details")
                    #expect(view.step?.field("gradYear")?.value == 2026)
                    #expect(view.step?.field("level")?.value == "JV")
                    view = try await client.submit(view, values: Self.savedValues(view))
                    #expect(view.step?.id == "position")
                }
            }
            #expect(view.step?.id == "review")
            #expect(view.step?.title == "Review your profile, Alex")

            // The first view is stale now: -32003 with the session as it stands.
            let stale = try await #require(throws: PlatformClientError.self) {
                try await client.submit(first, values: ["sport": "lacrosse", "note": "resent late"])
            }
            #expect(stale.errorCode == .conflict)
            #expect(stale.session?.revision == view.revision)
            #expect(stale.session?.step?.id == "review")
            #expect(stale.fieldErrors.isEmpty)

            // Edit: back to the goals and forward again, with the answers pre-filled.
            view = try await client.goto(view, stepId: "season_goals")
            #expect(view.step?.id == "season_goals")
            #expect(view.step?.field("seasonGoals")?.value?.arrayValue?.count == 3)
            view = try await client.submit(view, values: Self.savedValues(view))
            for step in ["goals_locked_in", "tone_quiz", "almost_there"] {
                #expect(view.step?.id == step)
                view = try await client.submit(view, values: Self.savedValues(view))
            }
            #expect(view.step?.id == "review")
            #expect(view.step?.actions.first == StepAction("continue", "Enter Your Locker"))

            view = try await client.submit(view)
            #expect(view.status == .completed)
            #expect(view.step == nil)
            #expect(view.completion?.message == "Welcome to StatLocker, Alex!")
            #expect(view.completion?.records == ["profile", "team"])
            #expect(view.progress.label == "Step 11 of 11")

            // Read back by id and by user.
            #expect(try await client.get(tenant: "statlocker", sessionId: view.sessionId) == view)
            #expect(try await client.get(tenant: "statlocker", userId: "walker").sessionId == view.sessionId)

            let profile = try await client.profile(tenant: "statlocker", userId: "walker")
            #expect(profile.userId == "walker")
            let record = try #require(profile.records["profile"])
            #expect(record["position"] == "Midfield")
            #expect(record["gradYear"] == 2026)
            #expect(record["seasonGoals"]?.arrayValue?.map { $0["isCustom"] } == [false, false, true])
            #expect(profile.records["team"]?["hsTeamName"] == "Duxbury High School")

            let updated = try await client.updateProfile(tenant: "statlocker", userId: "walker", values: ["aiTone": "Captain"])
            #expect(updated.records["profile"]?["aiTone"] == "Captain")
            // A key the plugin does not let change: -32004 with no session (it is not a flow command).
            let refused = try await #require(throws: PlatformClientError.self) {
                try await client.updateProfile(tenant: "statlocker", userId: "walker", values: ["position": "Attack"])
            }
            #expect(refused.errorCode == .validationFailed)
            #expect(refused.fieldErrors.map(\.code) == [.notEditable])
            #expect(refused.session == nil)

            // What the app's backend is told: the completion, then the update, a page at a time.
            let page = try await client.events(tenant: "statlocker", limit: 1)
            #expect(page.events.map(\.type) == [.sessionCompleted])
            #expect(page.events.first?.records == profile.records)
            #expect(page.events.first?.sessionId == view.sessionId)
            let rest = try await client.events(tenant: "statlocker", after: page.next)
            #expect(rest.events.map(\.type) == [.profileUpdated])
            #expect(rest.events.first?.records == updated.records)

            let open = try await client.checkGate(tenant: "statlocker", userId: "walker", action: "log_stats")
            #expect(open.allowed)

            // The flow as data, and the walk in the funnel.
            let description = try await client.describe(tenant: "statlocker")
            #expect(description.flow == "onboarding")
            #expect(description.steps.first?.id == "sport")
            #expect(description.steps.map(\.id).contains("review"))
            #expect(!description.edges.isEmpty)
            #expect(description.mermaid.contains("sport"))
            let funnel = try await client.funnel(
                tenant: "statlocker", since: Date().addingTimeInterval(-3600), until: Date().addingTimeInterval(3600))
            #expect(funnel.started == 1)
            #expect(funnel.completed == 1)
            #expect(funnel.completionRate == 1)
            #expect(funnel.steps.first?.id == "sport")
            #expect(funnel.steps.first?.reached == 1)
            let none = try await client.funnel(tenant: "statlocker", flow: "onboarding", until: Date(timeIntervalSince1970: 0))
            #expect(none.started == 0)

            try await client.close()
        }
    }

    @Test func teePals() async throws {
        try await Server.with { server in
            let client = try await server.connect()
            let intro = try await client.describe(tenant: "teepals")
            #expect(intro.intro?.arrayValue?.count == 3)

            var view = try await client.start(tenant: "teepals", userId: "walker", user: .init(firstName: "Sam"))
            #expect(view.step?.id == "nickname")
            #expect(view.progress.label == "1/4")
            view = try await client.submit(view, values: ["nickname": "  Sam   the Slicer "])
            #expect(view.step?.id == "birthdate")
            view = try await client.submit(view, values: ["birthdate": "1991-08-17"])
            #expect(view.step?.id == "location")

            // The city search: a known city with its coordinates, a capped list, and nothing found.
            let portland = try await client.search(view, field: "location", query: "Portland, ME", limit: 5)
            let city = try #require(portland.results.first)
            #expect(city.value == "4975802")
            #expect(city.label == "Portland, ME, United States")
            #expect(city["latitude"] == 43.65737)
            #expect(city["longitude"] == -70.2589)
            let austin = try await client.search(view, field: "location", query: "austin", limit: 5)
            #expect(!austin.results.isEmpty)
            #expect(austin.results.count <= 5)
            let nothing = try await client.search(view, field: "location", query: "Qwxzzy")
            #expect(nothing.results.isEmpty)
            #expect(nothing.message == "No results found")

            let unknown = try await #require(throws: PlatformClientError.self) {
                try await client.submit(view, values: ["location": "Portland, ME"])
            }
            #expect(unknown.errorCode == .validationFailed)
            #expect(unknown.fieldErrors.first?.code == .unknownCity)
            #expect(unknown.session?.step?.id == "location")

            view = try await client.submit(view, values: ["location": .string(city.value)])
            #expect(view.step?.id == "gender")
            #expect(view.step?.actions.first == StepAction("continue", "Complete Setup"))
            view = try await client.submit(view, values: ["gender": "prefer_not_to_say"])
            #expect(view.status == .completed)
            #expect(view.completion?.message == "Welcome to TeePals, Sam the Slicer!")

            let profile = try await client.profile(tenant: "teepals", userId: "walker")
            #expect(profile.records["profile_public"]?["nickname"] == "Sam the Slicer")
            #expect(profile.records["profile_public"]?["cityId"] == "4975802")
            #expect(profile.records["profile_private"]?["ageVerified"] == true)

            // Tier 2 blocks joining a round until the profile has a photo and a skill level.
            let gated = try await client.checkGate(tenant: "teepals", userId: "walker", action: "join_round")
            #expect(!gated.allowed)
            #expect(gated.gate == "tier2")
            #expect(Set(gated.requirements.map(\.id)) == ["photo", "skillLevel"])
            #expect(gated.requirements.allSatisfy { !$0.satisfied })
            let updated = try await client.updateProfile(
                tenant: "teepals", userId: "walker",
                values: ["photoUrl": "https://img.example/sam.jpg", "skillLevel": "advanced"])
            #expect(updated.records["profile_public"]?["skillLevel"] == "advanced")
            let open = try await client.checkGate(tenant: "teepals", userId: "walker", action: "join_round")
            #expect(open.allowed)
            #expect(open.requirements.allSatisfy { $0.satisfied })

            // A child is turned away; the rejected session takes no more answers (-32005).
            var child = try await client.start(tenant: "teepals", userId: "kid")
            child = try await client.submit(child, values: ["nickname": "Kiddo"])
            let birthdateStep = child
            child = try await client.submit(child, values: ["birthdate": "2019-03-04"])
            #expect(child.status == .rejected)
            #expect(child.rejection == Rejection(code: "underage", message: "You must be 13+ to use TeePals"))
            #expect(child.step == nil)
            var late = birthdateStep
            late.revision = child.revision
            let refused = try await #require(throws: PlatformClientError.self) {
                try await client.submit(late, values: ["birthdate": "1990-01-01"])
            }
            #expect(refused.errorCode == .invalidState)
            #expect(refused.session?.status == .rejected)

            try await client.close()
        }
    }

    @Test func airFit() async throws {
        try await Server.with { server in
            let client = try await server.connect()
            var view = try await client.start(tenant: "airfit", userId: "walker", user: .init(firstName: "Jordan Lee"))
            #expect(view.step?.id == "opening_screen")
            #expect(view.step?.title == "Let's design your AirFit Coach.")
            #expect(view.progress.label == "1 of 8")

            // Maybe Later, then flow.start returns the deferred session.
            view = try await client.submit(view, action: .later)
            #expect(view.status == .deferred)
            let resumed = try await client.start(tenant: "airfit", userId: "walker")
            #expect(resumed.status == .deferred)
            #expect(resumed.sessionId == view.sessionId)

            let steps: [(id: String, values: [String: JSONValue])] = [
                ("opening_screen", [:]),
                ("life_snapshot", ["lifeSnapshot": ["frequentTravel", "prefersEvening"]]),
                ("core_aspiration", ["aspirationPreset": "describe_own", "aspirationText": "Lose 10 pounds by summer"]),
                ("coaching_style", ["authoritativeDirect": 0, "empatheticEncouraging": 0, "analyticalInsightful": 0, "playfullyProvocative": 0]),
                ("engagement_preferences", ["engagementPreset": "consistentBalanced"]),
                ("typical_availability", ["availability": [
                    ["dayOfWeek": 6, "startTime": "09:00", "endTime": "10:30"],
                    ["dayOfWeek": 2, "startTime": "19:00", "endTime": "20:00"],
                ]]),
                ("sleep_and_boundaries", ["sleepBedtime": "23:30", "sleepWakeTime": "07:00"]),
                ("motivation_and_checkins", ["preferredUnits": "metric"]),
                ("generating_coach", [:]),
            ]
            for step in steps {
                #expect(view.step?.id == step.id)
                if step.id == "typical_availability" {
                    // Overlapping windows are refused with a reason for the person.
                    let overlap = try await #require(throws: PlatformClientError.self) {
                        try await client.submit(view, values: ["availability": [
                            ["dayOfWeek": 1, "startTime": "07:00", "endTime": "08:00"],
                            ["dayOfWeek": 1, "startTime": "07:30", "endTime": "09:00"],
                        ]])
                    }
                    #expect(overlap.fieldErrors == [FieldError(
                        field: "availability", code: .overlap,
                        message: "Monday 07:00–08:00 overlaps Monday 07:30–09:00. Adjust or remove one of them.")])
                    #expect(overlap.session?.revision == view.revision)
                }
                view = try await client.submit(view, values: step.values)
            }
            #expect(view.status == .completed)
            #expect(view.progress.label == "8 of 8")
            #expect(view.completion?.message == "Your AirFit Coach is ready, Jordan.")
            #expect(view.completion?.records == ["onboarding_profile", "user"])
            #expect(view.completion?.screen?.title == "Your AirFit Coach Is Ready")
            #expect(view.completion?.screen?.actions == [
                StepAction("begin", "Begin with My Coach"), StepAction("refine", "Review & Refine Settings"),
            ])

            let profile = try await client.profile(tenant: "airfit", userId: "walker")
            #expect(profile.records["user"] == ["preferredUnits": "metric"])
            let persona = try #require(profile.records["onboarding_profile"]?["personaProfile"])
            #expect(persona["goal"]?["text"] == "Lose 10 pounds by summer")
            #expect(persona["coachingBlend"]?["authoritativeDirect"] == 25)
            let updated = try await client.updateProfile(tenant: "airfit", userId: "walker", values: ["establishBaseline": false])
            #expect(updated.records["onboarding_profile"]?["establishBaseline"] == false)

            try await client.close()
        }
    }

    @Test func aflFantasy() async throws {
        try await Server.with { server in
            let client = try await server.connect()
            var view = try await client.start(tenant: "aflfantasy", userId: "ios-42", user: .init(email: "riley@example.com"))
            #expect(view.step?.id == "splash")
            #expect(view.progress.index == 0)
            #expect(view.progress.label == "")

            view = try await client.submit(view)
            #expect(view.step?.title == "Welcome to AFL Fantasy, riley!")
            view = try await client.submit(view)
            #expect(view.step?.id == "team_choice")
            #expect(view.step?.content["carousel"]?["autoAdvanceSeconds"] == 3)
            view = try await client.submit(view, values: ["hasExistingTeam": false])
            #expect(view.step?.id == "create_team_guide")
            #expect(view.progress.label == "Step 3 of 6")

            // Three of five is refused with the items still to do; nothing moves.
            let short = try await #require(throws: PlatformClientError.self) {
                try await client.submit(view, values: ["completedItems": ["visit_website", "sign_in", "pick_squad"]])
            }
            #expect(short.errorCode == .validationFailed)
            #expect(short.fieldErrors.map(\.code) == [.count])
            #expect(short.fieldErrors.first?.message.hasSuffix("Still to do: Name and save your team and Find your Team ID.") == true)
            #expect(short.session?.revision == view.revision)

            view = try await client.submit(
                view, values: ["completedItems": ["visit_website", "sign_in", "pick_squad", "save_team", "find_team_id"]])
            #expect(view.step?.id == "personal_info")
            #expect(view.step?.fields.last?.default == "riley@example.com")
            view = try await client.submit(view, values: ["firstName": "Riley", "email": "riley@example.com"])
            #expect(view.step?.id == "credentials")
            view = try await client.submit(view, values: ["teamId": "4815162342", "teamName": "Riley's Roos"])
            #expect(view.step?.id == "validation")
            #expect(view.step?.kind == .processing)

            view = try await client.submit(view)
            #expect(view.status == .completed)
            #expect(view.progress.label == "Step 6 of 6")
            #expect(view.progress.fraction == 1)
            #expect(view.completion?.message == "Welcome to AFL Fantasy, Riley!")
            #expect(view.completion?.records == ["account"])
            #expect(view.completion?.screen?.title == "You're All Set, Riley!")
            #expect(view.completion?.screen?.actions == [StepAction("open_dashboard", "Go to My Team")])

            let profile = try await client.profile(tenant: "aflfantasy", userId: "ios-42")
            #expect(profile.tenant == "aflfantasy")
            let account = try #require(profile.records["account"])
            #expect(account["teamId"] == "4815162342")
            #expect(account["path"] == "created")
            #expect(account["guide"]?["completedItems"]?.arrayValue?.count == 5)

            try await client.close()
        }
    }
}
