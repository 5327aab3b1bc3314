import Foundation
import GRDB
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

@testable import SQLiteStore

/// SQLite moves the experiments' rollup after the commits, from the events past a mark, instead
/// of inside every enrolled command's commit: the commit writes its session and events only,
/// and the fold (a moment later, before results are read, before events are pruned) leaves the
/// rollup exactly where the events say it is.
@Suite("Experiments: the rollup folded from the events (SQLite)")
struct ExperimentRollupFoldTests {
    static let experiment = ExperimentEnrolmentTests.experiment(weights: (50, 50))

    /// People walk part of the way, some go Back, some complete: `count` of them.
    static func walk(_ d: FlowDriver, clock: TestClock, count: Int, prefix: String, seed: UInt64 = 11) async throws {
        var random = SplitMix64(seed: seed)
        for index in 0..<count {
            var view = try await d.start("\(prefix)-\(index)", flow: "quick")
            let stopAfter = Int.random(in: 0...8, using: &random)
            var moves = 0
            while view.status == .active, let step = view.step, moves < stopAfter {
                clock.advance(seconds: Double(Int.random(in: 2...30, using: &random)))
                if moves > 0, Int.random(in: 0..<4, using: &random) == 0, step.actions.contains(where: { $0.id == "back" }) {
                    view = try await d.back(view)
                } else {
                    view = try await d.submit(view, GenericAnswers().valuesWithoutSearch(for: try JSONValue(encoding: step)["fields"]?.arrayValue ?? []))
                }
                moves += 1
            }
        }
    }

    /// The rollup as stored, in a stable order.
    static func stored(_ db: Database) throws -> [String] {
        let assignments = try Row.fetchAll(
            db, sql: "SELECT session_id, last_step, completed_at, seconds_to_complete FROM experiment_outcomes ORDER BY session_id")
        let steps = try Row.fetchAll(db, sql: "SELECT session_id, step, variant, went_on, seconds FROM experiment_steps ORDER BY session_id, step")
        return (assignments + steps).map(Self.values)
    }

    /// The rollup as the events say it should be, computed whole from them (the backfill the
    /// rollup's migration runs).
    static func fromTheEvents(_ db: Database) throws -> [String] {
        let assignments = try Row.fetchAll(
            db,
            sql: """
                SELECT session_id,
                    (SELECT step FROM events e WHERE e.session_id = a.session_id AND e.kind = 'arrived' ORDER BY e.id DESC LIMIT 1),
                    (SELECT MIN(at) FROM events e WHERE e.session_id = a.session_id AND e.kind = 'completed') AS done,
                    (SELECT MAX(0, MIN(at) - a.assigned_at) FROM events e WHERE e.session_id = a.session_id AND e.kind = 'completed')
                FROM experiment_assignments a ORDER BY session_id
                """)
        let steps = try Row.fetchAll(
            db,
            sql: """
                SELECT a.session_id, e.step, a.variant, MAX(e.kind = 'left'), SUM(CASE WHEN e.kind = 'left' THEN e.seconds END)
                FROM experiment_assignments a JOIN events e ON e.session_id = a.session_id
                WHERE e.kind IN ('arrived', 'left') AND e.step IS NOT NULL
                GROUP BY a.session_id, e.step ORDER BY a.session_id, e.step
                """)
        return (assignments + steps).map(Self.values)
    }

    /// A row's values only: the two reads name their columns differently.
    static func values(_ row: Row) -> String {
        row.databaseValues.map(\.description).joined(separator: " | ")
    }

    /// A store after `count` enrolled people walked: in memory (no folds of its own) unless a
    /// file's `path` is given.
    static func walked(
        _ count: Int, prefix: String, path: String = SQLiteSessionStore.memoryPath
    ) async throws -> (SQLiteSessionStore, FlowDriver, TestClock) {
        let store = try await SQLiteSessionStore.open(path: path)
        let clock = TestClock()
        let d = try await ExperimentEnrolmentTests.driver([Self.experiment], store: store, clock: clock)
        try await walk(d, clock: clock, count: count, prefix: prefix)
        return (store, d, clock)
    }

    static func count(_ store: SQLiteSessionStore, _ sql: String) async throws -> Int {
        try await store.writer.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }

    @Test func anEnrolledCommandsCommitLeavesTheRollupToTheFold() async throws {
        let (store, _, _) = try await Self.walked(30, prefix: "c")
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_assignments") == 30)
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_steps") == 0, "the commits wrote no rollup rows")
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_outcomes") == 0, "nor outcomes")

        try await store.foldRollup()
        let (stored, expected, mark, newest) = try await store.writer.read { db in
            (
                try Self.stored(db), try Self.fromTheEvents(db), try Int64.fetchOne(db, sql: "SELECT event_id FROM experiment_rollup_mark"),
                try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM events")
            )
        }
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_steps") > 30)
        #expect(stored == expected)
        #expect(mark == newest, "the mark stands at the newest event")

        // Folding again moves nothing: each event is counted once.
        try await store.foldRollup()
        #expect(try await store.writer.read(Self.stored) == stored)
        try await store.close()
    }

