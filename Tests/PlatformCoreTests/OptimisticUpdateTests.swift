import Foundation
import Synchronization
import PlatformCore
import PlatformTesting
import Testing

/// The file store runs a command outside its one writer, on the state it last committed or a
/// snapshot, and commits only if the row is unchanged since: no update is lost to a concurrent
/// one, and a state another process wrote is the one a command sees.
@Suite struct OptimisticUpdateTests {
    struct Stale: Error {}

    func openStore(_ directory: URL) throws -> SQLiteSessionStore {
        try SQLiteSessionStore(path: directory.appendingPathComponent("optimistic.sqlite").path)
    }

    func increment(_ store: SQLiteSessionStore, _ id: String, seen: (@Sendable (Int) throws -> Void)? = nil) async throws {
        try await store.updateSession(tenant: "t1", key: .id(id)) { old -> (SessionCommit?, Void) in
            guard var state = old else { throw Stale() }
            try seen?(state.revision)
            state.revision += 1
            return (SessionCommit(state: state, events: []), ())
        }
    }

    @Test func concurrentCommandsOnOneSessionLoseNoUpdate() async throws {
        try await withTemporaryDirectory { directory in
            let store = try openStore(directory)
            let state = sampleState()
            try await store.updateSession(tenant: "t1", key: .id(state.id)) { _ in (SessionCommit(state: state, events: []), ()) }
            let commands = 40
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<commands { group.addTask { try await increment(store, state.id) } }
                try await group.waitForAll()
            }
            #expect(try await store.session(tenant: "t1", key: .id(state.id))?.revision == state.revision + commands)
            try await store.close()
        }
    }

    @Test func aWriteFromAnotherProcessIsWhatTheNextCommandSees() async throws {
        try await withTemporaryDirectory { directory in
            let mine = try openStore(directory)
            let other = try openStore(directory)
            let state = sampleState()
            try await mine.updateSession(tenant: "t1", key: .id(state.id)) { _ in (SessionCommit(state: state, events: []), ()) }
            try await increment(mine, state.id)
            // Another store on the same file moves the session on; `mine` still remembers the
            // state before. A command that requires the latest revision (as a client's submit
            // does) must succeed, on the stored row, rather than fail on the remembered one.
            try await increment(other, state.id)
            let latest = state.revision + 2
            let seen = Mutex<[Int]>([])
            try await increment(mine, state.id) { revision in
                seen.withLock { $0.append(revision) }
                guard revision == latest else { throw Stale() }
            }
            #expect(seen.withLock { $0 }.last == latest)
            #expect(try await mine.session(tenant: "t1", key: .id(state.id))?.revision == latest + 1)
            // And a remembered state that would commit is checked against the row: the other
            // store's write is not overwritten.
            try await increment(other, state.id)
            try await increment(mine, state.id)
            #expect(try await other.session(tenant: "t1", key: .id(state.id))?.revision == latest + 3)
            try await mine.close()
            try await other.close()
        }
    }
}

/// Session ids sort by the time they were drawn (so sessions in progress share index pages) and
/// stay well-formed, unguessable UUIDs.
@Suite struct TimeOrderedIDTests {
    @Test func idsDrawnLaterSortAfterAndCarryVersionSevenWithRandomBits() throws {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        let ids = (0..<200).map { TimeOrderedID.make(at: start.addingTimeInterval(Double($0) / 100)) }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let uuid = try #require(UUID(uuidString: id), "\(id)")
            #expect(id == id.lowercased())
            #expect(uuid.uuid.6 >> 4 == 7, "version: \(id)")
            #expect(uuid.uuid.8 >> 6 == 0b10, "variant: \(id)")
        }
        // Two ids of the same millisecond differ in their random bits.
        let sameMoment = Set((0..<100).map { _ in TimeOrderedID.make(at: start) })
        #expect(sameMoment.count == 100)
        // The leading 48 bits are the milliseconds since 1970.
        let hex = ids[0].replacingOccurrences(of: "-", with: "").prefix(12)
        #expect(UInt64(hex, radix: 16) == 1_790_000_000_000)
    }
}
