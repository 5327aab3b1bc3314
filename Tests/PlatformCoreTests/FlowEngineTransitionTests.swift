import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// A second after `epoch` for every `seconds`, so timings read off the expected states.
func at(_ seconds: Double) -> Date { epoch.addingTimeInterval(seconds) }

/// The engine as a function: each command gets a state, the time and an id source, and gives a
/// whole new state, the events, the records and the plugin's log lines, or a `FlowError`. No
/// Platform, no store.
@Suite struct FlowEngineTransitionTests {
    let plugin = FixturePlugin()
    let ids = SequentialIDs()
    let alex = UserDetails(firstName: "Alex")
    let basicsValues: [String: JSONValue] = ["name": "Alex", "age": 30, "kind": "alpha", "hasPet": false]

    var engine: FlowEngine {
        get throws { FlowEngine(plugin: plugin, flow: try #require(plugin.flow("onboarding"))) }
    }

    /// The transition of a submit that must apply (not ask for server work).
    func applied(_ result: FlowEngine.SubmitResult) throws -> FlowEngine.Transition {
        guard case .applied(let transition) = result else {
            Issue.record("expected an applied transition, got server work")
            throw AnalysisFailure()
        }
        return transition
    }

    func submit(
        _ state: SessionState, _ step: String, _ values: [String: JSONValue] = [:], action: String = "continue",
        work: JSONValue? = nil, at time: Double
    ) throws -> FlowEngine.Transition {
        let command = FlowEngine.Submit(stepId: step, revision: state.revision, action: action, values: values)
        return try applied(try engine.submit(state, command, workResult: work, now: at(time), newID: ids.next))
    }

    func started() throws -> SessionState {
        try engine.start(nil, tenant: "fixture", userId: "u1", user: alex, now: at(0), newID: ids.next).state
    }

    /// welcome at 5 s, basics at 15 s.
    func atRoute() throws -> SessionState {
        let atBasics = try submit(try started(), "welcome", at: 5).state
        return try submit(atBasics, "basics", basicsValues, at: 15).state
    }

    /// route "fast" at 20 s, an adult birthdate at 30 s.
    func atAnalysis(name: String = "Alex") throws -> SessionState {
        let atBasics = try submit(try started(), "welcome", at: 5).state
        let atRoute = try submit(atBasics, "basics", basicsValues.merging(["name": .string(name)]) { $1 }, at: 15).state
        let atBirth = try submit(atRoute, "route", ["route": "fast"], at: 20).state
        return try submit(atBirth, "birth", ["birthdate": "1990-05-01"], at: 30).state
    }

    // MARK: - start

    @Test func startCreatesTheSessionWithAnIdFromTheCommand() throws {
        let transition = try engine.start(nil, tenant: "fixture", userId: "u1", user: alex, now: at(0), newID: ids.next)
        #expect(
            transition.state
                == SessionState(
                    id: "id-1", tenant: "fixture", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: try engine.fingerprint, user: alex,
                    path: ["welcome"],
                    arrivedAt: at(0), createdAt: at(0), updatedAt: at(0)))
        #expect(transition.events == [FlowEvent(.started, at: at(0)), FlowEvent(.arrived, step: "welcome", at: at(0))])
        #expect(transition.profile == nil)
        #expect(transition.changed)
        #expect(transition.logs.isEmpty)
    }

    @Test func startOnAnExistingSessionChangesNothingAndDrawsNoId() throws {
        let state = try started()
        let again = try engine.start(state, tenant: "fixture", userId: "u1", user: nil, now: at(60), newID: ids.next)
        #expect(again.state == state)
        #expect(again.events.isEmpty)
        #expect(!again.changed)
        #expect(ids.next() == "id-2")
    }

    // MARK: - submit

    @Test func aWalkToCompletionGivesEachWholeState() throws {
        let welcome = try submit(try started(), "welcome", at: 5)
        #expect(
            welcome.state
                == SessionState(
                    id: "id-1", tenant: "fixture", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: try engine.fingerprint, revision: 1,
                    user: alex,
                    path: ["welcome", "basics"], answers: ["welcome": [:]], secondsSpent: ["welcome": 5], arrivedAt: at(5),
                    lastSubmitDigest: FlowEngine.Submit(stepId: "welcome", revision: 0).digest,
                    createdAt: at(0), updatedAt: at(5)))
        #expect(
            welcome.events == [
                FlowEvent(.left, step: "welcome", action: "continue", seconds: 5, at: at(5)),
                FlowEvent(.arrived, step: "basics", at: at(5)),
            ])
        #expect(welcome.logs.isEmpty)

