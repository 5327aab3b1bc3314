import Foundation
import PlatformCore
import PlatformStorage
import Synchronization

/// Who one connection acts for. Created by the transport with its default (admin where no login
/// is needed, nobody where one is), changed by `auth.login`.
public final class ConnectionState: Sendable {
    /// A principal and where it came from, so a revoked key or an expired token stops working.
    public struct Login: Sendable, Hashable {
        public var principal: Principal
        /// The key it logged in with; checked again on every request.
        public var keyID: String?
        public var expiresAt: Date?
        /// The user token's hash, checked again on every request (revocation).
        public var tokenHash: String?

        public init(principal: Principal, keyID: String? = nil, expiresAt: Date? = nil, tokenHash: String? = nil) {
            self.principal = principal
            self.keyID = keyID
            self.expiresAt = expiresAt
            self.tokenHash = tokenHash
        }
    }

    private let current: Mutex<Login?>
    /// A label for log lines (never a secret).
    public let label: String
    /// The transport it came on (`stdio`, `unix`, `tcp`, `http`, `websocket`, `mcp`), the
    /// `transport` label of the request metrics.
    public let transport: String
    /// Whether each request takes from the tenant's rate limit. False only for a door that counts
    /// its own calls (an MCP tool call is one request, however many methods it runs).
    public let countsRequests: Bool

    public init(_ login: Login?, label: String, transport: String = "local", countsRequests: Bool = true) {
        current = Mutex(login)
        self.label = label
        self.transport = transport
        self.countsRequests = countsRequests
    }

    /// A connection that needs no login: it acts as admin until it logs in as someone narrower.
    public static func trusted(_ label: String, transport: String = "local") -> ConnectionState {
        ConnectionState(Login(principal: .admin), label: label, transport: transport)
    }

    /// A new connection: logged out where the transport requires a login, else trusted.
    public static func opened(requireLogin: Bool, label: String, transport: String = "local") -> ConnectionState {
        requireLogin ? ConnectionState(nil, label: label, transport: transport) : .trusted(label, transport: transport)
    }

    public var login: Login? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
