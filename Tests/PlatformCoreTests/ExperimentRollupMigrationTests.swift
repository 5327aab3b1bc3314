import Foundation
import GRDB
import PlatformTesting
import PostgresNIO
import Testing

@testable import PostgresStore
@testable import SQLiteStore

/// A database whose people were enrolled before the rollup existed gets it filled from their
/// events when it migrates: completion, last step, each step reached with whether they went on
/// and their seconds there summed over visits.
@Suite struct ExperimentRollupMigrationTests {
    /// Two enrolled sessions' events (s1 goes back, comes again and completes; s2 leaves its first
    /// step without a time and stops on the second) and one of a session in no experiment, with
    /// the assignments `(session, user)` of the two.
    static let events: [(session: String, kind: String, step: String?, seconds: Double?, at: Double)] = [
        ("s1", "arrived", "one", nil, 100), ("s1", "left", "one", 5, 105), ("s1", "arrived", "two", nil, 105),
        ("s1", "left", "two", 3, 108), ("s1", "arrived", "one", nil, 108), ("s1", "left", "one", 2, 110),
        ("s1", "arrived", "two", nil, 110), ("s1", "completed", nil, nil, 200),
        ("s2", "arrived", "one", nil, 100), ("s2", "left", "one", nil, 120), ("s2", "arrived", "two", nil, 120),
        ("other", "arrived", "one", nil, 100),
    ]
    static let enrolled = [("s1", "u1"), ("s2", "u2")]

    @Test func theRollupIsFilledFromTheEventsOfSessionsEnrolledBefore() throws {
        let directory = try TemporaryDirectory.make()
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("old.sqlite").path)
        try SQLiteSessionStore.migrator.migrate(queue, upTo: "v9-experiments")
        try queue.write { db in
            for (session, user) in Self.enrolled {
                try db.execute(
                    sql: """
                        INSERT INTO experiment_assignments (tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at)
                        VALUES ('t', 'e', 'p', ?, 'a', 'quick', ?, 100)
                        """, arguments: [user, session])
            }
            for (session, kind, step, seconds, at) in ExperimentRollupMigrationTests.events {
                try db.execute(
                    sql: "INSERT INTO events (tenant, flow, session_id, kind, step, seconds, at) VALUES ('t', 'quick', ?, ?, ?, ?, ?)",
                    arguments: [session, kind, step, seconds, at])
            }
        }
        try SQLiteSessionStore.migrator.migrate(queue)
        try queue.read { db in
            let assignments = try Row.fetchAll(db, sql: "SELECT session_id, completed_at, last_step FROM experiment_outcomes ORDER BY session_id")
            #expect(assignments.map { $0[0] as String } == ["s1", "s2"])
            #expect(assignments[0][1] as Double? == 200 && assignments[0][2] as String? == "two")
            #expect(assignments[1][1] as Double? == nil && assignments[1][2] as String? == "two")
            let steps = try Row.fetchAll(db, sql: "SELECT session_id, step, went_on, seconds, variant FROM experiment_steps ORDER BY session_id, step")
            #expect(steps.map { $0["session_id"] as String } == ["s1", "s1", "s2", "s2"])
            #expect(steps.map { $0["step"] as String } == ["one", "two", "one", "two"])
            #expect(steps.map { $0["went_on"] as Int } == [1, 1, 1, 0])
            #expect(steps.map { $0["seconds"] as Double? } == [7, 3, nil, nil])
            #expect(steps.allSatisfy { $0["variant"] as String == "a" })
        }
    }
}