        let basics = try submit(welcome.state, "basics", basicsValues.merging(["name": "  Alex "]) { $1 }, at: 15)
        #expect(
            basics.state
                == SessionState(
                    id: "id-1", tenant: "fixture", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: try engine.fingerprint, revision: 2,
                    user: alex,
                    path: ["welcome", "basics", "route"], answers: ["welcome": [:], "basics": basicsValues],
                    secondsSpent: ["welcome": 5, "basics": 10], arrivedAt: at(15),
                    lastSubmitDigest: FlowEngine.Submit(
                        stepId: "basics", revision: 1, values: basicsValues.merging(["name": "  Alex "]) { $1 }
                    ).digest,
                    createdAt: at(0), updatedAt: at(15)))

        // Two ways out of route: the branch is an event of its own.
        let route = try submit(basics.state, "route", ["route": "fast"], at: 20)
        #expect(route.state.path == ["welcome", "basics", "route", "birth"])
        #expect(
            route.events == [
                FlowEvent(.left, step: "route", action: "continue", seconds: 5, at: at(20)),
                FlowEvent(.branch, step: "route", toStep: "birth", at: at(20)),
                FlowEvent(.arrived, step: "birth", at: at(20)),
            ])

        // A sensitive field: only what `stored` keeps is saved, and the retry digest is keyed by a
        // process secret, so it is read off the result once its form is checked.
        let birth = try submit(route.state, "birth", ["birthdate": "1990-05-01"], at: 30)
        let digest = try #require(birth.state.lastSubmitDigest)
        #expect(digest.hasPrefix("hmac:"))
        #expect(
            birth.state
                == SessionState(
                    id: "id-1", tenant: "fixture", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: try engine.fingerprint, revision: 4,
                    user: alex,
                    path: ["welcome", "basics", "route", "birth", "analysis"],
                    answers: ["welcome": [:], "basics": basicsValues, "route": ["route": "fast"], "birth": ["verified": true]],
                    secondsSpent: ["welcome": 5, "basics": 10, "route": 5, "birth": 10], arrivedAt: at(30),
                    lastSubmitDigest: digest, createdAt: at(0), updatedAt: at(30)))
        #expect(
            birth.events == [
                FlowEvent(.left, step: "birth", action: "continue", seconds: 10, at: at(30)),
                FlowEvent(.arrived, step: "analysis", at: at(30)),
            ])
        #expect(birth.logs == [PluginLogLine(plugin: "Fixture", level: .info, message: "age checked", metadata: ["step": "birth"])])

        // The same submit again (a lost reply): nothing changes and nothing is logged twice.
        let repeated = try engine.submit(
            birth.state, FlowEngine.Submit(stepId: "birth", revision: 3, values: ["birthdate": "1990-05-01"]),
            now: at(33), newID: ids.next)
        guard case .applied(let same) = repeated else {
            Issue.record("a retry asked for work")
            return
        }
        #expect(same.state == birth.state)
        #expect(same.events.isEmpty)
        #expect(!same.changed)
        #expect(same.logs.isEmpty)

        // Server work first: the engine asks for it and changes nothing; then it applies its result.
        let command = FlowEngine.Submit(stepId: "analysis", revision: 4)
        guard case .needsWork(let work) = try engine.submit(birth.state, command, now: at(40), newID: ids.next) else {
            Issue.record("analysis did not ask for its work")
            return
        }
        #expect(work.name == "fixture analysis")
        let done = try submit(birth.state, "analysis", work: ["accepted": true, "letters": 4], at: 45)
        #expect(
            done.state
                == SessionState(
                    id: "id-1", tenant: "fixture", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: try engine.fingerprint,
                    status: .completed, revision: 5,
                    user: alex, path: [], arrivedAt: at(45), lastSubmitDigest: command.digest,
                    completion: CompletionView(
                        message: "Welcome, Alex!", records: ["account", "settings"],
                        screen: CompletionScreen(title: "All set", body: "Enjoy")),
                    createdAt: at(0), updatedAt: at(45), progressTotal: try engine.view(birth.state, now: at(40)).progress.total))
        #expect(
            done.events == [
                FlowEvent(.left, step: "analysis", action: "continue", seconds: 15, at: at(45)),
                FlowEvent(.completed, at: at(45)),
            ])
        // The record's id is the next one the command's source gave (id-1 is the session's).
        #expect(
            done.profile
                == Profile(
                    tenant: "fixture", userId: "u1", completedAt: at(45),
                    records: [
                        "account": [
                            "id": "id-2", "name": "Alex", "kind": "alpha", "tags": .null,
                            "analysis": ["accepted": true, "letters": 4], "secondsOnExtras": .double(0),
                        ],
                        "settings": ["theme": "dark"],
                    ]))
        #expect(done.logs == [PluginLogLine(plugin: "Fixture", level: .info, message: "completing", metadata: ["user": "u1"])])
    }

    @Test func aRejectionErasesEverythingTheUserTold() throws {
        let atBasics = try submit(try started(), "welcome", at: 5).state
        let atRoute = try submit(atBasics, "basics", basicsValues, at: 15).state
        let atBirth = try submit(atRoute, "route", ["route": "fast"], at: 20).state
        let rejected = try submit(atBirth, "birth", ["birthdate": "2020-01-01"], at: 26)
        let digest = try #require(rejected.state.lastSubmitDigest)
        #expect(
            rejected.state
                == SessionState(
                    id: "id-1", tenant: "fixture", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: try engine.fingerprint,
                    status: .rejected, revision: 4,
                    user: .empty, path: [], arrivedAt: at(26), lastSubmitDigest: digest,
                    rejection: Rejection(code: "underage", message: "You must be 13+ to use Fixture"),
                    createdAt: at(0), updatedAt: at(26)))
        #expect(
            rejected.events == [
                FlowEvent(.left, step: "birth", action: "continue", seconds: 6, at: at(26)),
                FlowEvent(.rejected, step: "birth", at: at(26)),
            ])
        #expect(rejected.profile == nil)
        #expect(
            rejected.logs == [
                PluginLogLine(plugin: "Fixture", level: .notice, message: "under 13: rejected", metadata: ["step": "birth"])
            ])
    }

    @Test func backAndGotoMoveAlongThePathKeepingTheAnswers() throws {
        let atRoute = try atRoute()
        let back = try engine.back(atRoute, revision: 2, now: at(25))
        #expect(
            back.state
                == SessionState(
                    id: "id-1", tenant: "fixture", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: try engine.fingerprint, revision: 3,
                    user: alex,
                    path: ["welcome", "basics"], answers: ["welcome": [:], "basics": basicsValues],
                    secondsSpent: ["welcome": 5, "basics": 10, "route": 10], arrivedAt: at(25),
                    createdAt: at(0), updatedAt: at(25)))
        #expect(
            back.events == [
                FlowEvent(.left, step: "route", action: "back", seconds: 10, at: at(25)),
                FlowEvent(.arrived, step: "basics", at: at(25)),
            ])
        #expect(back.logs.isEmpty)

        let goto = try engine.goto(back.state, stepId: "welcome", revision: 3, now: at(30))
        #expect(
            goto.state
                == SessionState(
                    id: "id-1", tenant: "fixture", userId: "u1", flow: "onboarding", flowVersion: "1", flowFingerprint: try engine.fingerprint, revision: 4,
                    user: alex,
                    path: ["welcome"], answers: ["welcome": [:], "basics": basicsValues],
                    secondsSpent: ["welcome": 5, "basics": 15, "route": 10], arrivedAt: at(30),
                    createdAt: at(0), updatedAt: at(30)))
        #expect(
            goto.events == [
                FlowEvent(.left, step: "basics", action: "goto", seconds: 5, at: at(30)),
                FlowEvent(.arrived, step: "welcome", at: at(30)),
            ])
    }

    // MARK: - errors

    @Test func staleCommandsConflictWithTheCurrentSession() throws {
        let engine = try engine
        let atBasics = try submit(try started(), "welcome", at: 5).state
        let view = engine.view(atBasics, now: at(9))
        #expect(throws: FlowError.conflict("the session is on step basics at revision 1", session: view)) {
            try engine.submit(atBasics, FlowEngine.Submit(stepId: "basics", revision: 0, values: basicsValues), now: at(9), newID: ids.next)
        }
        #expect(throws: FlowError.conflict("the session is on step basics at revision 1", session: view)) {
            try engine.submit(atBasics, FlowEngine.Submit(stepId: "welcome", revision: 1), now: at(9), newID: ids.next)
        }
        #expect(throws: FlowError.conflict("the session is at revision 1", session: view)) {
            try engine.back(atBasics, revision: 0, now: at(9))
        }
        #expect(throws: FlowError.conflict("the session is at revision 1", session: view)) {
            try engine.goto(atBasics, stepId: "welcome", revision: 2, now: at(9))
        }
    }

    @Test func commandsTheSessionCannotTakeAreInvalidState() throws {
        let engine = try engine
        let first = try started()
        let atBasics = try submit(first, "welcome", at: 5).state
        let view = engine.view(atBasics, now: at(9))
        func submitting(_ action: String) throws(FlowError) {
            _ = try engine.submit(atBasics, FlowEngine.Submit(stepId: "basics", revision: 1, action: action), now: at(9), newID: ids.next)
        }
        #expect(throws: FlowError.invalidState("step basics does not offer the action skip", session: view)) {
            try submitting("skip")
        }
        #expect(throws: FlowError.invalidState("back is its own method: call flow.back", session: view)) {
            try submitting("back")
        }
        #expect(throws: FlowError.invalidState("edit is done with flow.goto to the step to change", session: view)) {
            try submitting("edit")
        }
        #expect(throws: FlowError.invalidState("already on the first step", session: engine.view(first, now: at(9)))) {
            try engine.back(first, revision: 0, now: at(9))
        }
        #expect(throws: FlowError.invalidState("step extras has not been visited on the current path", session: view)) {
            try engine.goto(atBasics, stepId: "extras", revision: 1, now: at(9))
        }

        let done = try submit(try atAnalysis(), "analysis", work: ["accepted": true], at: 45).state
        let final = engine.view(done, now: at(50))
        #expect(throws: FlowError.invalidState("the session is completed", session: final)) {
            try engine.submit(done, FlowEngine.Submit(stepId: "analysis", revision: 5), now: at(50), newID: ids.next)
        }
        #expect(throws: FlowError.invalidState("the session is completed", session: final)) {
            try engine.back(done, revision: 5, now: at(50))
        }
        #expect(throws: FlowError.invalidState("the session is completed", session: final)) {
            try engine.goto(done, stepId: "welcome", revision: 5, now: at(50))
        }
    }

    @Test func validationFailsWithEveryInvalidField() throws {
        let engine = try engine
        let atBasics = try submit(try started(), "welcome", at: 5).state
        let command = FlowEngine.Submit(stepId: "basics", revision: 1, values: ["name": "A", "age": 0, "kind": "gamma"])
        #expect(
            throws: FlowError.validationFailed(
                [
                    FieldError(field: "name", code: .tooShort, message: "Name must be at least 2 characters."),
                    FieldError(field: "age", code: .outOfRange, message: "Age must be between 1 and 120."),
                    FieldError(field: "kind", code: .locked, message: "Gamma is coming soon. Pick Alpha or Beta for now."),
                    FieldError(field: "hasPet", code: .required, message: "Has a pet is required."),
                ], session: engine.view(atBasics, now: at(9)))
        ) {
            try engine.submit(atBasics, command, now: at(9), newID: ids.next)
        }

        // The step's own rule adds its error to the fields' ones.
        let atRoute = try submit(atBasics, "basics", basicsValues, at: 15).state
        let atExtras = try submit(atRoute, "route", ["route": "slow"], at: 20).state
        let slots: JSONValue = [["day": 1, "start": "09:00", "end": "11:00"], ["day": 1, "start": "10:00", "end": "12:00"]]
        let extras = FlowEngine.Submit(stepId: "extras", revision: 3, values: ["tags": ["a1"], "slots": slots])
        #expect(
            throws: FlowError.validationFailed(
                [
                    FieldError(field: "tags", code: .count, message: "Pick exactly 2 choices (you have 1)."),
                    FieldError(field: "slots", code: .overlap, message: "Two slots overlap on day 1."),
                ], session: engine.view(atExtras, now: at(25)))
        ) {
            try engine.submit(atExtras, extras, now: at(25), newID: ids.next)
        }
    }

    @Test func aCompletionThatRefusesOrFailsLeavesTheSessionAsItWas() throws {
        let engine = try engine
        let invalid = try atAnalysis(name: "Invalid")
        #expect(
            throws: FlowError.validationFailed(
                [FieldError(field: "name", code: .invalidFormat, message: "That name cannot finish.")],
                session: engine.view(invalid, now: at(45)))
        ) {
            try engine.submit(
                invalid, FlowEngine.Submit(stepId: "analysis", revision: 4), workResult: ["accepted": true],
                now: at(45), newID: ids.next)
        }
        let crash = try atAnalysis(name: "Crash")
        #expect(throws: FlowError.defect("completion of fixture/onboarding failed: Crash()")) {
            try engine.submit(
                crash, FlowEngine.Submit(stepId: "analysis", revision: 4), workResult: ["accepted": true],
                now: at(45), newID: ids.next)
        }
    }
}
