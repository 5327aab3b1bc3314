import Synchronization

/// The keys and tokens whose check passed while the store's credentials version stood at one
/// value (`CredentialStore.credentialsVersion()`): while it stands, nothing that could end them
/// has been committed by any `platformd` process on the database, so the next request of their
/// connections need not read them again. Any move of the version forgets them all; so does a
/// store without a version (every check reads).
///
/// A confirmation also lasts at most `lifetime`: a revocation the counter never hears of (SQL by
/// hand, an older binary, a `-credentials` file deleted under a running server) is then
/// refused within that time instead of never, at the price of one read a key or token a
/// lifetime.
final class ConfirmedCredentials: Sendable {
    private struct State {
        var version: UInt64 = 0
        var since: ContinuousClock.Instant
        var confirmed: Set<String> = []
    }

    private let state: Mutex<State>
    private let lifetime: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    /// Beyond this many, the set starts again: a bound on memory, not a cache policy worth more.
    static let limit = 10_000
    init(lifetime: Duration = AccessControl.confirmationLifetime, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.lifetime = lifetime
        self.now = now
        state = Mutex(State(since: now()))
    }

    /// Whether `id` passed its check at `version`, the store's version now, within the lifetime.
    func holds(_ id: String, at version: UInt64?) -> Bool {
        guard let version else { return false }
        let now = now()
        return state.withLock { $0.version == version && now - $0.since < lifetime && $0.confirmed.contains(id) }
    }

    /// Records that `id` passed a check that read the store after the version was `version`
    /// (read before the check, never after: a change committed between the two moves the
    /// version past it, so the record is never trusted).
    func confirm(_ id: String, at version: UInt64?) {
        guard let version else { return }
        let now = now()
        state.withLock { state in
            if state.version != version || now - state.since >= lifetime || state.confirmed.count >= Self.limit {
                state = State(version: version, since: now)
            }
            state.confirmed.insert(id)
        }
    }
}
