import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

/// The file store runs a command outside its one writer, on the state it last committed or a
/// snapshot, and commits only if the row is unchanged since: no update is lost to a concurrent
/// one, and a state another process wrote is the one a command sees.
@Suite struct OptimisticUpdateTests {
    struct Stale: Error {}

    func openStore(_ directory: URL) async throws -> SQLiteSessionStore {
        try await SQLiteSessionStore.open(path: directory.appendingPathComponent("optimistic.sqlite").path)
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
            let store = try await openStore(directory)
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
            let mine = try await openStore(directory)
            let other = try await openStore(directory)
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

extension OptimisticUpdateTests {
    /// Two stores (processes) on one file update one session at one revision at the same
    /// moment, many times: each time exactly one commits, the other then sees the winner's revision.
    @Test func twoStoresRacingOneRevisionHaveOneWinner() async throws {
        try await withTemporaryDirectory { directory in
            let a = try await openStore(directory)
            let b = try await openStore(directory)
            let initial = {
                var state = sampleState()
                state.revision = 0
                return state
            }()
            try await a.updateSession(tenant: "t1", key: .id(initial.id)) { _ in (SessionCommit(state: initial, events: []), ()) }
            let rounds = 50
            for revision in 0..<rounds {
                @Sendable func attempt(_ store: SQLiteSessionStore) async throws -> Bool {
                    try await store.updateSession(tenant: "t1", key: .id(initial.id)) { current -> (SessionCommit?, Bool) in
                        guard var next = current, next.revision == revision else { return (nil, false) }
                        next.revision = revision + 1
                        return (SessionCommit(state: next, events: []), true)
                    }
                }
                async let first = attempt(a)
                async let second = attempt(b)
                let (wonA, wonB) = try await (first, second)
                #expect(wonA != wonB, "round \(revision): exactly one store commits")
            }
            #expect(try await a.session(tenant: "t1", key: .id(initial.id))?.revision == rounds)
            try await a.close()
            try await b.close()
        }
    }

    /// Two stores starting the same user's session at once create one session, and both get it.
    @Test func twoStoresStartingOneUserCreateOneSession() async throws {
        try await withTemporaryDirectory { directory in
            let a = try await openStore(directory)
            let b = try await openStore(directory)
            for round in 0..<20 {
                @Sendable func start(_ store: SQLiteSessionStore, _ id: String) async throws -> String {
                    try await store.updateSession(tenant: "t1", key: .user(userId: "u\(round)", flow: "onboarding")) { current in
                        if let current { return (nil, current.id) }
                        let created = sampleState(id: id, user: "u\(round)")
                        return (SessionCommit(state: created, events: []), created.id)
                    }
                }
                async let first = start(a, "a\(round)")
                async let second = start(b, "b\(round)")
                let (idA, idB) = try await (first, second)
                #expect(idA == idB, "round \(round)")
                #expect(try await a.session(tenant: "t1", key: .user(userId: "u\(round)", flow: "onboarding"))?.id == idA)
            }
            try await a.close()
            try await b.close()
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

extension OptimisticUpdateTests {
    /// An enrolling start read the person's sessions a moment before: the file store runs it on
    /// nil without reading again, and when a session arrived meanwhile (another process started
    /// the person), the sessions' unique key refuses the insert and the start runs again on it.
    @Test(arguments: [false, true])
    func aSessionReadAsAbsentIsStartedWithoutASecondRead(arrivedMeanwhile: Bool) async throws {
        try await withTemporaryDirectory { directory in
            let mine = try await openStore(directory)
            let other = try await openStore(directory)
            let stored = sampleState(id: "theirs")
            let key = SessionKey.user(userId: stored.userId, flow: stored.flow)
            if arrivedMeanwhile {
                try await other.updateSession(tenant: "t1", key: key) { _ in (SessionCommit(state: stored, events: []), ()) }
            }
            let seen = Mutex<[String?]>([])
            let started = try await mine.updateSession(tenant: "t1", key: key, readAsAbsent: true) { old -> (SessionCommit?, String) in
                seen.withLock { $0.append(old?.id) }
                if let old { return (nil, old.id) }
                return (SessionCommit(state: sampleState(id: "mine"), events: []), "mine")
            }
            #expect(seen.withLock { $0 } == (arrivedMeanwhile ? [nil, "theirs"] : [nil]))
            #expect(started == (arrivedMeanwhile ? "theirs" : "mine"))
            #expect(try await other.session(tenant: "t1", key: key)?.id == started)
            try await mine.close()
            try await other.close()
        }
    }
}