    @Test func aFoldInManySmallChunksEndsWhereOneFoldDoes() async throws {
        let (store, _, _) = try await Self.walked(20, prefix: "k")
        var transactions = 0
        while try await store.committer.write({ db in try SQLiteSessionStore.foldRollup(db, chunk: 3) }) { transactions += 1 }
        #expect(transactions > 10, "the events took many chunks")
        let (stored, expected) = try await store.writer.read { db in (try Self.stored(db), try Self.fromTheEvents(db)) }
        #expect(stored == expected)
        try await store.close()
    }

    /// Small chunks keep each batch short, but a fold far behind takes big ones until it has
    /// caught up: writers filling whole batches must not leave it ever further behind.
    @Test func aFoldFarBehindCatchesUpInBigChunksThenTakesSmallOnes() async throws {
        let (store, _, _) = try await Self.walked(20, prefix: "c")
        let mark = { try await store.writer.read { db in try Int64.fetchOne(db, sql: "SELECT event_id FROM experiment_rollup_mark") ?? 0 } }
        let (start, newest) = try await store.writer.read { db in
            (try Int64.fetchOne(db, sql: "SELECT event_id FROM experiment_rollup_mark") ?? 0, try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM events") ?? 0)
        }
        #expect(newest - start > 100, "\(newest - start) events behind")
        var steps: [Int64] = []
        var last = start
        var more = true
        while more {
            more = try await store.committer.write { db in try SQLiteSessionStore.foldRollup(db, chunk: 3, catchingUpPast: 100) }
            let now = try await mark()
            steps.append(now - last)
            last = now
        }
        // More than 100 behind: 100 at once; then 3 at a time.
        var planned: [Int64] = []
        var left = newest - start
        while left > 0 {
            planned.append(left > 100 ? 100 : min(3, left))
            left -= planned.last ?? left
        }
        #expect(steps == planned)
        #expect(steps.first == 100 && steps.contains(3))
        let (stored, expected) = try await store.writer.read { db in (try Self.stored(db), try Self.fromTheEvents(db)) }
        #expect(stored == expected)
        try await store.close()
    }

    @Test func aFileStoreFoldsAMomentAfterTheCommitsWithoutARead() async throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("fold.sqlite").path
        let (store, _, _) = try await Self.walked(12, prefix: "b", path: path)
        let deadline = ContinuousClock.now + .seconds(20)
        var stored: [String] = []
        var expected: [String] = ["(not read)"]
        while ContinuousClock.now < deadline {
            (stored, expected) = try await store.writer.read { db in (try Self.stored(db), try Self.fromTheEvents(db)) }
            if stored == expected { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(stored == expected, "folded by the store's own task, no result read")
        try await store.close()

        // Reopened, the rollup and its mark are where they were: nothing is counted twice.
        let reopened = try await SQLiteSessionStore.open(path: path)
        try await reopened.foldRollup()
        #expect(try await reopened.writer.read(Self.stored) == stored)
        try await reopened.close()
    }

    @Test func withNobodyEnrolledTheMarkJumpsAndNothingBehindWritesNothing() async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let clock = TestClock()
        let d = try await ExperimentEnrolmentTests.driver([], store: store, clock: clock)
        try await Self.walk(d, clock: clock, count: 5, prefix: "n")
        let before = store.groupCommits.transactions
        try await store.foldRollup()
        #expect(store.groupCommits.transactions == before + 1, "one transaction moved the mark")
        let (mark, newest) = try await store.writer.read { db in
            (try Int64.fetchOne(db, sql: "SELECT event_id FROM experiment_rollup_mark"), try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM events"))
        }
        #expect(mark == newest)
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_steps") == 0)
        try await store.foldRollup()
        #expect(store.groupCommits.transactions == before + 1, "nothing behind: no transaction")
        try await store.close()
    }

    /// Each event moves the rollup as it did one at a time, whatever else shares its fold: a
    /// leaving of a step with no row yet (a step renamed by a version move, then gone back to)
    /// counts for nothing, and a completion counts once.
    @Test(arguments: [1, 2, 3, 4, 64] as [Int64])
    func aFoldMovesTheRollupAsEachEventDidInItsOrder(chunk: Int64) async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let events: [(kind: String, step: String?, seconds: Double?, at: Double)] = [
            ("left", "renamed", 5, 100), ("arrived", "renamed", nil, 100), ("left", "renamed", 3, 103), ("arrived", "next", nil, 103),
            ("completed", nil, nil, 110), ("completed", nil, nil, 120),
        ]
        try await store.committer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO experiment_assignments (tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at)
                    VALUES ('t', 'x', 's', 'u', 'a', 'f', 'S', 90)
                    """)
            for event in events {
                try db.execute(
                    sql: "INSERT INTO events (tenant, flow, session_id, kind, step, seconds, at) VALUES ('t', 'f', 'S', ?, ?, ?, ?)",
                    arguments: [event.kind, event.step, event.seconds, event.at])
            }
        }
        while try await store.committer.write({ db in try SQLiteSessionStore.foldRollup(db, chunk: chunk) }) {}
        let stored = try await store.writer.read(Self.stored)
        #expect(
            stored == [
                "\"S\" | \"next\" | 110.0 | 20.0", "\"S\" | \"next\" | \"a\" | 0 | NULL", "\"S\" | \"renamed\" | \"a\" | 1 | 3.0",
            ], "chunk \(chunk)")
        try await store.close()
    }

    @Test func aStoreClosedWithEventsUnfoldedFoldsThemAsItCloses() async throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("close.sqlite").path
        let (store, _, _) = try await Self.walked(4, prefix: "z", path: path)
        try await store.close()
        let reader = try await SQLiteSessionStore.open(path: path, readOnly: true)
        let (stored, expected, behind) = try await reader.writer.read { db in
            (try Self.stored(db), try Self.fromTheEvents(db), try SQLiteSessionStore.rollupBehind(db))
        }
        #expect(!behind, "the close folded every event")
        #expect(stored == expected)
        try await reader.close()
    }

    @Test func eventsArePrunedOnlyOnceTheRollupCountedThem() async throws {
        let (store, _, clock) = try await Self.walked(10, prefix: "p")
        let expected = try await store.writer.read(Self.fromTheEvents)
        let pruned = try await store.pruneEvents(tenant: "fixture", flows: ["quick", "planner"], before: clock.now.addingTimeInterval(3600), limit: 100_000)
        #expect(pruned.events > 0)
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM events") == 0)
        #expect(try await store.writer.read(Self.stored) == expected)
        try await store.close()
    }

    /// Folded before the erasure: the person's outcome and steps go with their assignment.
    @Test func anErasedPersonsFoldedRollupGoesWithThem() async throws {
        let (store, d, _) = try await Self.walked(4, prefix: "f")
        try await store.foldRollup()
        let theirs = "(SELECT id FROM sessions WHERE user_id = 'f-2')"
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_outcomes WHERE session_id IN \(theirs)") == 1)
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_steps WHERE session_id IN \(theirs)") > 0)
        let session = try await store.writer.read { db in try String.fetchOne(db, sql: "SELECT session_id FROM experiment_assignments WHERE user_id = 'f-2'") }
        let id = try #require(session)

        _ = try await d.call("user.erase", ["userId": "f-2"])
        for rollup in ["experiment_outcomes", "experiment_steps"] {
            #expect(try await Self.count(store, "SELECT COUNT(*) FROM \(rollup) WHERE session_id = '\(id)'") == 0, "\(rollup)")
        }
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_outcomes") == 3, "the others' outcomes stay")
        try await store.foldRollup()
        let (stored, expected) = try await store.writer.read { db in (try Self.stored(db), try Self.fromTheEvents(db)) }
        #expect(stored == expected)
        try await store.close()
    }

    /// An exposure folded alone (the session rejected at once, or its arrival in a later chunk)
    /// makes the outcome row: the person is counted exposed, with no step and no completion.
    @Test(arguments: [1, 64] as [Int64])
    func anExposureFoldedAloneIsCountedExposed(chunk: Int64) async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        try await store.committer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO experiment_assignments (tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at)
                    VALUES ('t', 'x', 's', 'u', 'b', 'f', 'S', 90);
                    INSERT INTO events (tenant, flow, session_id, kind, step, seconds, at) VALUES ('t', 'f', 'S', 'exposed', NULL, NULL, 90);
                    """)
        }
        while try await store.committer.write({ db in try SQLiteSessionStore.foldRollup(db, chunk: chunk) }) {}
        let outcomes = try await store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT session_id, variant, last_step, completed_at, seconds_to_complete FROM experiment_outcomes").map(Self.values)
        }
        #expect(outcomes == [#""S" | "b" | NULL | NULL | NULL"#])
        let figures = try await store.experimentFigures(
            tenant: "t", experiment: "x", seed: "s", arms: [ExperimentArm(variant: "a", flow: "f"), ExperimentArm(variant: "b", flow: "f")],
            window: 86_400)
        #expect(figures["b"]?.exposed == 1)
        #expect(figures["a"]?.exposed == 0)
        try await store.close()
    }

    @Test func anErasedPersonsEventsAreNeverFolded() async throws {
        let (store, d, _) = try await Self.walked(6, prefix: "e")
        _ = try await d.call("user.erase", ["userId": "e-1"])
        try await store.foldRollup()
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_assignments WHERE user_id = 'e-1'") == 0)
        for rollup in ["experiment_steps", "experiment_outcomes"] {
            #expect(
                try await Self.count(
                    store, "SELECT COUNT(*) FROM \(rollup) WHERE session_id NOT IN (SELECT session_id FROM experiment_assignments)") == 0)
        }
        #expect(try await Self.count(store, "SELECT COUNT(*) FROM experiment_outcomes") == 5, "the others' outcomes stay")
        let (stored, expected) = try await store.writer.read { db in (try Self.stored(db), try Self.fromTheEvents(db)) }
        #expect(stored == expected)
        try await store.close()
    }
}
