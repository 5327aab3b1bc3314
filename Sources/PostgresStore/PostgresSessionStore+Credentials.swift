import Foundation
import PlatformCore
import PlatformStorage
import PostgresNIO

extension PostgresSessionStore {
    /// Revocable tokens and dashboard sign-ins: a token remembers the key that minted it (and
    /// dies with it), may be revoked itself, and its start link works once.
    static let revocations: (version: String, sql: [String]) = (
        "v5-revocations",
        [
            "ALTER TABLE user_tokens ADD COLUMN key_id TEXT",
            "ALTER TABLE user_tokens ADD COLUMN revoked_at DOUBLE PRECISION",
            "ALTER TABLE user_tokens ADD COLUMN start_used_at DOUBLE PRECISION",
            "CREATE INDEX user_tokens_by_user ON user_tokens (tenant, user_id)",
            """
            CREATE TABLE web_signins (
                secret_hash TEXT PRIMARY KEY,
                key_id TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                expires_at DOUBLE PRECISION NOT NULL,
                revoked_at DOUBLE PRECISION
            )
            """,
        ]
    )

    // MARK: - keys and tokens

    public func insertKey(_ key: StoredKey, secretHash: String) async throws {
        try await connection { connection in
            _ = try await connection.query(
                """
                INSERT INTO api_keys (id, tenant, name, secret_hash, created_at)
                VALUES (\(key.id), \(key.tenant), \(key.name), \(secretHash), \(key.createdAt.timeIntervalSince1970))
                """, logger: self.logger
            ).collect()
        }
    }

    static let keyColumns = "id, tenant, name, created_at, last_used_at, revoked_at"
    typealias KeyRow = (String, String?, String, Double, Double?, Double?)

    static func key(_ row: KeyRow) -> StoredKey {
        StoredKey(
            id: row.0, tenant: row.1, name: row.2, createdAt: Date(timeIntervalSince1970: row.3),
            lastUsedAt: row.4.map(Date.init(timeIntervalSince1970:)), revokedAt: row.5.map(Date.init(timeIntervalSince1970:)))
    }

