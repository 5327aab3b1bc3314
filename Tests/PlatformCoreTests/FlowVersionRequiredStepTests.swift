import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// A required step a newer version adds, before, at or after where a session in flight stands:
/// the moved session is asked it before it can complete, on every kind of flow (resumed at the
/// saved step, at the first missing answer, and inside a branch), and a review lists it.
@Suite("Flow versions: a required step added to sessions in flight")
struct FlowVersionRequiredStepTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let city = FieldSpec(id: "city", type: .text, label: "City", minLength: 2, maxLength: 40)

    /// Version 1's steps (a, b with the senior detour, c, d) with a required step `x` inserted at `index`.
    static func withX(at index: Int, resume: ResumePolicy) -> Flow {
        var steps: [any FlowStep] = [
            PlainStep(id: "a", specs: [Versions.name]), PlainStep(id: "b", specs: [Versions.age], branches: [Versions.senior]),
            PlainStep(id: "c", specs: [Versions.color]), PlainStep(id: "d", specs: [Versions.note]),
        ]
        steps.insert(PlainStep(id: "x", specs: [city]), at: index)
        return Flow(version: "2", steps: steps, resumePolicy: resume, completion: RecordsNothing())
    }

    static func v1(resume: ResumePolicy) -> Flow {
        let flow = Versions.v1()
        return Flow(version: "1", steps: flow.steps.filter { $0.id != "senior" }, resumePolicy: resume, completion: RecordsNothing())
    }

    /// Sessions of version 1 standing on each of its steps.
    func recorded(_ engine: FlowEngine) throws -> [SessionState] {
        var sessions: [SessionState] = []
        for age in [30, 70] {
            var state = engine.start(nil, tenant: "versioned", userId: "u\(age)", user: nil, now: now, newID: { UUID().uuidString }).state
            let answers = Versions.answers(age: age).merging(["x": ["city": "Austin"]]) { $1 }
            while let step = state.currentStep {
                sessions.append(state)
                guard
                    case .applied(let next) = try engine.submit(
                        state, .init(stepId: step, revision: state.revision, values: answers[step] ?? [:]), now: now, newID: { UUID().uuidString })
                else { break }
                state = next.state
            }
        }
        return sessions
    }

    /// Continues from `state`, keeping every saved answer and answering `x` when asked; the
    /// steps shown, in order, and the end state.
    func finish(_ engine: FlowEngine, _ start: SessionState) throws -> (shown: [String], state: SessionState) {
        var state = start
        var shown: [String] = []
        for _ in 0..<30 {
            guard state.status == .active, let step = state.currentStep else { break }
            shown.append(step)
            let values: [String: JSONValue] = step == "x" ? ["city": "Austin"] : (state.answers[step] ?? Versions.answers(age: 30)[step] ?? [:])
            guard
                case .applied(let next) = try engine.submit(
                    state, .init(stepId: step, revision: state.revision, values: values), now: now, newID: { UUID().uuidString })
            else { break }
            state = next.state
        }
        return (shown, state)
    }

    @Test(arguments: [ResumePolicy.savedStep, .firstMissingAnswer], 0...4)
    func theMovedSessionAnswersTheAddedStepBeforeItCompletes(resume: ResumePolicy, index: Int) throws {
        let old = FlowEngine(plugin: VersionedPlugin(flows: [Self.v1(resume: resume)]), flow: Self.v1(resume: resume))
        let flow = Self.withX(at: index, resume: resume)
        let new = FlowEngine(plugin: VersionedPlugin(flows: [flow]), flow: flow)
        let order = flow.steps.map(\.id)
        for session in try recorded(old) {
            let standing = try #require(session.currentStep)
            // Where x went in the main sequence against where the session stands (a step of the
            // senior detour stands where b does, plus one).
            let main = ["a", "b", "c", "d"]
            let position = main.firstIndex(of: standing) ?? (main.firstIndex(of: "b")! + 1)
            let relation = index < position ? "before" : index == position ? "at" : "after"
            // Behind the session in the flow's order: never shown to it on its way to the end.
            let behind = try #require(order.firstIndex(of: "x")) < (order.firstIndex(of: standing) ?? 0)
            let label = "\(resume) x at \(index) (\(relation) \(standing))"
            let moved = new.move(session, now: now).state
            // The engine finds it while it is behind the session (after it, the session is shown it on its way).
            #expect(new.unansweredRequiredSteps(moved, now: now) == (behind ? ["x"] : []), "\(label)")
            if relation != "after" && standing != "senior" { #expect(behind, "\(label)") }
            let (shown, end) = try finish(new, moved)
            #expect(end.status == .completed, "\(label): \(end.status) on \(end.currentStep ?? "-")")
            #expect(shown.contains("x"), "\(label): completed without being asked x (shown \(shown))")
            // The records hold the answer: it could not complete without it.
            let records = try #require(end.completion?.records)
            #expect(records == ["answers"], "\(label)")
        }
    }

    @Test func aSessionThatNeverMovedHasNoStepToAnswerAndCompletesAsBefore() throws {
        let flow = Self.withX(at: 1, resume: .savedStep)
        let engine = FlowEngine(plugin: VersionedPlugin(flows: [flow]), flow: flow)
        let sessions = try recorded(engine)
        #expect(sessions.count > 5)
        for session in sessions {
            #expect(engine.unansweredRequiredSteps(session, now: now) == [], "on \(session.currentStep ?? "-")")
        }
    }

    @Test func aStepAddedInsideABranchIsAskedOfTheSessionsThatTookIt() throws {
        let old = FlowEngine(plugin: VersionedPlugin(flows: [Versions.v1()]), flow: Versions.v1())
        let branch = FlowBranch(
            when: "age over 60", if: { ($0.values["age"]?.intValue ?? 0) > 60 },
            steps: [
                PlainStep(id: "senior", specs: [FieldSpec(id: "mobility", type: .boolean, label: "Mobility aid")]),
                PlainStep(id: "x", specs: [Self.city]),
            ])
        let flow = Flow(
            version: "2",
            steps: [
                PlainStep(id: "a", specs: [Versions.name]), PlainStep(id: "b", specs: [Versions.age], branches: [branch]),
                PlainStep(id: "c", specs: [Versions.color]), PlainStep(id: "d", specs: [Versions.note]),
            ], completion: RecordsNothing())
        let new = FlowEngine(plugin: VersionedPlugin(flows: [flow]), flow: flow)
        let pastTheBranch = try recorded(old).filter { ["c", "d"].contains($0.currentStep) }
        #expect(pastTheBranch.count == 4)
        for session in pastTheBranch {
            let moved = new.move(session, now: now).state
            let tookIt = (session.answers["b"]?["age"]?.intValue ?? 0) > 60
            #expect(new.unansweredRequiredSteps(moved, now: now) == (tookIt ? ["x"] : []), "age \(session.answers["b"] ?? [:])")
            let (shown, end) = try finish(new, moved)
            #expect(end.status == .completed)
            #expect(shown.contains("x") == tookIt, "shown \(shown)")
        }
    }

    @Test func aReviewListsTheStepsStillToAnswer() throws {
        let review = ReviewStep(copy: { _ in StepCopy(title: "All good?", actions: [.continue("Finish")]) })
        let v1 = Flow(version: "1", steps: [PlainStep(id: "a", specs: [Versions.name]), review], completion: RecordsNothing())
        let v2 = Flow(
            version: "2", steps: [PlainStep(id: "a", specs: [Versions.name]), PlainStep(id: "x", specs: [Self.city]), review], completion: RecordsNothing())
        let old = FlowEngine(plugin: VersionedPlugin(flows: [v1]), flow: v1)
        let new = FlowEngine(plugin: VersionedPlugin(flows: [v2]), flow: v2)
        var state = old.start(nil, tenant: "versioned", userId: "r", user: nil, now: now, newID: { UUID().uuidString }).state
        guard
            case .applied(let onReview) = try old.submit(
                state, .init(stepId: "a", revision: state.revision, values: ["name": "Alex"]), now: now, newID: { "id" })
        else { throw PlatformdProcess.Failure(description: "work") }
        state = new.move(onReview.state, now: now).state
        let view = new.view(state, now: now)
        #expect(view.step?.id == "review")
        #expect(view.step?.content["missing"] == [["id": "x", "title": "Step x"]], "\(view.step?.content ?? [:])")
        // Finishing from the review goes to the step instead of completing.
        guard case .applied(let next) = try new.submit(state, .init(stepId: "review", revision: state.revision, values: [:]), now: now, newID: { "id" })
        else { throw PlatformdProcess.Failure(description: "work") }
        #expect(next.state.status == .active && next.state.currentStep == "x")
    }
}

