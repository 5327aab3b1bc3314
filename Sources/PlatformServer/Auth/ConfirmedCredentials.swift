import Synchronization

/// The keys and tokens whose check passed while the store's credentials version stood at one
/// value (`CredentialStore.credentialsVersion()`): while it stands, nothing that could end them
/// has been committed by any process on the database, so the next request of their connections
/// need not read them again. Any move of the version forgets them all; so does a store without
/// a version (every check reads).
final class ConfirmedCredentials: Sendable {
    private struct State {
        var version: UInt64 = 0
        var confirmed: Set<String> = []
    }

    private let state = Mutex(State())
    /// Beyond this many, the set starts again: a bound on memory, not a cache policy worth more.
    static let limit = 10_000

    /// Whether `id` passed its check at `version`, the store's version now.
    func holds(_ id: String, at version: UInt64?) -> Bool {
        guard let version else { return false }
        return state.withLock { $0.version == version && $0.confirmed.contains(id) }
    }

    /// Records that `id` passed a check that read the store after the version was `version`
    /// (read before the check, never after: a change committed between the two moves the
    /// version past it, so the record is never trusted).
    func confirm(_ id: String, at version: UInt64?) {
        guard let version else { return }
        state.withLock { state in
            if state.version != version || state.confirmed.count >= Self.limit {
                state = State(version: version)
            }
            state.confirmed.insert(id)
        }
    }
}