    public func keys() async throws -> [StoredKey] {
        try await connection { connection in
            var keys: [StoredKey] = []
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.keyColumns) FROM api_keys ORDER BY created_at, id COLLATE \"C\"", logger: self.logger
            ).decode(KeyRow.self) {
                keys.append(Self.key(row))
            }
            return keys
        }
    }

    public func revokeKey(id: String, at date: Date) async throws -> Bool {
        try await connection { connection in
            return try await connection.query(
                """
                UPDATE api_keys SET revoked_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND revoked_at IS NULL RETURNING 1
                """, logger: self.logger
            ).collect().count == 1
        }
    }

    public func useKey(secretHash: String, at date: Date) async throws -> StoredKey? {
        try await connection { connection in
            // Records the use of an active key and returns it; a revoked one is returned as it is.
            for try await row in try await connection.query(
                """
                UPDATE api_keys SET last_used_at = \(date.timeIntervalSince1970)
                WHERE secret_hash = \(secretHash) AND revoked_at IS NULL RETURNING \(unescaped: Self.keyColumns)
                """, logger: self.logger
            ).decode(KeyRow.self) {
                return Self.key(row)
            }
            for try await row in try await connection.query(
                "SELECT \(unescaped: Self.keyColumns) FROM api_keys WHERE secret_hash = \(secretHash)", logger: self.logger
            ).decode(KeyRow.self) {
                return Self.key(row)
            }
            return nil
        }
    }

    public func isKeyActive(id: String) async throws -> Bool {
        try await keyChecks.check(id) { ids in
            try await self.connection { connection in
                var active: [String: Void] = [:]
                for try await found in try await connection.query(
                    "SELECT id FROM api_keys WHERE id = ANY(\(ids)) AND revoked_at IS NULL", logger: self.logger
                ).decode(String.self) {
                    active[found] = ()
                }
                return active
            }
        } != nil
    }

    public func insertToken(_ token: StoredToken, secretHash: String, createdAt: Date) async throws {
        try await transaction { connection in
            // Expired tokens are of no use to anyone: each mint sweeps them out.
            _ = try await connection.query(
                "DELETE FROM user_tokens WHERE expires_at < \(createdAt.timeIntervalSince1970)", logger: self.logger
            ).collect()
            _ = try await connection.query(
                """
                INSERT INTO user_tokens (secret_hash, tenant, user_id, created_at, expires_at, key_id)
                VALUES (\(secretHash), \(token.tenant), \(token.userId), \(createdAt.timeIntervalSince1970),
                    \(token.expiresAt.timeIntervalSince1970), \(token.keyID))
                """, logger: self.logger
            ).collect()
        }
    }

    public func token(secretHash: String) async throws -> StoredToken? {
        try await tokenChecks.check(secretHash) { hashes in
            try await self.connection { connection in
                var found: [String: StoredToken] = [:]
                for try await (hash, tenant, userId, expires, keyID, revoked) in try await connection.query(
                    """
                    SELECT t.secret_hash, t.tenant, t.user_id, t.expires_at, t.key_id,
                           t.revoked_at IS NOT NULL OR (t.key_id IS NOT NULL AND (k.id IS NULL OR k.revoked_at IS NOT NULL))
                    FROM user_tokens t LEFT JOIN api_keys k ON k.id = t.key_id WHERE t.secret_hash = ANY(\(hashes))
                    """, logger: self.logger
                ).decode((String, String, String, Double, String?, Bool).self) {
                    found[hash] = StoredToken(
                        tenant: tenant, userId: userId, expiresAt: Date(timeIntervalSince1970: expires), keyID: keyID, revoked: revoked)
                }
                return found
            }
        }
    }

    public func revokeTokens(tenant: String, secretHash: String?, userId: String?, at date: Date) async throws -> Int {
        try await connection { connection in
            try await connection.query(
                """
                UPDATE user_tokens SET revoked_at = \(date.timeIntervalSince1970)
                WHERE tenant = \(tenant) AND revoked_at IS NULL AND expires_at > \(date.timeIntervalSince1970)
                AND (\(secretHash)::text IS NULL OR secret_hash = \(secretHash))
                AND (\(userId)::text IS NULL OR user_id = \(userId))
                RETURNING 1
                """, logger: self.logger
            ).collect().count
        }
    }

    public func useStartLink(secretHash: String, at date: Date) async throws -> Bool {
        try await connection { connection in
            try await connection.query(
                """
                UPDATE user_tokens SET start_used_at = \(date.timeIntervalSince1970)
                WHERE secret_hash = \(secretHash) AND start_used_at IS NULL RETURNING 1
                """, logger: self.logger
            ).collect().count == 1
        }
    }

    public func insertSignIn(_ signIn: StoredSignIn, secretHash: String, createdAt: Date) async throws {
        try await transaction { connection in
            _ = try await connection.query(
                "DELETE FROM web_signins WHERE expires_at < \(createdAt.timeIntervalSince1970)", logger: self.logger
            ).collect()
            _ = try await connection.query(
                """
                INSERT INTO web_signins (secret_hash, key_id, created_at, expires_at)
                VALUES (\(secretHash), \(signIn.keyID), \(createdAt.timeIntervalSince1970), \(signIn.expiresAt.timeIntervalSince1970))
                """, logger: self.logger
            ).collect()
        }
    }

    public func signIn(secretHash: String) async throws -> StoredSignIn? {
        try await connection { connection in
            for try await (keyID, expires, revoked) in try await connection.query(
                """
                SELECT s.key_id, s.expires_at, s.revoked_at IS NOT NULL OR k.id IS NULL OR k.revoked_at IS NOT NULL
                FROM web_signins s LEFT JOIN api_keys k ON k.id = s.key_id WHERE s.secret_hash = \(secretHash)
                """, logger: self.logger
            ).decode((String, Double, Bool).self) {
                return StoredSignIn(keyID: keyID, expiresAt: Date(timeIntervalSince1970: expires), revoked: revoked)
            }
            return nil
        }
    }

    public func endSignIn(secretHash: String, at date: Date) async throws {
        try await connection { connection in
            _ = try await connection.query(
                """
                UPDATE web_signins SET revoked_at = \(date.timeIntervalSince1970)
                WHERE secret_hash = \(secretHash) AND revoked_at IS NULL
                """, logger: self.logger
            ).collect()
        }
    }

}