/// On PostgreSQL the trigger builds the rollup as the events are written, and the migration's
/// backfill builds the same rows from the events alone.
@Suite struct PostgresExperimentRollupTests {
    @Test(.postgres) func theTriggerAndTheBackfillAgree() async throws {
        let store = try #require(try await TestPostgres.store())
        typealias Read = (assignments: [String], steps: [String])
        @Sendable func read(_ connection: PostgresConnection) async throws -> Read {
            var assignments: [String] = []
            for try await (session, completed, last) in try await connection.query(
                "SELECT session_id, completed_at, last_step FROM experiment_assignments ORDER BY session_id", logger: store.logger
            ).decode((String, Double?, String?).self) {
                assignments.append("\(session) \(completed.map { String($0) } ?? "-") \(last ?? "-")")
            }
            var steps: [String] = []
            for try await (session, step, wentOn, seconds, variant) in try await connection.query(
                "SELECT session_id, step, went_on, seconds, variant FROM experiment_steps ORDER BY session_id, step", logger: store.logger
            ).decode((String, String, Int32, Double?, String).self) {
                steps.append("\(session) \(step) \(wentOn) \(seconds.map { String($0) } ?? "-") \(variant)")
            }
            return (assignments, steps)
        }
        let (built, backfilled) = try await store.connection { connection in
            for (session, user) in ExperimentRollupMigrationTests.enrolled {
                _ = try await connection.query(
                    """
                    INSERT INTO experiment_assignments (tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at)
                    VALUES ('t', 'e', 'p', \(user), 'a', 'quick', \(session), 100)
                    """, logger: store.logger
                ).collect()
            }
            for (session, kind, step, seconds, at) in ExperimentRollupMigrationTests.events {
                _ = try await connection.query(
                    "INSERT INTO events (tenant, flow, session_id, kind, step, seconds, at) VALUES ('t', 'quick', \(session), \(kind), \(step), \(seconds), \(at))",
                    logger: store.logger
                ).collect()
            }
            let built = try await read(connection)
            _ = try await connection.query("UPDATE experiment_assignments SET completed_at = NULL, last_step = NULL", logger: store.logger).collect()
            _ = try await connection.query("DELETE FROM experiment_steps", logger: store.logger).collect()
            for statement in PostgresSessionStore.experimentRollup.sql.suffix(2) {
                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: store.logger).collect()
            }
            return (built, try await read(connection))
        }
        #expect(built.assignments == ["s1 200.0 two", "s2 - two"])
        #expect(built.steps == ["s1 one 1 7.0 a", "s1 two 1 3.0 a", "s2 one 1 - a", "s2 two 0 - a"])
        #expect(backfilled.assignments == built.assignments)
        #expect(backfilled.steps == built.steps)
        try await store.close()
    }
}

/// Version 12 moved each assignment's outcome to a table the fold writes: the assignment's row
/// keeps the person's key and the session, the outcome the last step and the completion.
@Suite struct ExperimentOutcomesMigrationTests {
    @Test func assignmentsAndTheirOutcomesCarryOverAndEventsNotFoldedYetMoveThemAfter() async throws {
        let directory = try TemporaryDirectory.make()
        let path = directory.appendingPathComponent("v11.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try SQLiteSessionStore.migrator.migrate(queue, upTo: "v11-experiment-rollup-mark")
        try await queue.write { db in
            // s1 folded before the upgrade (completed, a minute after its exposure); s2 enrolled
            // just before it, its exposure and arrival not folded yet.
            try db.execute(
                sql: """
                    INSERT INTO experiment_assignments
                        (tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at, completed_at, last_step, seconds_to_complete)
                    VALUES ('t', 'e', 'p', 'u1', 'a', 'quick', 's1', 100, 160, 'two', 60),
                           ('t', 'e', 'p', 'u2', 'b', 'quick', 's2', 300, NULL, NULL, NULL);
                    INSERT INTO events (tenant, flow, session_id, kind, step, at) VALUES ('t', 'quick', 's1', 'completed', NULL, 160);
                    UPDATE experiment_rollup_mark SET event_id = (SELECT MAX(id) FROM events);
                    INSERT INTO events (tenant, flow, session_id, kind, step, at) VALUES ('t', 'quick', 's2', 'exposed', NULL, 300),
                        ('t', 'quick', 's2', 'arrived', 'one', 300);
                    """)
        }
        try queue.close()

        let recorder = LogRecorder()
        let store = try await SQLiteSessionStore.open(path: path, logger: recorder.logger("platformd.store"))
        // A migration that rebuilds a table takes seconds at a million rows: the operator sees why
        // the start pauses, and when it is over.
        let said = recorder.lines.filter { $0.level == .notice }.map { $0.message + $0.metadataPairs }
        #expect(said.count == 2, "\(said)")
        #expect(said.first?.hasPrefix("migrating the database schema database=\(path) migrations=v12-experiment-outcomes") == true, "\(said)")
        #expect(said.last?.hasPrefix("database schema migrated database=\(path) seconds=") == true, "\(said)")
        let (assignments, indexes) = try await store.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT user_id || ' ' || session_id || ' ' || variant FROM experiment_assignments ORDER BY user_id"),
                try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list('experiment_assignments') ORDER BY name")
            )
        }
        #expect(assignments == ["u1 s1 a", "u2 s2 b"])
        #expect(
            indexes == ["experiment_assignments_by_session", "sqlite_autoindex_experiment_assignments_1"],
            "an enrolment writes the table, its key by person and its index by session: nothing else")
        #expect(try await store.assignment(tenant: "t", experiment: "e", seed: "p", userId: "u2")?.sessionId == "s2")

        try await store.foldRollup()
        let outcomes = try await store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT session_id, variant, last_step, completed_at, seconds_to_complete FROM experiment_outcomes ORDER BY session_id")
                .map(ExperimentRollupFoldTests.values)
        }
        #expect(outcomes == [#""s1" | "a" | "two" | 160.0 | 60.0"#, #""s2" | "b" | "one" | NULL | NULL"#])
        try await store.close()
    }
}
