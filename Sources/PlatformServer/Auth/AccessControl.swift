import Foundation
import Logging
import PlatformCore
import PlatformStorage
import Synchronization

/// The one place that decides whether a request may run: who the connection is (the contract's
/// principals), what that principal may do, and whether its tenant is over its rate limit.
/// Methods themselves never check access.
public struct AccessControl: Sendable {
    let platform: Platform
    let credentials: Credentials?
    let limiter: RateLimiter
    let bearers = BearerLogins()
    /// Keys and tokens checked since the store's credentials last changed: not read again
    /// within `confirmationLifetime`.
    let confirmed: ConfirmedCredentials
    /// How long a passed check of a key or token is trusted while no revocation is announced:
    /// the bound on seeing one that is not (Docs/operations.md).
    public static let confirmationLifetime: Duration = .seconds(1)
    let logger: Logger
    /// Refused logins and requests log one line per 5 s with a count: a client trying secrets
    /// must not flood the log.
    let refusals = LogThrottle(interval: .seconds(5))
    let rateRefusals = LogThrottle(interval: .seconds(5))

    public init(platform: Platform, credentials: Credentials?, confirmationLifetime: Duration = Self.confirmationLifetime, logger: Logger) {
        self.platform = platform
        self.credentials = credentials
        confirmed = ConfirmedCredentials(lifetime: confirmationLifetime)
        self.limiter = RateLimiter(
            limits: Dictionary(
                platform.hosted.compactMap { tenant in tenant.limits.map { (tenant.id, $0) } },
                uniquingKeysWith: { first, _ in first }), clock: platform.clock)
        self.logger = logger
    }

    /// Methods anyone may call, logged in or not.
    static let open: Set<String> = [PlatformMethod.login.rawValue, PlatformMethod.discover.rawValue]
    /// What a user token may call, for its own tenant and user only. Never `events.list`: a
    /// tenant's events are every user's, for its backend (a tenant key) only.
    static let userMethods = Set(
        [
            PlatformMethod.start, .get, .submit, .back, .goto, .search, .describe, .profileGet, .profileUpdate, .gateCheck,
            .userExport,
        ].map(\.rawValue))

    /// Throws the contract's refusal (-32001, -32002 for another user's session, -32007) or returns.
    func admit(_ method: String, _ params: [String: JSONValue], connection: ConnectionState) async throws(RPCError) {
        if Self.open.contains(method) { return }
        guard let login = connection.login else {
            throw refuse(connection, method, "this method needs a login: call auth.login with a key or a user token")
        }
        try await stillValid(login, connection: connection, method: method)
        // Ids are checked before any is compared: one holding a NUL or another control character
        // is refused whoever asks, and nothing is looked up or stored for it.
        let ids = RPCParams(params)
        let tenant = try ids.optionalID("tenant")
        let userId = try ids.optionalID("userId")
        let sessionId = try ids.optionalID("sessionId")
        let principal = login.principal
        switch principal.kind {
        case .admin:
            break
        case .tenant:
            if let tenant, !IDBytes.equal(tenant, principal.tenant) {
                throw refuse(connection, method, "this key acts for tenant \(principal.tenant ?? "?") only")
            }
        case .user:
            guard Self.userMethods.contains(method) else {
                throw refuse(connection, method, "a user token may not call \(method)")
            }
            if let tenant, !IDBytes.equal(tenant, principal.tenant) {
                throw refuse(connection, method, "this token acts for tenant \(principal.tenant ?? "?") only")
            }
            if let userId, !IDBytes.equal(userId, principal.userId) {
                throw refuse(connection, method, "this token acts for its own user only")
            }
            if let tenant, let sessionId,
                let owner = await platform.owner(tenant: tenant, sessionId: sessionId), !IDBytes.equal(owner, principal.userId)
            {
                // Another user's session is "not found", as if it did not exist.
                if let held = refusals.admit() {
                    logger.info("refused: another user's session\(Self.since(held))", metadata: ["connection": "\(connection.label)", "method": "\(method)"])
                }
                throw RPCError(FlowError.notFound("session \(sessionId)"))
            }
        }
        if connection.countsRequests, let tenant, let wait = limiter.take(tenant) {
            if let held = rateRefusals.admit() {
                logger.info("refused: tenant over its rate limit\(Self.since(held))", metadata: ["tenant": "\(tenant)", "method": "\(method)"])
            }
            throw RPCError.rateLimited(retryAfterMs: wait)
        }
    }

