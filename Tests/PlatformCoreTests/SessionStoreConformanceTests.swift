import Foundation
import GRDB
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import PostgresStore
import SQLiteStore
import Testing

/// A place to open stores: a SQLite file in a fresh directory, SQLite in memory, or a fresh
/// schema in the PostgreSQL database `PLATFORMD_TEST_POSTGRES_URL` names.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case file, memory, postgres

    var testDescription: String { rawValue }

    /// The SQLite kinds, which every run has. Each test over them has a sibling for PostgreSQL
    /// marked `.postgres`, reported skipped when no test database is configured.
    static let sqlite: [StoreKind] = [.file, .memory]

    /// A new, empty store; for PostgreSQL without a test database (which `.postgres` keeps from
    /// running), a failure rather than a pass.
    func open() async throws -> any PlatformStore {
        switch self {
        case .memory:
            return try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        case .file:
            let directory = try TemporaryDirectory.make()
            return try await SQLiteSessionStore.open(path: directory.appendingPathComponent("store.sqlite").path)
        case .postgres:
            return try #require(try await TestPostgres.store(), "needs \(TestPostgres.variable)")
        }
    }

    /// Two hosts' stores on one database (one store for the in-memory kind, which has one host),
    /// and how to close them.
    func twoHosts() async throws -> (a: any PlatformStore, b: any PlatformStore, close: @Sendable () async throws -> Void) {
        switch self {
        case .postgres:
            let (a, b) = try #require(try await TestPostgres.twoHosts(), "needs \(TestPostgres.variable)")
            return (
                a, b,
                {
                    try await a.close()
                    try await b.close()
                }
            )
        case .file:
            let path = try TemporaryDirectory.make().appendingPathComponent("two.sqlite").path
            let a = try await SQLiteSessionStore.open(path: path)
            let b = try await SQLiteSessionStore.open(path: path)
            return (
                a, b,
                {
                    try await a.close()
                    try await b.close()
                }
            )
        case .memory:
            let one = try await open()
            return (one, one, { try await one.close() })
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where a PostgreSQL test database is configured (.ci/run starts one);
    /// elsewhere the run reports it skipped.
    static var postgres: Self { .enabled(if: TestPostgres.url != nil, "needs PLATFORMD_TEST_POSTGRES_URL (.ci/run starts a PostgreSQL)") }
}

/// The PostgreSQL test database: each store gets a schema of its own, so tests run in parallel.
enum TestPostgres {
    static let variable = "PLATFORMD_TEST_POSTGRES_URL"

    static var url: String? {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else { return nil }
        return url
    }

    static func freshSchema() -> String {
        "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    /// A store on a fresh schema; nil when no test database is configured.
    static func store(
        schema: String = freshSchema(), poolSize: Int = 4, idleKeepAlive: Duration? = nil
    ) async throws -> PostgresSessionStore? {
        guard let url = url else { return nil }
        var options = PostgresSessionStore.Options(poolSize: poolSize, schema: schema)
        if let idleKeepAlive { options.idleKeepAlive = idleKeepAlive }
        // The whole suite runs at once on two cores, servers and all: a store call may wait for
        // the machine longer than a production host should.
        // Beside the browser tests (Chromium auditing every page) a connection and the schema's
        // migration have waited over a minute for the machine.
        options.operationTimeout = .seconds(180)
        options.connectTimeout = .seconds(180)
        return try await PostgresSessionStore.connect(url: url, options: options)
    }

    /// Two stores on one fresh schema, as two hosts on one database; nil when no test database is
    /// configured.
    static func twoHosts() async throws -> (PostgresSessionStore, PostgresSessionStore)? {
        guard url != nil else { return nil }
        let schema = freshSchema()
        let a = try #require(try await store(schema: schema))
        let b = try #require(try await store(schema: schema))
        return (a, b)
    }
}

let epoch = Date(timeIntervalSince1970: 1_795_000_000)

func sampleState(id: String = "s1", tenant: String = "t1", user: String = "u1", flow: String = "onboarding") -> SessionState {
    SessionState(
        id: id, tenant: tenant, userId: user, flow: flow, locale: "es-MX", revision: 3,
        user: UserDetails(firstName: "Alex", email: "alex@example.com"),
        path: ["a", "b"], answers: ["a": ["name": "Alex", "tags": ["x", ["title": "Mine"]]], "b": [:]],
        computed: ["a": ["score": 0.5]], skipped: ["c"],
        stepErrors: ["a": [FieldError(field: "name", code: .tooShort, message: "Too short.")]],
        secondsSpent: ["a": 12.5], arrivedAt: epoch, lastSubmitDigest: "abc",
        createdAt: epoch, updatedAt: epoch.addingTimeInterval(1))
}

/// What every SessionStore must do. A new store (PostgreSQL) joins by adding its kind here.
@Suite struct SessionStoreConformance {
    func save(_ store: any SessionStore, _ state: SessionState, events: [FlowEvent] = [], profile: Profile? = nil) async throws {
        try await store.updateSession(tenant: state.tenant, key: .id(state.id)) { _ in
            (SessionCommit(state: state, events: events, profile: profile), ())
        }
    }

    @Test(.postgres) func savedStateReadsBackByIdAndByUserOnPostgres() async throws { try await savedStateReadsBackByIdAndByUser(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func savedStateReadsBackByIdAndByUser(kind: StoreKind) async throws {
        let store = try await kind.open()
        let state = sampleState()
        try await save(store, state)
        #expect(try await store.session(tenant: "t1", key: .id("s1")) == state)
        #expect(try await store.session(tenant: "t1", key: .user(userId: "u1", flow: "onboarding")) == state)
        #expect(try await store.session(tenant: "t1", key: .user(userId: "u1", flow: "other")) == nil)
        try await store.close()
    }

    @Test(.postgres) func updatesReplaceAnswersAndDropRemovedStepsOnPostgres() async throws {
        try await updatesReplaceAnswersAndDropRemovedSteps(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func updatesReplaceAnswersAndDropRemovedSteps(kind: StoreKind) async throws {
        let store = try await kind.open()
        var state = sampleState()
        try await save(store, state)
        state.answers["a"] = nil
        state.computed = [:]
        state.answers["d"] = ["flag": true]
        state.revision = 4
        state.status = .deferred
        try await save(store, state)
        let read = try await store.session(tenant: "t1", key: .id("s1"))
        #expect(read == state)
        #expect(read?.answers.keys.sorted() == ["b", "d"])
    }

    @Test(.postgres) func oneSessionPerTenantUserAndFlowOnPostgres() async throws { try await oneSessionPerTenantUserAndFlow(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func oneSessionPerTenantUserAndFlow(kind: StoreKind) async throws {
        let store = try await kind.open()
        try await save(store, sampleState(id: "s1"))
        await #expect(throws: (any Error).self) {
            try await save(store, sampleState(id: "s2"))
        }
        try await save(store, sampleState(id: "s3", flow: "other"))
        try await save(store, sampleState(id: "s4", tenant: "t2"))
        #expect(try await store.session(tenant: "t1", key: .id("s2")) == nil)
    }

    @Test(.postgres) func aSessionReadAsAbsentThatArrivedMeanwhileIsKeptOnPostgres() async throws {
        try await aSessionReadAsAbsentThatArrivedMeanwhileIsKept(kind: .postgres)
    }

    /// A start told its session was read as absent (an enrolment's read) still ends on the
    /// stored session when one arrived meanwhile: never a second session, never an error.
    @Test(arguments: StoreKind.sqlite)
    func aSessionReadAsAbsentThatArrivedMeanwhileIsKept(kind: StoreKind) async throws {
        let store = try await kind.open()
        let key = SessionKey.user(userId: "u1", flow: "onboarding")
        func start() async throws -> String {
            try await store.updateSession(tenant: "t1", key: key, readAsAbsent: true) { old -> (SessionCommit?, String) in
                if let old { return (nil, old.id) }
                return (SessionCommit(state: sampleState(id: "new"), events: []), "new")
            }
        }
        #expect(try await start() == "new")
        try await store.updateSession(tenant: "t1", key: key) { old in
            var moved = try #require(old)
            moved.revision += 1
            return (SessionCommit(state: moved, events: []), ())
        }
        #expect(try await start() == "new", "the stored session, not a second one")
        #expect(try await store.session(tenant: "t1", key: key)?.revision == 4)
        try await store.close()
    }

    @Test(.postgres) func tenantsNeverSeeEachOtherOnPostgres() async throws { try await tenantsNeverSeeEachOther(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func tenantsNeverSeeEachOther(kind: StoreKind) async throws {
        let store = try await kind.open()
        let profile = Profile(tenant: "t1", userId: "u1", completedAt: epoch, records: ["r": ["a": 1]])
        try await save(store, sampleState(), events: [FlowEvent(.started, at: epoch)], profile: profile)
        #expect(try await store.session(tenant: "t2", key: .id("s1")) == nil)
        #expect(try await store.session(tenant: "t2", key: .user(userId: "u1", flow: "onboarding")) == nil)
        #expect(try await store.profile(tenant: "t2", userId: "u1") == nil)
        #expect(try await store.events(tenant: "t2", flow: nil, since: nil, until: nil).isEmpty)
        let seen = try await store.updateSession(tenant: "t2", key: .id("s1")) { state in (nil as SessionCommit?, state) }
        #expect(seen == nil)
    }

    @Test(.postgres) func aThrowingUpdateWritesNothingOnPostgres() async throws { try await aThrowingUpdateWritesNothing(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func aThrowingUpdateWritesNothing(kind: StoreKind) async throws {
        let store = try await kind.open()
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await store.updateSession(tenant: "t1", key: .id("s1")) { _ -> (SessionCommit?, Void) in
                _ = SessionCommit(state: sampleState(), events: [])
                throw Refused()
            }
        }
        #expect(try await store.session(tenant: "t1", key: .id("s1")) == nil)
    }

    @Test(.postgres) func profilesAndRecordsOnPostgres() async throws { try await profilesAndRecords(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func profilesAndRecords(kind: StoreKind) async throws {
        let store = try await kind.open()
        let profile = Profile(tenant: "t1", userId: "u1", completedAt: epoch, records: ["profile": ["name": "Alex"], "team": ["club": .null]])
        var state = sampleState()
        state.status = .completed
        try await save(store, state, profile: profile)
        #expect(try await store.profile(tenant: "t1", userId: "u1") == profile)
        let updated = try await store.updateProfile(tenant: "t1", userId: "u1", at: epoch.addingTimeInterval(60)) { current -> (Profile?, Profile?) in
            guard var current else { return (nil, nil) }
            current.records["profile"] = ["name": "Sam"]
            current.records["team"] = nil
            return (current, current)
        }
        #expect(try await store.profile(tenant: "t1", userId: "u1") == updated)
        #expect(updated?.records.keys.sorted() == ["profile"])
        let missing = try await store.updateProfile(tenant: "t1", userId: "nobody", at: epoch) { current in (nil as Profile?, current) }
        #expect(missing == nil)
    }

    @Test(.postgres) func eventsInOrderFilteredByFlowAndTimeOnPostgres() async throws { try await eventsInOrderFilteredByFlowAndTime(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func eventsInOrderFilteredByFlowAndTime(kind: StoreKind) async throws {
        let store = try await kind.open()
        try await save(
            store, sampleState(id: "s1"),
            events: [
                FlowEvent(.started, at: epoch),
                FlowEvent(.left, step: "a", action: "continue", seconds: 4.5, at: epoch.addingTimeInterval(10)),
            ])
        try await save(store, sampleState(id: "s2", flow: "quick"), events: [FlowEvent(.started, at: epoch.addingTimeInterval(20))])
        let all = try await store.events(tenant: "t1", flow: nil, since: nil, until: nil)
        #expect(all.map(\.event.kind) == [.started, .left, .started])
        #expect(all[1].event == FlowEvent(.left, step: "a", action: "continue", seconds: 4.5, at: epoch.addingTimeInterval(10)))
        #expect(all[1].sessionId == "s1")
        #expect(try await store.events(tenant: "t1", flow: "quick", since: nil, until: nil).count == 1)
        let window = try await store.events(tenant: "t1", flow: nil, since: epoch.addingTimeInterval(5), until: epoch.addingTimeInterval(20))
        #expect(window.map(\.event.kind) == [.left])
    }

    @Test func aFileStoreCommitsWithSynchronousFull() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("sync.sqlite").path)
        #expect(try await store.synchronousMode() == 2)
        try await store.close()
    }

    @Test func aFileStoreReopensWithItsState() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("nested/store.sqlite").path
        let first = try await SQLiteSessionStore.open(path: path)
        let state = sampleState()
        try await save(first, state)
        try await first.close()
        let second = try await SQLiteSessionStore.open(path: path)
        #expect(try await second.session(tenant: "t1", key: .id("s1")) == state)
        try await second.close()
    }
}

@Suite(.serialized) struct Erasure {
    /// Every file of the database (main file, WAL, shared memory) as bytes.
    func databaseBytes(in directory: URL) throws -> [(String, Data)] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).map {
            ($0, try Data(contentsOf: directory.appendingPathComponent($0)))
        }
    }

    func filesContaining(_ marker: String, in directory: URL) throws -> [String] {
        let needle = Data(marker.utf8)
        return try databaseBytes(in: directory).filter { $0.1.range(of: needle) != nil }.map(\.0)
    }

    /// Rejects `view` (an underage birthdate) while another connection holds a read snapshot of
    /// the file at `path` (an operator's sqlite3, a backup), runs `beforeRelease`, then lets go.
    func rejectWhileAReaderHolds(
        _ d: FlowDriver, _ view: SessionView, path: String, beforeRelease: () async throws -> Void = {}
    ) async throws {
        let reader = try DatabaseQueue(path: path)
        // The reader waits on a thread of its own (BlockingWork's), and the test awaits its
        // snapshot without blocking: a semaphore wait here, with the reader on a detached task,
        // held both of the cooperative pool's threads on a 2-core machine.
        let release = DispatchSemaphore(value: 0)
        let (holding, holds) = AsyncStream<Void>.makeStream()
        let held = Task {
            // A reader that fails before its snapshot ends the wait too (held.value says why).
            defer { holds.finish() }
            try await BlockingWork.run("test.snapshot-reader") {
                try reader.read { db in
                    _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sessions")
                    holds.yield()
                    // Long: let go early, the snapshot this test is about would be gone.
                    _ = release.wait(timeout: .now() + 600)
                }
            }
        }
        var snapshot = holding.makeAsyncIterator()
        _ = await snapshot.next()
        let rejected = try await d.submit(view, ["birthdate": "2021-06-01"])
        #expect(rejected.status == .rejected)
        try await beforeRelease()
        release.signal()
        try await held.value
        try reader.close()
    }

    @Test func aRejectedSessionLeavesNoAnswerInTheFileOrItsWAL() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteSessionStore.open(path: directory.appendingPathComponent("erase.sqlite").path)
        let d = try await FlowDriver(plugin: FixturePlugin(), store: store)
        let markers = ["Quokkaname", "quokka@example.com", "Petquokka", "Customquokkatag"]
        var view = try await atBasics(d, details: UserDetails(firstName: "Zed", email: "quokka@example.com"))
        view = try await d.walk(
            view,
            [
                basics.merging(["name": "Quokkaname", "hasPet": true, "petName": "Petquokka"]) { $1 },
                ["route": "slow"], ["tags": ["a1", ["title": "Customquokkatag"]]],
            ])
        // A second user's session, which must survive the erasure intact.
        let other = try await atBasics(d, user: "u2")
        _ = try await d.submit(other, basics.merging(["name": "Keepme"]) { $1 })
        // The scan can find what is there: before the rejection every marker is on disk.
        for marker in markers {
            #expect(try !filesContaining(marker, in: directory).isEmpty, "\(marker) should be stored before erasure")
        }
        let rejected = try await d.submit(view, ["birthdate": "2021-06-01"])
        #expect(rejected.status == .rejected)
        for marker in markers + ["2021-06-01"] {
            #expect(try filesContaining(marker, in: directory).isEmpty, "\(marker) must be erased")
        }
        #expect(try !filesContaining("Keepme", in: directory).isEmpty)
        try await store.close()
    }

    /// A reader holding an old snapshot (an operator's sqlite3, a backup) blocks the WAL's
    /// truncation: the rejection is still answered at once, and the bytes go at the next write
    /// after the reader is done.
    @Test func aReaderHoldingASnapshotOnlyPostponesTheErasure() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("held.sqlite").path
        let store = try await SQLiteSessionStore.open(path: path)
        let d = try await FlowDriver(plugin: FixturePlugin(), store: store)
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics.merging(["name": "Heldmarker"]) { $1 }, ["route": "fast"]])

        try await rejectWhileAReaderHolds(d, view, path: path)
        _ = try await d.start("someone-else")
        #expect(try filesContaining("Heldmarker", in: directory).isEmpty)
        try await store.close()
    }
}

extension Erasure {
    /// The erasure does not wait for the next write: once the reader lets go, a timer finishes
    /// the truncation, and no byte of the rejected person remains within a few seconds.
    @Test func aPostponedErasureCompletesWithoutAnotherWrite() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("timer.sqlite").path
        let store = try await SQLiteSessionStore.open(path: path)
        let d = try await FlowDriver(plugin: FixturePlugin(), store: store)
        var view = try await atBasics(d)
        view = try await d.walk(view, [basics.merging(["name": "Timermarker"]) { $1 }, ["route": "fast"]])

        try await rejectWhileAReaderHolds(d, view, path: path) { try await Task.sleep(for: .milliseconds(300)) }
        // No write follows: only the store's own retry can truncate the WAL now.
        var remaining = try filesContaining("Timermarker", in: directory)
        for _ in 0..<100 where !remaining.isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            remaining = try filesContaining("Timermarker", in: directory)
        }
        #expect(remaining.isEmpty, "still in \(remaining)")
        try await store.close()
    }
}

/// The SQLite store reads no clock: a record's `updated_at` is the time its writer passed.
@Suite struct RecordTimeTests {
    @Test func recordsAreStampedWithTheTimeTheCallerGives() async throws {
        let path = try TemporaryDirectory.make().appendingPathComponent("store.sqlite").path
        let store = try await SQLiteSessionStore.open(path: path)
        let state = {
            var state = sampleState()
            state.status = .completed
            return state
        }()
        let profile = Profile(tenant: "t1", userId: "u1", completedAt: state.updatedAt, records: ["a": ["x": 1]])
        try await store.updateSession(tenant: "t1", key: .id("s1")) { _ in
            (SessionCommit(state: state, events: [], profile: profile), ())
        }
        let reader = try DatabaseQueue(path: path)
        func stamps() async throws -> [String: Double] {
            try await reader.read { db in
                try Dictionary(
                    uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT name, updated_at FROM records").map {
                        (($0["name"] as String), ($0["updated_at"] as Double))
                    })
            }
        }
        // A completion's records carry the commit's time.
        #expect(try await stamps() == ["a": state.updatedAt.timeIntervalSince1970])
        try await store.updateProfile(tenant: "t1", userId: "u1", at: epoch.addingTimeInterval(90)) { current in
            var updated = current
            updated?.records["b"] = ["y": 2]
            return (updated, ())
        }
        #expect(
            try await stamps() == [
                "a": epoch.addingTimeInterval(90).timeIntervalSince1970, "b": epoch.addingTimeInterval(90).timeIntervalSince1970,
            ])
        try await store.close()
    }
}
