import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Concurrent writes share transactions, each in its own savepoint: a failing one rolls back only
/// itself, and everyone is answered after the commit that holds their write.
@Suite struct GroupCommitTests {
    struct Refused: Error {}

    @Test func concurrentWritesShareTransactionsAndAFailureRollsBackOnlyItself() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("group.sqlite").path)
        let writes = 64
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<writes {
                group.addTask {
                    do {
                        try await store.updateSession(tenant: "t", key: .user(userId: "u\(index)", flow: "f")) { _ in
                            var state = sampleState()
                            state.id = "s\(index)"
                            state.userId = "u\(index)"
                            state.tenant = "t"
                            state.flow = "f"
                            return (SessionCommit(state: state, events: []), ())
                        }
                        // Every seventh user's second write fails inside the transaction after
                        // writing its session row (its two outbox events share an id): its
                        // savepoint must roll back.
                        if index % 7 == 0 {
                            try await store.updateSession(tenant: "t", key: .user(userId: "u\(index)", flow: "f")) { old -> (SessionCommit?, Void) in
                                guard var state = old else { throw Refused() }
                                state.revision += 1
                                let event = sampleEvent("e\(index)", tenant: "t", user: "u\(index)", session: state.id)
                                return (SessionCommit(state: state, events: [], outbox: [event, event]), ())
                            }
                        }
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.count == writes)
        for index in 0..<writes {
            let stored = try await store.session(tenant: "t", key: .user(userId: "u\(index)", flow: "f"))
            #expect(stored?.id == "s\(index)")
            // The refused second write left the first one as it was.
            #expect(stored?.revision == sampleState().revision)
            #expect(outcomes[index] == (index % 7 != 0))
        }
        let commits = store.groupCommits
        #expect(commits.writes == writes + (writes + 6) / 7)
        // Sixty-four writers at once do not need sixty-four transactions.
        #expect(commits.transactions < commits.writes)
        try await store.close()
    }
}
