import Foundation
import GRDB
import PlatformCore
import PlatformStorage

/// Measurements `platformd bench` takes of SQLite itself, beside the server it drives.
public enum SQLiteBench {
    /// One-row transactions per second on a fresh file in `directory`, with the server's own
    /// durability settings (WAL, `synchronous=FULL`): the disk's durable commit rate, which group
    /// commit lets the server reach or pass. Synchronous commits, on a thread of their own.
    public static func rawCommitsPerSecond(in directory: URL, seconds: Double) async throws -> Double {
        try await BlockingWork.run("platformd.bench.raw-commits") { try measuringRawCommits(in: directory, seconds: seconds) }
    }

    static func measuringRawCommits(in directory: URL, seconds: Double) throws -> Double {
        let path = directory.appendingPathComponent("raw-commits.sqlite").path
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        }
        let payload = Data(count: 200)
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int64(seconds * 1000))
        var commits = 0
        while ContinuousClock.now < deadline {
            try pool.write { db in try db.execute(sql: "INSERT INTO t (v) VALUES (?)", arguments: [payload]) }
            commits += 1
        }
        let elapsed = ContinuousClock.now - start
        try pool.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return Double(commits) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}

extension SQLiteSessionStore {
    /// Stores `count` completed sessions of `tenant`/`flow` (with their start and completion
    /// events) in one transaction, so the cost of a request can be compared at 1 k and at 1 M
    /// stored sessions.
    public func preloadCompletedSessions(count: Int, tenant: String, flow: String, at date: Date) async throws {
        try await writer.write { db in
            // Whatever was enrolled before is counted first: the mark jumps past these rows below.
            while try Self.foldRollup(db) {}
            let time = date.timeIntervalSince1970
            let session = try db.makeStatement(
                sql: """
                    INSERT INTO sessions (id, tenant, user_id, flow, status, revision, user_json, path_json,
                        progress_json, arrived_at, completion_json, created_at, updated_at)
                    VALUES (?, ?, ?, ?, 'completed', 12, '{}', '[]', '{}', ?, '{"message":"","records":[]}', ?, ?)
                    """)
            let event = try db.makeStatement(
                sql: """
                    INSERT INTO events (tenant, flow, session_id, kind, at) VALUES (?, ?, ?, ?, ?)
                    """)
            for index in 0..<count {
                let id = "preload-\(index)"
                try session.execute(arguments: [id, tenant, "preload-user-\(index)", flow, time, time, time])
                try event.execute(arguments: [tenant, flow, id, "started", time])
                try event.execute(arguments: [tenant, flow, id, "completed", time])
            }
        }
    }
}

extension SQLiteSessionStore {
    /// Stores `count` people exposed to `experiment` (phase `seed`), split evenly between
    /// `variants`, each with a session on the variant's flow and its start, exposure and arrival
    /// events; every `completeEvery`-th completes a minute later. In one transaction: for
    /// measuring `analytics.experiment` at 1 M exposed without walking a million people first.
    public func preloadExposures(
        count: Int, tenant: String, experiment: String, seed: String, variants: [(id: String, flow: String, firstStep: String)],
        completeEvery: Int = 2, version: String = "", fingerprint: String = "", at date: Date
    ) async throws {
        precondition(!variants.isEmpty && completeEvery > 0)
        try await writer.write { db in
            // Whatever was enrolled before is counted first: the mark jumps past these rows below.
            while try Self.foldRollup(db) {}
            let time = date.timeIntervalSince1970
            let session = try db.makeStatement(
                sql: """
                    INSERT INTO sessions (id, tenant, user_id, flow, status, revision, user_json, path_json,
                        progress_json, arrived_at, completion_json, created_at, updated_at, flow_version, flow_fingerprint)
                    VALUES (?, ?, ?, ?, ?, 1, '{}', '[]', ?, ?, ?, ?, ?, ?, ?)
                    """)
            let assignment = try db.makeStatement(
                sql: """
                    INSERT INTO experiment_assignments (tenant, experiment, seed, user_id, variant, flow, session_id, assigned_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            let outcome = try db.makeStatement(
                sql: """
                    INSERT INTO experiment_outcomes (session_id, tenant, experiment, seed, variant, last_step, completed_at, seconds_to_complete)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            let step = try db.makeStatement(
                sql: "INSERT INTO experiment_steps (session_id, step, tenant, experiment, seed, variant) VALUES (?, ?, ?, ?, ?, ?)")
            let event = try db.makeStatement(sql: "INSERT INTO events (tenant, flow, session_id, kind, step, at) VALUES (?, ?, ?, ?, ?, ?)")
            for index in 0..<count {
                let variant = variants[index % variants.count]
                let id = "exposed-\(index)"
                let user = "exposed-user-\(index)"
                let completes = index % completeEvery == 0
                let progress = #"{"experiment":{"id":"\#(experiment)","variant":"\#(variant.id)"}}"#
                try session.execute(arguments: [
                    id, tenant, user, variant.flow, completes ? "completed" : "active", progress, time,
                    completes ? #"{"message":"","records":[]}"# : nil, time, time, version, fingerprint,
                ])
                try assignment.execute(arguments: [tenant, experiment, seed, user, variant.id, variant.flow, id, time])
                try outcome.execute(arguments: [
                    id, tenant, experiment, seed, variant.id, variant.firstStep, completes ? time + 60 : nil, completes ? 60.0 : nil,
                ])
                try step.execute(arguments: [id, variant.firstStep, tenant, experiment, seed, variant.id])
                try event.execute(arguments: [tenant, variant.flow, id, "exposed", nil, time])
                try event.execute(arguments: [tenant, variant.flow, id, "started", nil, time])
                try event.execute(arguments: [tenant, variant.flow, id, "arrived", variant.firstStep, time])
                if completes { try event.execute(arguments: [tenant, variant.flow, id, "completed", nil, time + 60]) }
            }
            // The rollup's rows were written with the events: they are counted already.
            try db.execute(sql: "UPDATE experiment_rollup_mark SET event_id = (SELECT MAX(id) FROM events)")
        }
    }
}
