import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import Testing

@testable import SQLiteStore

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

/// A command refused before it writes (a validation error, a missing session) is answered from
/// the transaction without failing it: the writes that share its batch are not run twice.
@Suite struct GroupCommitRefusalTests {
    struct Refused: Error {}

    @Test func refusalsInTheTransactionDoNotRunTheirBatchAgain() async throws {
        // In memory the store has one connection, so every command decides inside the transaction.
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        // The writer held for a moment, so the commands queue up and share batches.
        let held = Task { try await store.writer.writeWithoutTransaction { _ in Thread.sleep(forTimeInterval: 0.2) } }
        try await Task.sleep(for: .milliseconds(50))
        let refused = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                group.addTask {
                    do {
                        try await store.updateSession(tenant: "t", key: .user(userId: "u\(index)", flow: "f")) { _ in
                            if index % 4 == 0 { throw Refused() }
                            return (SessionCommit(state: sampleState(id: "s\(index)", tenant: "t", user: "u\(index)", flow: "f"), events: []), ())
                        }
                        return false
                    } catch {
                        return error is Refused
                    }
                }
                group.addTask {
                    do {
                        try await store.updateProfile(tenant: "t", userId: "p\(index)", at: Date()) { _ -> (ProfileCommit?, Void) in
                            throw Refused()
                        }
                        return false
                    } catch {
                        return error is Refused
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        try await held.value
        #expect(refused == 10 + 40, "each refusal reached its caller as it was thrown")
        for index in 0..<40 where index % 4 != 0 {
            #expect(try await store.session(tenant: "t", key: .user(userId: "u\(index)", flow: "f"))?.id == "s\(index)")
        }
        let counts = store.committer.counts.withLock { $0 }
        #expect(counts.transactions < 40, "the commands shared batches")
        #expect(counts.retried == 0, "no batch ran twice for a refusal")
        try await store.close()
    }
}
