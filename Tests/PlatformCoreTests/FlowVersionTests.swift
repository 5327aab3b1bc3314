import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// A plain question step for building flow versions side by side.
struct PlainStep: FlowStep {
    let id: String
    var specs: [FieldSpec] = []
    var branches: [FlowBranch] = []
    let kind = StepKind.question

    func fields(in context: StepContext) -> [FieldSpec] { specs }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: "Step \(id)", actions: [.continue()]) }
}

struct RecordsNothing: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        CompletionResult(records: ["answers": .object(context.answers.mapValues { .object($0) })], message: "Done")
    }
}

/// A plugin serving `flows` (the newest) and `olderFlows`.
struct VersionedPlugin: OnboardingPlugin {
    let id = "versioned"
    let name = "Versioned"
    let version = "1.0.0"
    var flows: [Flow]
    var olderFlows: [Flow] = []
}

/// Version 1, and one kind of change each for version 2.
enum Versions {
    static let name = FieldSpec(id: "name", type: .text, label: "Name", minLength: 2, maxLength: 40)
    static let age = FieldSpec(id: "age", type: .integer, label: "Age", min: 1, max: 120)
    static let color = FieldSpec(
        id: "color", type: .choice, label: "Color",
        options: [
            FieldOption(value: "red", label: "Red"), FieldOption(value: "blue", label: "Blue"),
        ])
    static let note = FieldSpec(id: "note", type: .text, label: "Note", required: false, maxLength: 200)
    static let senior = FlowBranch(
        when: "age over 60", if: { ($0.values["age"]?.intValue ?? 0) > 60 },
        steps: [
            PlainStep(
                id: "senior",
                specs: [
                    FieldSpec(id: "mobility", type: .boolean, label: "Mobility aid")
                ])
        ])

    /// a (name), b (age; over 60 detours through senior), c (color), d (note).
    static func v1(_ version: String = "1") -> Flow {
        Flow(
            version: version,
            steps: [
                PlainStep(id: "a", specs: [name]), PlainStep(id: "b", specs: [age], branches: [senior]),
                PlainStep(id: "c", specs: [color]), PlainStep(id: "d", specs: [note]),
            ], completion: RecordsNothing())
    }

    struct Change: Sendable, CustomTestStringConvertible {
        var name: String
        var flow: Flow
        /// Answers (step.field, version 1 ids) the move may drop.
        var mayDrop: Set<String>
        /// Whether `flows check` must call it unsafe for a session that had those answers.
        var undeclaredLoss: Bool
        var testDescription: String { name }
    }

