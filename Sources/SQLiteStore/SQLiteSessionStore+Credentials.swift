import Foundation
import GRDB
import PlatformCore
import PlatformStorage

extension SQLiteSessionStore: CredentialStore {
    static func registerCredentialTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-credentials") { db in
            try db.execute(
                sql: """
                    CREATE TABLE api_keys (
                        id TEXT PRIMARY KEY NOT NULL,
                        tenant TEXT,
                        name TEXT NOT NULL,
                        secret_hash TEXT NOT NULL UNIQUE,
                        created_at REAL NOT NULL,
                        last_used_at REAL,
                        revoked_at REAL
                    );
                    CREATE TABLE user_tokens (
                        secret_hash TEXT PRIMARY KEY NOT NULL,
                        tenant TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        expires_at REAL NOT NULL
                    );
                    CREATE INDEX user_tokens_by_expiry ON user_tokens (expires_at);
                    """)
        }
    }

    /// Revocable tokens and dashboard sign-ins: a token remembers the key that minted it (and dies
    /// with it), may be revoked itself, and its start link works once.
    static func registerRevocationTables(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8-revocations") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user_tokens ADD COLUMN key_id TEXT;
                    ALTER TABLE user_tokens ADD COLUMN revoked_at REAL;
                    ALTER TABLE user_tokens ADD COLUMN start_used_at REAL;
                    CREATE INDEX user_tokens_by_user ON user_tokens (tenant, user_id);
                    CREATE TABLE web_signins (
                        secret_hash TEXT PRIMARY KEY NOT NULL,
                        key_id TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        expires_at REAL NOT NULL,
                        revoked_at REAL
                    );
                    """)
        }
    }

    public func insertKey(_ key: StoredKey, secretHash: String) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "INSERT INTO api_keys (id, tenant, name, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [key.id, key.tenant, key.name, secretHash, key.createdAt.timeIntervalSince1970])
        }
    }

    public func keys() async throws -> [StoredKey] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM api_keys ORDER BY created_at, id").map(Self.key(from:))
        }
    }

    public func revokeKey(id: String, at date: Date) async throws -> Bool {
        guard credentialsChanges.seesEveryChange else { throw RevocationNotAnnounced(path: credentialsChanges.path) }
        let revoked = try await writer.write { db in
            try db.execute(
                sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                arguments: [date.timeIntervalSince1970, id])
            return db.changesCount == 1
        }
        // Even when nothing changed: a revocation whose process was killed between its commit
        // and this is announced by running it again.
        credentialsChanges.advance()
        return revoked
    }

    /// Every change that can end a key, token or sign-in advances it after its commit (a revoke
    /// of a key, of tokens, a sign-out); expiry is checked against the clock, not here.
    public func credentialsVersion() -> UInt64? {
        credentialsChanges.seesEveryChange ? credentialsChanges.value : nil
    }

    public func useKey(secretHash: String, at date: Date) async throws -> StoredKey? {
        try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM api_keys WHERE secret_hash = ?", arguments: [secretHash]) else {
                return nil
            }
            var key = Self.key(from: row)
            if key.revokedAt == nil {
                try db.execute(sql: "UPDATE api_keys SET last_used_at = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, key.id])
                key.lastUsedAt = date
            }
            return key
        }
    }

    public func isKeyActive(id: String) async throws -> Bool {
        try await writer.read { db in
            // Every request of a key-logged connection asks: a cached statement, not a parse each time.
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT revoked_at IS NULL FROM api_keys WHERE id = ?"), arguments: [id]) ?? false
        }
    }

    public func insertToken(_ token: StoredToken, secretHash: String, createdAt: Date) async throws {
        try await writer.write { db in
            // Expired tokens are of no use to anyone: each mint sweeps them out.
            try db.execute(sql: "DELETE FROM user_tokens WHERE expires_at < ?", arguments: [createdAt.timeIntervalSince1970])
            try db.execute(
                sql: "INSERT INTO user_tokens (secret_hash, tenant, user_id, created_at, expires_at, key_id) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    secretHash, token.tenant, token.userId, createdAt.timeIntervalSince1970, token.expiresAt.timeIntervalSince1970, token.keyID,
                ])
        }
    }

    public func token(secretHash: String) async throws -> StoredToken? {
        try await writer.read { db in
            // Every request of a token's login asks (revocation holds from the next request): cached.
            let statement = try db.cachedStatement(
                sql: """
                    SELECT t.tenant, t.user_id, t.expires_at, t.key_id,
                           t.revoked_at IS NOT NULL OR (t.key_id IS NOT NULL AND (k.id IS NULL OR k.revoked_at IS NOT NULL)) AS revoked
                    FROM user_tokens t LEFT JOIN api_keys k ON k.id = t.key_id WHERE t.secret_hash = ?
                    """)
            return try Row.fetchOne(statement, arguments: [secretHash]).map { row in
                StoredToken(
                    tenant: row["tenant"], userId: row["user_id"], expiresAt: Date(timeIntervalSince1970: row["expires_at"]),
                    keyID: row["key_id"], revoked: row["revoked"])
            }
        }
    }

    public func revokeTokens(tenant: String, secretHash: String?, userId: String?, at date: Date) async throws -> Int {
        guard credentialsChanges.seesEveryChange else { throw RevocationNotAnnounced(path: credentialsChanges.path) }
        let revoked = try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE user_tokens SET revoked_at = ? WHERE tenant = ? AND revoked_at IS NULL
                    AND (? IS NULL OR secret_hash = ?) AND (? IS NULL OR user_id = ?) AND expires_at > ?
                    """,
                arguments: [date.timeIntervalSince1970, tenant, secretHash, secretHash, userId, userId, date.timeIntervalSince1970])
            return db.changesCount
        }
        credentialsChanges.advance()
        return revoked
    }

    public func useStartLink(secretHash: String, at date: Date) async throws -> Bool {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE user_tokens SET start_used_at = ? WHERE secret_hash = ? AND start_used_at IS NULL",
                arguments: [date.timeIntervalSince1970, secretHash])
            return db.changesCount == 1
        }
    }

    public func insertSignIn(_ signIn: StoredSignIn, secretHash: String, createdAt: Date) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM web_signins WHERE expires_at < ?", arguments: [createdAt.timeIntervalSince1970])
            try db.execute(
                sql: "INSERT INTO web_signins (secret_hash, key_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [secretHash, signIn.keyID, createdAt.timeIntervalSince1970, signIn.expiresAt.timeIntervalSince1970])
        }
    }

    public func signIn(secretHash: String) async throws -> StoredSignIn? {
        try await writer.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT s.key_id, s.expires_at, s.revoked_at IS NOT NULL OR k.id IS NULL OR k.revoked_at IS NOT NULL AS revoked
                    FROM web_signins s LEFT JOIN api_keys k ON k.id = s.key_id WHERE s.secret_hash = ?
                    """, arguments: [secretHash]
            ).map { row in
                StoredSignIn(keyID: row["key_id"], expiresAt: Date(timeIntervalSince1970: row["expires_at"]), revoked: row["revoked"])
            }
        }
    }

    public func endSignIn(secretHash: String, at date: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE web_signins SET revoked_at = ? WHERE secret_hash = ? AND revoked_at IS NULL",
                arguments: [date.timeIntervalSince1970, secretHash])
        }
        credentialsChanges.advance()
    }

    static func key(from row: Row) -> StoredKey {
        StoredKey(
            id: row["id"], tenant: row["tenant"], name: row["name"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            lastUsedAt: (row["last_used_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

extension SQLiteSessionStore {
    /// SQLite's passing failures: the disk is full, another process held a lock past the busy
    /// timeout, the file cannot be written or read just now. The transaction rolled back.
    public func unavailability(of error: any Error) -> String? {
        if let unavailable = error as? StoreUnavailable { return unavailable.reason }
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_FULL: return "the disk is full (\(error.message ?? "SQLITE_FULL"))"
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "the database is locked by another connection past its timeout"
        case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PROTOCOL:
            return "the database file cannot be used now (\(error.message ?? "\(error.resultCode)"))"
        default: return nil
        }
    }
}