/// The same through the platform and a store: `flows check` names the steps and counts the
/// sessions, a completed session keeps its own version's progress, and the funnel counts a
/// renamed step as one row.
@Suite("Flow versions through the platform: new required steps, progress, renamed steps")
struct FlowVersionPromiseTests {
    func platform(_ flow: Flow, _ store: SQLiteSessionStore) -> Platform {
        Platform(plugins: [VersionedPlugin(flows: [flow])], store: store)
    }

    /// A store with two sessions of version 1 standing on c (a and b answered).
    func twoSessionsOnVersion1PastB(_ directory: URL) async throws -> SQLiteSessionStore {
        let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("v.sqlite").path)
        let old = platform(Versions.v1(), store)
        try await old.registerFlowVersions()
        for user in ["u1", "u2"] {
            var view = try await old.start(tenant: "versioned", userId: user, flow: "onboarding", user: nil)
            view = try await old.submit(
                tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "a", revision: view.revision, values: ["name": "Alex"]))
            _ = try await old.submit(tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "b", revision: view.revision, values: ["age": 30]))
        }
        return store
    }

    @Test func flowsCheckNamesTheRequiredStepsMovedSessionsMustAnswerAndStaysSafe() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await twoSessionsOnVersion1PastB(directory)
            let new = platform(FlowVersionRequiredStepTests.withX(at: 1, resume: .savedStep), store)
            try await new.registerFlowVersions()
            let report = try await new.checkFlows()
            #expect(report.isSafe, "nothing is lost: the sessions are asked")
            let move = try #require(report.flows.first?.moves.first)
            #expect(move.sessionsWithUnanswered == 2)
            #expect(move.unanswered.map(\.step) == ["x"] && move.unanswered.map(\.sessions) == [2])
            #expect(report.lines.contains("    2 must answer x, a required step they have not seen"), "\(report.lines)")
            #expect(report.json["flows"]?[0]?["moves"]?[0]?["unanswered"] == [["step": "x", "sessions": 2]])
            try await store.close()
        }
    }

    @Test func aCompletedSessionCountsTheStepsOfItsOwnVersion() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("v.sqlite").path)
            let old = platform(Versions.v1(), store)
            try await old.registerFlowVersions()
            var view = try await old.start(tenant: "versioned", userId: "done", flow: "onboarding", user: nil)
            for (step, values) in [("a", ["name": "Alex"]), ("b", ["age": 30]), ("c", ["color": "red"]), ("d", [:])] as [(String, [String: JSONValue])] {
                view = try await old.submit(
                    tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: step, revision: view.revision, values: values))
            }
            #expect(view.status == .completed)
            let total = view.progress.total
            let new = platform(FlowVersionRequiredStepTests.withX(at: 1, resume: .savedStep), store)
            try await new.registerFlowVersions()
            let read = try await new.get(tenant: "versioned", key: .id(view.sessionId))
            #expect(read.flowVersion == "1")
            #expect(read.progress.total == total && read.progress.index == total, "\(read.progress) (version 1 counts \(total))")
            try await store.close()
        }
    }

    @Test func theFunnelCountsARenamedStepAsOneRow() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await twoSessionsOnVersion1PastB(directory)
            let renamed = try #require(Versions.changes.first { $0.name == "step renamed, declared" })
            let new = platform(renamed.flow, store)
            try await new.registerFlowVersions()
            var view = try await new.start(tenant: "versioned", userId: "u3", flow: "onboarding", user: nil)
            view = try await new.submit(
                tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "a", revision: view.revision, values: ["name": "Alex"]))
            _ = try await new.submit(
                tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "bee", revision: view.revision, values: ["age": 30]))
            let funnel = try await new.funnel(tenant: "versioned", flow: "onboarding", since: nil, until: nil)
            let ids = funnel.steps.map(\.id)
            #expect(!ids.contains("b"), "version 1's b is counted as bee: \(ids)")
            #expect(funnel.steps.first { $0.id == "bee" }?.reached == 3, "\(funnel.steps)")
            try await store.close()
        }
    }

    @Test func aReadOnlyStoreAnswersTheCheckAndLeavesTheFileAsItWas() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v.sqlite").path
            let store = try await SQLiteSessionStore.open(path: path)
            let old = platform(Versions.v1(), store)
            try await old.registerFlowVersions()
            _ = try await old.start(tenant: "versioned", userId: "u1", flow: "onboarding", user: nil)
            try await store.close()
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let reader = try await SQLiteSessionStore.open(path: path, readOnly: true)
            let new = platform(FlowVersionRequiredStepTests.withX(at: 1, resume: .savedStep), reader)
            try await new.learnFlowVersions()
            let report = try await new.checkFlows()
            #expect(report.flows.first?.inFlight.first?.sessions == 1)
            await #expect(throws: (any Error).self) { try await new.registerFlowVersions() }
            try await reader.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file changed")
        }
    }
}