    static let changes: [Change] = [
        Change(
            name: "step renamed, declared",
            flow: Flow(
                version: "2",
                steps: [
                    PlainStep(id: "a", specs: [name]), PlainStep(id: "bee", specs: [age], branches: [senior]),
                    PlainStep(id: "c", specs: [color]), PlainStep(id: "d", specs: [note]),
                ], completion: RecordsNothing(), migrations: [FlowMigration(from: "1", renamedSteps: ["b": "bee"])]),
            mayDrop: [], undeclaredLoss: false),
        Change(
            name: "step renamed, not declared",
            flow: Flow(
                version: "2",
                steps: [
                    PlainStep(id: "a", specs: [name]), PlainStep(id: "bee", specs: [age], branches: [senior]),
                    PlainStep(id: "c", specs: [color]), PlainStep(id: "d", specs: [note]),
                ], completion: RecordsNothing()),
            mayDrop: ["b.age"], undeclaredLoss: true),
        Change(
            name: "step removed, declared",
            flow: Flow(
                version: "2",
                steps: [
                    PlainStep(id: "a", specs: [name]), PlainStep(id: "b", specs: [age], branches: [senior]), PlainStep(id: "d", specs: [note]),
                ], completion: RecordsNothing(), migrations: [FlowMigration(from: "1", removedSteps: ["c": "d"])]),
            mayDrop: ["c.color"], undeclaredLoss: false),
        Change(
            name: "step added",
            flow: Flow(
                version: "2",
                steps: [
                    PlainStep(id: "a", specs: [name]), PlainStep(id: "x", specs: [FieldSpec(id: "city", type: .text, label: "City")]),
                    PlainStep(id: "b", specs: [age], branches: [senior]), PlainStep(id: "c", specs: [color]), PlainStep(id: "d", specs: [note]),
                ], completion: RecordsNothing()),
            mayDrop: [], undeclaredLoss: false),
        Change(
            name: "field renamed, declared",
            flow: Flow(
                version: "2",
                steps: [
                    PlainStep(id: "a", specs: [name]),
                    PlainStep(
                        id: "b", specs: [FieldSpec(id: "years", type: .integer, label: "Age", min: 1, max: 120)],
                        branches: [
                            FlowBranch(
                                when: "over 60", if: { ($0.values["years"]?.intValue ?? 0) > 60 },
                                steps: [
                                    PlainStep(
                                        id: "senior",
                                        specs: [
                                            FieldSpec(id: "mobility", type: .boolean, label: "Mobility aid")
                                        ])
                                ])
                        ]),
                    PlainStep(id: "c", specs: [color]), PlainStep(id: "d", specs: [note]),
                ], completion: RecordsNothing(), migrations: [FlowMigration(from: "1", renamedFields: ["age": "years"])]),
            mayDrop: [], undeclaredLoss: false),
        Change(
            name: "field removed",
            flow: Flow(
                version: "2",
                steps: [
                    PlainStep(id: "a", specs: [name]), PlainStep(id: "b", specs: [age], branches: [senior]),
                    PlainStep(id: "c", specs: [color]), PlainStep(id: "d", specs: []),
                ], completion: RecordsNothing()),
            mayDrop: ["d.note"], undeclaredLoss: true),
        Change(
            name: "field made stricter",
            flow: Flow(
                version: "2",
                steps: [
                    PlainStep(id: "a", specs: [FieldSpec(id: "name", type: .text, label: "Name", minLength: 10, maxLength: 40)]),
                    PlainStep(id: "b", specs: [age], branches: [senior]),
                    PlainStep(id: "c", specs: [FieldSpec(id: "color", type: .choice, label: "Color", options: [FieldOption(value: "blue", label: "Blue")])]),
                    PlainStep(id: "d", specs: [note]),
                ], completion: RecordsNothing()),
            mayDrop: [], undeclaredLoss: false),
        Change(
            name: "branch changed",
            flow: Flow(
                version: "2",
                steps: [
                    PlainStep(id: "a", specs: [name]), PlainStep(id: "b", specs: [age]),
                    PlainStep(id: "c", specs: [color]), PlainStep(id: "d", specs: [note]),
                ], completion: RecordsNothing()),
            mayDrop: ["senior.mobility"], undeclaredLoss: true),
    ]

    /// Answers that walk version 1 (through the senior detour when `age` is over 60).
    static func answers(age: Int) -> [String: [String: JSONValue]] {
        ["a": ["name": "Alex"], "b": ["age": .int(Int64(age))], "senior": ["mobility": true], "c": ["color": "red"], "d": ["note": "hi"]]
    }
}

