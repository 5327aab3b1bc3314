import PlatformCore
import Synchronization

/// The states this process last committed or read inside a write transaction, with the row's
/// write count then, so a command on a session in use needs no read before it runs. An entry
/// is only a guess: a write from elsewhere makes it stale, and the writer's check of the write
/// count then sends the command down the path that reads the row inside the transaction (which
/// refreshes the entry). A rejected session keeps only a tombstone, its write count without its
/// state (its answers were erased): an earlier state of it remembered late (two commands of one
/// batch resume in any order) is then refused as older. Two generations bound it: when the newer
/// one fills, the older one is dropped, so an entry in use stays and the rest age out.
package final class RecentSessions: Sendable {
    package struct Entry: Sendable {
        package var state: SessionState
        package var writeCount: Int

        package init(state: SessionState, writeCount: Int) {
            self.state = state
            self.writeCount = writeCount
        }
    }

    /// Boxed, so moving an entry in and out of the dictionaries copies one reference, not the
    /// state's dozen fields. `entry` is nil for a rejected session.
    private final class Kept: Sendable {
        let entry: Entry?
        let writeCount: Int
        init(_ entry: Entry?, writeCount: Int) {
            self.entry = entry
            self.writeCount = writeCount
        }
    }

    private struct Generations {
        var newer: [String: Kept] = [:]
        var older: [String: Kept] = [:]
    }

    private let generations = Mutex(Generations())
    /// Entries per generation.
    let capacity: Int

    package init(capacity: Int = 512) {
        self.capacity = capacity
    }

    package func entry(tenant: String, id: String) -> Entry? {
        let kept = generations.withLock { $0.newer[id] ?? $0.older[id] }
        guard let entry = kept?.entry, IDBytes.equal(entry.state.tenant, tenant), IDBytes.equal(entry.state.id, id) else { return nil }
        return entry
    }

    /// Keeps a committed state (a tombstone for a rejected one) unless a later write of the same
    /// row is already kept.
    package func remember(_ row: Entry) {
        remember(row.state, writeCount: row.writeCount)
    }

    /// Drops what is kept of these sessions (an erasure deleted them), leaving tombstones no
    /// later write count passes, so a commit that finished just before the erasure cannot put
    /// the person's state back when it is remembered late.
    package func forget(_ ids: [String]) {
        generations.withLock { generations in
            for id in ids {
                generations.older[id] = nil
                generations.newer[id] = Kept(nil, writeCount: .max)
            }
        }
    }

    package func remember(_ state: SessionState, writeCount: Int) {
        // A rejected or expired session's answers are erased: only a tombstone is kept.
        let entry = state.status == .rejected || state.status == .expired ? nil : Entry(state: state, writeCount: writeCount)
        let fresh = Kept(entry, writeCount: writeCount)
        generations.withLock { generations in
            if let kept = generations.newer[state.id] ?? generations.older[state.id], kept.writeCount > writeCount { return }
            if generations.newer.count >= capacity, generations.newer[state.id] == nil {
                generations.older = generations.newer
                generations.newer = [:]
            }
            generations.older[state.id] = nil
            generations.newer[state.id] = fresh
        }
    }
}
