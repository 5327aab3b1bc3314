import Foundation
import GRDB
import PlatformCore
import PlatformStorage

/// Profiles and their records: what a completion writes for the person, and `profile.update`.
extension SQLiteSessionStore {
    public func profile(tenant: String, userId: String) async throws -> Profile? {
        try await writer.read { db in try Self.fetchProfile(db, tenant: tenant, userId: userId) }
    }

    public func updateProfile<Result: Sendable>(
        tenant: String, userId: String, at time: Date,
        _ body: @escaping @Sendable (Profile?) throws -> (ProfileCommit?, Result)
    ) async throws -> Result {
        let outcome = try await committer.write { db -> Swift.Result<Result, any Error> in
            let ran: (commit: ProfileCommit?, result: Result)
            do {
                ran = try body(try Self.fetchProfile(db, tenant: tenant, userId: userId))
            } catch {
                // Refused before anything is written: returned, so its batch is not run again.
                return .failure(error)
            }
            if let commit = ran.commit {
                let profile = commit.profile
                precondition(profile.tenant == tenant && profile.userId == userId, "a profile update must stay with its user")
                try Self.save(db, profile, keepingOtherRecords: false, at: time)
                for event in commit.outbox {
                    precondition(event.event.tenant == tenant, "an event must stay in its tenant")
                    try Self.insert(db, event, body: PreparedSessionCommit.body(of: event))
                }
            }
            return .success(ran.result)
        }
        return try outcome.get()
    }

    static func fetchProfile(_ db: Database, tenant: String, userId: String) throws -> Profile? {
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT completed_at FROM profiles WHERE tenant = ? AND user_id = ?"), arguments: [tenant, userId])
        else { return nil }
        var records: [String: JSONValue] = [:]
        for record in try Row.fetchAll(
            try db.cachedStatement(sql: "SELECT name, body_json FROM records WHERE tenant = ? AND user_id = ?"), arguments: [tenant, userId])
        {
            records[record["name"]] = try JSONValue.parse(record["body_json"] as String)
        }
        return Profile(
            tenant: tenant, userId: userId, completedAt: Date(timeIntervalSince1970: row["completed_at"]), records: records)
    }

    /// Writes a profile. A completion adds its records to the user's others (another flow's);
    /// an update replaces the whole set, so a record it drops is deleted. `time` is the records'
    /// `updated_at`.
    static func save(_ db: Database, _ profile: Profile, keepingOtherRecords: Bool, at time: Date) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO profiles (tenant, user_id, completed_at) VALUES (?, ?, ?)
                ON CONFLICT (tenant, user_id) DO UPDATE SET completed_at = excluded.completed_at
                """
        ).execute(arguments: [profile.tenant, profile.userId, profile.completedAt.timeIntervalSince1970])
        if !keepingOtherRecords {
            try db.cachedStatement(
                sql: "DELETE FROM records WHERE tenant = ? AND user_id = ?"
            ).execute(arguments: [profile.tenant, profile.userId])
        }
        for (name, body) in profile.records.sorted(by: { $0.key < $1.key }) {
            try db.cachedStatement(
                sql: """
                    INSERT INTO records (tenant, user_id, name, body_json, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (tenant, user_id, name) DO UPDATE SET
                        body_json = excluded.body_json, updated_at = excluded.updated_at
                    """
            ).execute(arguments: [profile.tenant, profile.userId, name, body.serialized(), time.timeIntervalSince1970])
        }
    }
}