@Suite("Flow versions: sessions in flight across a change")
struct FlowVersionTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A session of version 1 recorded on each of its steps (the senior detour included).
    func recordedSessions(_ engine: FlowEngine) throws -> [SessionState] {
        var recorded: [SessionState] = []
        for age in [30, 70] {
            var state = engine.start(nil, tenant: "versioned", userId: "u\(age)", user: nil, now: now, newID: { UUID().uuidString }).state
            let answers = Versions.answers(age: age)
            while let step = state.currentStep {
                recorded.append(state)
                let submit = FlowEngine.Submit(stepId: step, revision: state.revision, values: answers[step] ?? [:])
                guard case .applied(let transition) = try engine.submit(state, submit, now: now, newID: { UUID().uuidString }) else {
                    Issue.record("step \(step) asked for work")
                    break
                }
                state = transition.state
            }
        }
        return recorded
    }

    /// Answers the current step from its served fields, until the flow completes.
    func walkToCompletion(_ engine: FlowEngine, _ start: SessionState) throws -> SessionState {
        var state = start
        var answers = GenericAnswers()
        for _ in 0..<40 {
            guard state.status == .active, state.currentStep != nil else { return state }
            let view = engine.view(state, now: now)
            let step = try #require(view.step, "a session in flight has a step")
            let fields = try step.fields.map { try JSONValue(encoding: $0) }
            var values: [String: JSONValue] = [:]
            for field in fields {
                guard let id = field["id"]?.stringValue else { continue }
                let attempt = answers.refusals[id, default: 0]
                // A saved answer the new rules refuse is shown with its error: answer afresh.
                let refusedBefore = step.errors.contains { $0.field == id }
                if attempt == 0, !refusedBefore, let saved = field["value"].nonNull {
                    values[id] = saved
                    continue
                }
                if let made = GenericAnswers.make(field, attempt: attempt) { values[id] = made }
            }
            do {
                guard
                    case .applied(let transition) = try engine.submit(
                        state, .init(stepId: step.id, revision: state.revision, values: values), now: now, newID: { UUID().uuidString })
                else { throw PlatformdProcess.Failure(description: "work") }
                state = transition.state
            } catch FlowError.validationFailed(let errors, _) {
                guard answers.retry(after: try errors.map { try JSONValue(encoding: $0) }) else { throw FlowError.validationFailed(errors, session: nil) }
            }
        }
        return state
    }

    @Test(
        "every recorded session of version 1 moves onto each kind of change with a step, loses only what it must, and completes",
        arguments: Versions.changes)
    func sessionsAtEveryStepMoveSafely(change: Versions.Change) throws {
        let old = FlowEngine(plugin: VersionedPlugin(flows: [Versions.v1()]), flow: Versions.v1())
        let new = FlowEngine(plugin: VersionedPlugin(flows: [change.flow]), flow: change.flow)
        #expect(old.fingerprint != new.fingerprint, "the change must change the fingerprint")
        #expect(!new.runs(try #require(recordedSessions(old).first)))
        for recorded in try recordedSessions(old) {
            let move = new.move(recorded, now: now)
            let place = "\(change.name), recorded on \(recorded.currentStep ?? "-")"
            // Never a blank view: an active session stands on a step of the served flow.
            let current = try #require(move.state.currentStep, "\(place): no current step")
            #expect(change.flow.step(current) != nil, "\(place): stands on \(current), not a step of version 2")
            #expect(new.view(move.state, now: now).step != nil, "\(place): a view without a step")
            #expect(move.state.flowVersion == "2" && new.runs(move.state), "\(place)")
            #expect(move.events.first?.kind == .migrated, "\(place)")
            // Only the answers the change takes away are dropped.
            for dropped in move.dropped {
                #expect(change.mayDrop.contains("\(dropped.step).\(dropped.field)"), "\(place): dropped \(dropped.step).\(dropped.field)")
            }
            let kept = Set(move.state.answers.flatMap { step, values in values.keys.map { "\(step).\($0)" } })
            let before = recorded.answers.flatMap { step, values in values.keys.map { "\(step).\($0)" } }
            #expect(kept.count + move.dropped.count == before.count, "\(place): answers lost beyond the dropped ones")
            if !change.undeclaredLoss { #expect(!move.losesUndeclared, "\(place): an undeclared loss") }
            // And the person can go on to the end on the new version (no defect on the way).
            let finished = try walkToCompletion(new, move.state)
            #expect(finished.status == .completed, "\(place): ended \(finished.status.rawValue) on \(finished.currentStep ?? "-")")
        }
    }

    @Test func aRenamedStepWithoutADeclarationResumesAtTheLastStepThatStillExists() throws {
        let old = FlowEngine(plugin: VersionedPlugin(flows: [Versions.v1()]), flow: Versions.v1())
        let change = try #require(Versions.changes.first { $0.name == "step renamed, not declared" })
        let new = FlowEngine(plugin: VersionedPlugin(flows: [change.flow]), flow: change.flow)
        let onB = try #require(recordedSessions(old).first { $0.currentStep == "b" })
        let move = new.move(onB, now: now)
        #expect(move.resumption == FlowMove.Resumption(from: "b", to: "a", declared: false))
        #expect(move.state.currentStep == "a")
        #expect(move.state.revision == onB.revision + 1, "a client holding the old step gets -32003, not a submit to a step it never showed")
        #expect(move.events.map(\.kind) == [.migrated, .arrived])
        #expect(move.losesUndeclared)
    }

    @Test func aRemovedStepResumesWhereTheDeclarationSays() throws {
        let old = FlowEngine(plugin: VersionedPlugin(flows: [Versions.v1()]), flow: Versions.v1())
        let change = try #require(Versions.changes.first { $0.name == "step removed, declared" })
        let new = FlowEngine(plugin: VersionedPlugin(flows: [change.flow]), flow: change.flow)
        let onC = try #require(recordedSessions(old).first { $0.currentStep == "c" })
        let move = new.move(onC, now: now)
        #expect(move.resumption == FlowMove.Resumption(from: "c", to: "d", declared: true))
        #expect(move.declared && !move.losesUndeclared)
        #expect(move.state.answers["a"] == ["name": "Alex"] && move.state.answers["b"] != nil)
    }

    @Test func aSavedAnswerTheNewRulesRefuseIsShownWithItsErrorAndKept() throws {
        let old = FlowEngine(plugin: VersionedPlugin(flows: [Versions.v1()]), flow: Versions.v1())
        let change = try #require(Versions.changes.first { $0.name == "field made stricter" })
        let new = FlowEngine(plugin: VersionedPlugin(flows: [change.flow]), flow: change.flow)
        let onD = try #require(recordedSessions(old).first { $0.currentStep == "d" })
        let move = new.move(onD, now: now)
        #expect(move.state.currentStep == "d", "nobody is sent back for a stricter rule")
        #expect(move.dropped.isEmpty)
        #expect(move.refused["a"]?.map(\.field) == ["name"])
        #expect(move.refused["c"]?.map(\.field) == ["color"])
        #expect(move.state.answers["a"]?["name"] == "Alex", "the refused answer is kept, to be shown")
        // Back on step a, the person sees the saved name with its error.
        let back = try new.goto(move.state, stepId: "a", revision: move.state.revision, now: now)
        let view = new.view(back.state, now: now)
        #expect(view.step?.errors.map(\.field) == ["name"])
        #expect(view.step?.fields.first?.value == "Alex")
    }

    @Test func theFingerprintFollowsTheShapeAndNothingElse() throws {
        let plugin = VersionedPlugin(flows: [Versions.v1()])
        let one = FlowEngine(plugin: plugin, flow: Versions.v1())
        #expect(FlowEngine(plugin: plugin, flow: Versions.v1()).fingerprint == one.fingerprint)
        // Another version string over the same shape: the same fingerprint.
        #expect(FlowEngine(plugin: plugin, flow: Versions.v1("7")).fingerprint == one.fingerprint)
        for change in Versions.changes {
            #expect(FlowEngine(plugin: plugin, flow: change.flow).fingerprint != one.fingerprint, "\(change.name)")
        }
    }
}

