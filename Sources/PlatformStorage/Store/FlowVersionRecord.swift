import PlatformCore

/// A version of a flow as a host serves it, and its place in the order in which the hosts of
/// one database first served versions (`sequence`, 0 until registered).
public struct FlowVersionRecord: Sendable, Hashable {
    public var tenant: String
    public var flow: String
    public var version: String
    public var fingerprint: String
    public var sequence: Int64

    public init(tenant: String, flow: String, version: String, fingerprint: String, sequence: Int64 = 0) {
        self.tenant = tenant
        self.flow = flow
        self.version = version
        self.fingerprint = fingerprint
        self.sequence = sequence
    }
}
