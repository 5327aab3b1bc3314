import PlatformCore
import PlatformStorage
import Synchronization

/// What this host knows of the order in which flow versions were first served on its database.
/// During a rolling deploy an old host and a new one serve the same sessions: a session the new
/// host moved onto its version must not be moved back by the old one. A version first served
/// after this host's own newest (or not known when this host started) is newer: the old host
/// answers -32008 for it (retry: the load balancer reaches a new host) and leaves it as it is.
final class FlowRegistry: Sendable {
    /// A version is its string and its shape: the same shape under a new version string (a copy
    /// change) is another version, and so is a new shape under the same string.
    private struct Key: Hashable {
        var tenant: String
        var flow: String
        var version: String
        var fingerprint: String
    }

    private let known = Mutex<(loaded: Bool, order: [Key: Int64])>((false, [:]))

    func learn(_ records: [FlowVersionRecord]) {
        known.withLock { known in
            known.loaded = true
            for record in records {
                known.order[Key(tenant: record.tenant, flow: record.flow, version: record.version, fingerprint: record.fingerprint)] = record.sequence
            }
        }
    }

    enum Order {
        case older, newer
        /// Not registered when this host last read the registry: read it again.
        case unknown
    }

    /// Whether a version was first served before or after `newest` (this host's newest version
    /// of the flow). Older while nothing is registered (a store without a registry, tests):
    /// then every version not served is taken as older.
    func order(
        tenant: String, flow: String, version: String, fingerprint: String, than newest: (version: String, fingerprint: String)
    ) -> Order {
        known.withLock { known in
            guard known.loaded,
                let own = known.order[Key(tenant: tenant, flow: flow, version: newest.version, fingerprint: newest.fingerprint)]
            else { return .older }
            guard let theirs = known.order[Key(tenant: tenant, flow: flow, version: version, fingerprint: fingerprint)] else { return .unknown }
            return theirs > own ? .newer : .older
        }
    }

    /// A version still unknown after a fresh read of the registry was never served by a host
    /// that registers (written before, or by hand): older.
    func settle(tenant: String, flow: String, version: String, fingerprint: String) {
        known.withLock { known in
            let key = Key(tenant: tenant, flow: flow, version: version, fingerprint: fingerprint)
            if known.order[key] == nil { known.order[key] = 0 }
        }
    }
}