/// Versions through the platform and a store: pinning, moving on first touch, the funnel by
/// version, and a rolling deploy's newer version left alone.
@Suite("Flow versions through the platform")
struct FlowVersionPlatformTests {
    func platform(_ plugin: VersionedPlugin, _ store: SQLiteSessionStore) -> Platform {
        Platform(plugins: [plugin], store: store)
    }

    @Test func aSessionOfAVersionNoLongerServedMovesOnItsFirstReadOnceAndForGood() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("v.sqlite").path)
            let old = platform(VersionedPlugin(flows: [Versions.v1()]), store)
            try await old.registerFlowVersions()
            var view = try await old.start(tenant: "versioned", userId: "u1", flow: "onboarding", user: nil)
            #expect(view.flowVersion == "1")
            view = try await old.submit(
                tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "a", revision: view.revision, values: ["name": "Alex"]))
            #expect(view.step?.id == "b")

            // The deploy: step b renamed without a declaration.
            let change = try #require(Versions.changes.first { $0.name == "step renamed, not declared" })
            let new = platform(VersionedPlugin(flows: [change.flow]), store)
            try await new.registerFlowVersions()
            let report = try await new.checkFlows()
            #expect(!report.isSafe)
            #expect(report.flows.first?.moves.first?.resumed.first?.to == "a")

            let moved = try await new.get(tenant: "versioned", key: .id(view.sessionId))
            #expect(moved.flowVersion == "2")
            #expect(moved.step?.id == "a", "resumed at the last step of its path that still exists")
            #expect(moved.revision == view.revision + 1)
            // Moved for good: the store holds it on version 2, with one migrated event.
            let stored = try #require(try await store.session(tenant: "versioned", key: .id(view.sessionId)))
            #expect(stored.flowVersion == "2")
            _ = try await new.get(tenant: "versioned", key: .id(view.sessionId))
            let events = try await store.events(tenant: "versioned", flow: "onboarding", since: nil, until: nil)
            #expect(events.filter { $0.event.kind == .migrated }.count == 1)
            // A client still holding step b at the old revision gets -32003 with the moved view.
            await expectError(.conflict) {
                _ = try await new.submit(
                    tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "b", revision: view.revision, values: ["age": 30]))
            }
            // The funnel counts it under the version it started on.
            let funnel = try await new.funnel(tenant: "versioned", flow: "onboarding", since: nil, until: nil)
            #expect(funnel.versions == [.init(version: "1", started: 1, completed: 0)])
            try await store.close()
        }
    }

    @Test func aSubmitRefusedOnAMovedSessionStillKeepsTheMove() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("v.sqlite").path)
            let old = platform(VersionedPlugin(flows: [Versions.v1()]), store)
            var view = try await old.start(tenant: "versioned", userId: "u1", flow: "onboarding", user: nil)
            view = try await old.submit(
                tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "a", revision: view.revision, values: ["name": "Alex"]))
            let change = try #require(Versions.changes.first { $0.name == "step renamed, declared" })
            let new = platform(VersionedPlugin(flows: [change.flow]), store)
            // The old client submits b, now bee: the move keeps it on the same place, the submit is -32003.
            await expectError(.conflict) {
                _ = try await new.submit(
                    tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "b", revision: view.revision, values: ["age": 30]))
            }
            let stored = try #require(try await store.session(tenant: "versioned", key: .id(view.sessionId)))
            #expect(stored.flowVersion == "2" && stored.currentStep == "bee")
            let next = try await new.submit(
                tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "bee", revision: stored.revision, values: ["age": 30]))
            #expect(next.step?.id == "c")
            try await store.close()
        }
    }

    @Test func anOlderVersionStillServedKeepsItsSessionsNewOnesStartOnTheNewest() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("v.sqlite").path)
            let old = platform(VersionedPlugin(flows: [Versions.v1()]), store)
            let first = try await old.start(tenant: "versioned", userId: "u1", flow: "onboarding", user: nil)
            let change = try #require(Versions.changes.first { $0.name == "step removed, declared" })
            let both = platform(VersionedPlugin(flows: [change.flow], olderFlows: [Versions.v1()]), store)
            try await both.registerFlowVersions()
            #expect(try await both.checkFlows().flows.first?.inFlight.map(\.fate) == ["served"])
            let pinned = try await both.get(tenant: "versioned", key: .id(first.sessionId))
            #expect(pinned.flowVersion == "1")
            let fresh = try await both.start(tenant: "versioned", userId: "u2", flow: "onboarding", user: nil)
            #expect(fresh.flowVersion == "2")
            // The pinned session walks version 1 to its end, step c included.
            var view = pinned
            for (step, values) in [("a", ["name": "Alex"]), ("b", ["age": 30]), ("c", ["color": "red"]), ("d", [:])] as [(String, [String: JSONValue])] {
                #expect(view.step?.id == step)
                view = try await both.submit(
                    tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: step, revision: view.revision, values: values))
            }
            #expect(view.status == .completed && view.flowVersion == "1")
            let funnel = try await both.funnel(tenant: "versioned", flow: "onboarding", since: nil, until: nil, version: "1")
            #expect(funnel.started == 1 && funnel.completed == 1)
            #expect(funnel.versions == [.init(version: "1", started: 1, completed: 1), .init(version: "2", started: 1, completed: 0)])
            try await store.close()
        }
    }

    /// Two hosts on one database (two stores on one SQLite file, or two pools on one PostgreSQL
    /// schema): the old binary's and the new one's, as during a rolling deploy.
    func twoHosts(_ kind: StoreKind) async throws -> (old: any PlatformStore, new: any PlatformStore)? {
        switch kind {
        case .postgres:
            let schema = TestPostgres.freshSchema()
            guard let old = try await TestPostgres.store(schema: schema), let new = try await TestPostgres.store(schema: schema) else { return nil }
            return (old, new)
        default:
            let path = try TemporaryDirectory.make().appendingPathComponent("v.sqlite").path
            return (try await SQLiteSessionStore.open(path: path), try await SQLiteSessionStore.open(path: path))
        }
    }

    @Test("a rolling deploy: the old host never moves back a session the new host moved; it answers -32008, on PostgreSQL", .postgres)
    func aSessionOnAVersionANewerHostServesIsLeftAloneWith32008OnPostgres() async throws {
        try await aSessionOnAVersionANewerHostServesIsLeftAloneWith32008(kind: .postgres)
    }

    @Test("a rolling deploy: the old host never moves back a session the new host moved; it answers -32008", arguments: [StoreKind.file])
    func aSessionOnAVersionANewerHostServesIsLeftAloneWith32008(kind: StoreKind) async throws {
        guard let hosts = try await twoHosts(kind) else { return }
        let old = Platform(plugins: [VersionedPlugin(flows: [Versions.v1()])], store: hosts.old)
        try await old.registerFlowVersions()
        // A session the old host started, before the new binary came up.
        var early = try await old.start(tenant: "versioned", userId: "early", flow: "onboarding", user: nil)
        early = try await old.submit(
            tenant: "versioned", sessionId: early.sessionId, command: .init(stepId: "a", revision: early.revision, values: ["name": "Alex"]))
        let change = try #require(Versions.changes.first { $0.name == "step renamed, declared" })
        let new = Platform(plugins: [VersionedPlugin(flows: [change.flow])], store: hosts.new)
        try await new.registerFlowVersions()
        var view = try await new.start(tenant: "versioned", userId: "u1", flow: "onboarding", user: nil)
        view = try await new.submit(
            tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "a", revision: view.revision, values: ["name": "Alex"]))
        #expect(view.step?.id == "bee")
        // The old host never moves it back onto version 1: it answers -32008 (retry elsewhere).
        await expectError(.unavailable) { _ = try await old.get(tenant: "versioned", key: .id(view.sessionId)) }
        await expectError(.unavailable) {
            _ = try await old.submit(
                tenant: "versioned", sessionId: view.sessionId, command: .init(stepId: "bee", revision: view.revision, values: ["age": 30]))
        }
        let stored = try #require(try await hosts.new.session(tenant: "versioned", key: .id(view.sessionId)))
        #expect(stored.flowVersion == "2" && stored.currentStep == "bee" && stored.revision == view.revision && stored.answers["a"] == ["name": "Alex"])
        #expect(try await old.checkFlows().flows.first?.inFlight.contains { $0.fate == "newer" } == true)
        // The old host's own session: served by the old host while it runs, moved (renamed step
        // carried by the declaration) when the new host first touches it; then the old host leaves it alone.
        let stillOld = try await old.get(tenant: "versioned", key: .id(early.sessionId))
        #expect(stillOld.flowVersion == "1" && stillOld.step?.id == "b")
        let moved = try await new.get(tenant: "versioned", key: .id(early.sessionId))
        #expect(moved.flowVersion == "2" && moved.step?.id == "bee" && moved.revision == early.revision)
        await expectError(.unavailable) { _ = try await old.get(tenant: "versioned", key: .id(early.sessionId)) }
        let done = try await new.submit(
            tenant: "versioned", sessionId: early.sessionId, command: .init(stepId: "bee", revision: moved.revision, values: ["age": 30]))
        #expect(done.step?.id == "c")
        try await hosts.old.close()
        try await hosts.new.close()
    }
}

/// Expects `body` to be refused with the contract's `code`.
func expectError(_ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected error \(code.rawValue), got a result", sourceLocation: sourceLocation)
    } catch let error as FlowError {
        #expect(RPCError(error).code == code.rawValue, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a FlowError, got \(error)", sourceLocation: sourceLocation)
    }
}