    /// A key revoked, or a token revoked, expired or dead with its key, since the login stops
    /// working from the next request on, on every host. The store is asked unless the check
    /// already passed since its credentials last changed (`ConfirmedCredentials`; on SQLite,
    /// whose processes share that version; PostgreSQL's hosts are asked on every request).
    func stillValid(_ login: ConnectionState.Login, connection: ConnectionState, method: String) async throws(RPCError) {
        if let expires = login.expiresAt, expires <= platform.clock() {
            connection.login = nil
            throw refuse(connection, method, "the user token has expired: log in again")
        }
        guard let credentials, login.tokenHash != nil || login.keyID != nil else { return }
        // Read before the store is: a change committed after this moves the version past it.
        let version = credentials.version()
        if let hash = login.tokenHash, !confirmed.holds("token " + hash, at: version) {
            let found: Result<StoredToken, Credentials.Refusal>
            do {
                found = try await credentials.token(hash: hash)
            } catch {
                throw RPCError(FlowError.unavailable("checking a user token: \(error)"))
            }
            if case .failure(let refusal) = found {
                connection.login = nil
                throw refuse(connection, method, "the user token was revoked or has expired: log in again", why: refusal.reason)
            }
            confirmed.confirm("token " + hash, at: version)
        }
        if let keyID = login.keyID, !confirmed.holds("key " + keyID, at: version) {
            let active: Bool
            do {
                active = try await credentials.isActive(keyID: keyID)
            } catch {
                throw RPCError(FlowError.unavailable("checking key \(keyID): \(error)"))
            }
            if !active {
                connection.login = nil
                throw refuse(connection, method, "the key was revoked")
            }
            confirmed.confirm("key " + keyID, at: version)
        }
    }

    /// The refusal, logged at info. `why` goes to the log only: a caller is not told whether a
    /// secret was unknown, revoked or expired.
    func refuse(_ connection: ConnectionState, _ method: String, _ reason: String, why: String? = nil) -> RPCError {
        let logged = why.map { "\(reason): \($0)" } ?? reason
        if let held = refusals.admit() {
            logger.info("refused: \(logged)\(Self.since(held))", metadata: ["connection": "\(connection.label)", "method": "\(method)"])
        }
        return RPCError.unauthorized(why == nil ? reason : "\(reason): the secret is unknown, revoked or expired")
    }

    static func since(_ held: Int) -> String {
        held > 0 ? " (and \(held) more refused since the last line)" : ""
    }

    // MARK: - auth methods

    func login(_ params: LoginParams, connection: ConnectionState?) async throws(RPCError) -> LoginResult {
        guard let credentials else { throw RPCError.unauthorized("this server has no key store") }
        guard let connection else { throw RPCError.unauthorized("no connection to log in") }
        let key = params.key
        let token = params.token
        let login: ConnectionState.Login
        do {
            if let key, token == nil {
                switch try await credentials.key(secret: key) {
                case .success(let stored):
                    login = .init(key: stored)
                case .failure(let refusal):
                    throw refuse(connection, "auth.login", "login with a key failed", why: refusal.reason)
                }
            } else if let token, key == nil {
                switch try await credentials.token(token) {
                case .success(let stored):
                    login = .init(token: stored, hash: Credentials.hash(token))
                case .failure(let refusal):
                    throw refuse(connection, "auth.login", "login with a token failed", why: refusal.reason)
                }
            } else {
                throw RPCError.invalidParams(key == nil ? "key" : "token", "give either key or token")
            }
        } catch let error as RPCError {
            throw error
        } catch {
            throw RPCError(FlowError.unavailable("login: \(error)"))
        }
        connection.login = login
        var metadata: Logger.Metadata = ["connection": "\(connection.label)", "kind": "\(login.principal.kind.rawValue)"]
        if let tenant = login.principal.tenant { metadata["tenant"] = "\(tenant)" }
        if let keyID = login.keyID { metadata["key"] = "\(keyID)" }
        if let userId = login.principal.userId { metadata["user"] = "\(userId)" }
        logger.info("login", metadata: metadata)
        return LoginResult(principal: login.principal)
    }

    /// The login an HTTP request's `Authorization: Bearer` secret (a key's secret or a user
    /// token) gives, checked as `auth.login` checks it. A secret seen in the last minute is not
    /// looked up again (a key's login writes its last use): its key is still checked for
    /// revocation and its token for expiry, as on every request of a logged-in connection.
    func login(bearer secret: String, connection: ConnectionState) async throws(RPCError) -> ConnectionState.Login {
        guard let credentials else { throw RPCError.unauthorized("this server has no key store") }
        let now = platform.clock()
        let hash = Credentials.hash(secret)
        if let known = bearers.login(for: hash, at: now) {
            try await stillValid(known, connection: connection, method: "bearer")
            return known
        }
        let login: ConnectionState.Login
        do {
            let found =
                secret.hasPrefix("pdt_")
                ? try await credentials.token(hash: hash).map { ConnectionState.Login(token: $0, hash: hash) }
                : try await credentials.key(secret: secret).map(ConnectionState.Login.init(key:))
            switch found {
            case .success(let given): login = given
            case .failure(let refusal):
                throw refuse(connection, "bearer", "the bearer is not a valid key or user token", why: refusal.reason)
            }
        } catch let error as RPCError {
            throw error
        } catch {
            throw RPCError(FlowError.unavailable("checking a bearer: \(error)"))
        }
        bearers.remember(login, for: hash, at: now)
        return login
    }

    func userToken(_ params: UserTokenParams, connection: ConnectionState?) async throws(RPCError) -> UserToken {
        guard let credentials else { throw RPCError.unauthorized("this server has no key store") }
        let tenant = params.tenant
        let userId = params.userId
        let ttl = params.ttlSeconds ?? ParamBounds.tokenLifetime.defaultValue
        guard platform.tenants[tenant] != nil else { throw RPCError(platform.unknownTenant(tenant)) }
        do {
            // The token dies with the key whose login minted it.
            let keyID = connection?.login?.keyID
            let minted = try await credentials.mintToken(tenant: tenant, userId: userId, ttl: TimeInterval(ttl), keyID: keyID)
            logger.info("user token minted", metadata: ["tenant": "\(tenant)", "user": "\(userId)", "ttlSeconds": "\(ttl)"])
            return UserToken(token: minted.token, expiresAt: Timestamp.string(minted.expiresAt))
        } catch {
            throw RPCError(FlowError.unavailable("minting a token: \(error)"))
        }
    }
}

extension AccessControl {
    /// `auth.revokeToken`: one token of the tenant, or every token of one of its users.
    func revokeToken(_ params: RevokeTokenParams) async throws(RPCError) -> RevokedTokens {
        guard let credentials else { throw RPCError.unauthorized("this server has no key store") }
        let tenant = params.tenant
        let token = params.token
        let userId = params.userId
        guard platform.tenants[tenant] != nil else { throw RPCError(platform.unknownTenant(tenant)) }
        do {
            let revoked = try await credentials.revokeTokens(tenant: tenant, token: token, userId: userId)
            bearers.forget()
            var metadata: Logger.Metadata = ["tenant": "\(tenant)", "revoked": "\(revoked)"]
            if let userId { metadata["user"] = "\(userId)" }
            logger.notice("user tokens revoked", metadata: metadata)
            return RevokedTokens(revoked: revoked)
        } catch {
            throw RPCError(FlowError.unavailable("revoking tokens: \(error)"))
        }
    }
}

extension ConnectionState.Login {
    /// A key's login: its tenant's, or admin for a key of no tenant; checked again by its id.
    init(key: StoredKey) {
        self.init(principal: key.tenant.map { Principal(kind: .tenant, tenant: $0) } ?? .admin, keyID: key.id)
    }

    /// A user token's login, until the token expires or is revoked (checked by its hash).
    init(token: StoredToken, hash: String) {
        self.init(
            principal: Principal(kind: .user, tenant: token.tenant, userId: token.userId, expiresAt: Timestamp.string(token.expiresAt)),
            expiresAt: token.expiresAt, tokenHash: hash)
    }
}

/// Bearer secrets' logins seen lately, by the secret's SHA-256 (never the secret), so an HTTP
/// client sending its key with every request costs one read per request, not a write.
final class BearerLogins: Sendable {
    /// How long a secret's login is reused before it is looked up (and its use recorded) again.
    static let reuse: TimeInterval = 60
    /// Past this many, the oldest half is forgotten.
    static let capacity = 10_000

    private let logins = Mutex<[String: (login: ConnectionState.Login, at: Date)]>([:])

    func login(for hash: String, at now: Date) -> ConnectionState.Login? {
        logins.withLock { logins in
            guard let known = logins[hash], now.timeIntervalSince(known.at) < Self.reuse else { return nil }
            return known.login
        }
    }

    func forget() {
        logins.withLock { $0.removeAll() }
    }

    func remember(_ login: ConnectionState.Login, for hash: String, at now: Date) {
        logins.withLock { logins in
            if logins.count >= Self.capacity {
                let oldest = logins.sorted { $0.value.at < $1.value.at }.prefix(Self.capacity / 2).map(\.key)
                for key in oldest { logins.removeValue(forKey: key) }
            }
            logins[hash] = (login, now)
        }
    }
}

/// A token bucket per tenant, per host.
final class RateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: Date
    }

    let limits: [String: RateLimit]
    let clock: @Sendable () -> Date
    let buckets = Mutex<[String: Bucket]>([:])

    init(limits: [String: RateLimit], clock: @escaping @Sendable () -> Date) {
        self.limits = limits
        self.clock = clock
    }

    /// Takes one token; nil when taken, else the milliseconds until one is there.
    func take(_ tenant: String) -> Int? {
        guard let limit = limits[tenant] else { return nil }
        let now = clock()
        return buckets.withLock { buckets in
            var bucket = buckets[tenant] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(Double(limit.burst), bucket.tokens + elapsed * limit.requestsPerSecond)
            bucket.updated = now
            defer { buckets[tenant] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / limit.requestsPerSecond * 1000).rounded(.up)))
        }
    }
}
