import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

@testable import PostgresStore

/// Keys and tokens behave the same on every store.
@Suite struct CredentialStoreConformance {
    @Test(.postgres) func keysAreListedUsedAndRevokedOnPostgres() async throws { try await keysAreListedUsedAndRevoked(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func keysAreListedUsedAndRevoked(kind: StoreKind) async throws {
        let store = try await kind.open()
        let admin = StoredKey(id: "k1", tenant: nil, name: "admin key", createdAt: epoch)
        let tenant = StoredKey(id: "k2", tenant: "t1", name: "t1 key", createdAt: epoch.addingTimeInterval(1))
        try await store.insertKey(admin, secretHash: "h1")
        try await store.insertKey(tenant, secretHash: "h2")
        await #expect(throws: (any Error).self) { try await store.insertKey(StoredKey(id: "k3", tenant: nil, name: "x", createdAt: epoch), secretHash: "h1") }
        #expect(try await store.keys() == [admin, tenant])
        let used = try await store.useKey(secretHash: "h2", at: epoch.addingTimeInterval(5))
        #expect(used?.lastUsedAt == epoch.addingTimeInterval(5))
        #expect(try await store.useKey(secretHash: "nope", at: epoch) == nil)
        #expect(try await store.isKeyActive(id: "k2"))
        #expect(try await store.revokeKey(id: "k2", at: epoch.addingTimeInterval(9)))
        #expect(try await !store.revokeKey(id: "k2", at: epoch.addingTimeInterval(10)))
        #expect(try await !store.isKeyActive(id: "k2"))
        #expect(try await !store.isKeyActive(id: "missing"))
        // A revoked key is still found (to answer "revoked"), and its last use is not moved.
        let revoked = try await store.useKey(secretHash: "h2", at: epoch.addingTimeInterval(20))
        #expect(revoked?.revokedAt == epoch.addingTimeInterval(9))
        #expect(revoked?.lastUsedAt == epoch.addingTimeInterval(5))
        try await store.close()
    }

    @Test(.postgres) func tokensReadBackAndExpiredOnesAreSweptOnPostgres() async throws { try await tokensReadBackAndExpiredOnesAreSwept(kind: .postgres) }

    @Test(arguments: StoreKind.sqlite)
    func tokensReadBackAndExpiredOnesAreSwept(kind: StoreKind) async throws {
        let store = try await kind.open()
        try await store.insertToken(StoredToken(tenant: "t1", userId: "u1", expiresAt: epoch.addingTimeInterval(60)), secretHash: "a", createdAt: epoch)
        #expect(try await store.token(secretHash: "a") == StoredToken(tenant: "t1", userId: "u1", expiresAt: epoch.addingTimeInterval(60)))
        #expect(try await store.token(secretHash: "b") == nil)
        try await store.insertToken(
            StoredToken(tenant: "t1", userId: "u2", expiresAt: epoch.addingTimeInterval(600)), secretHash: "b",
            createdAt: epoch.addingTimeInterval(61))
        #expect(try await store.token(secretHash: "a") == nil)
        #expect(try await store.token(secretHash: "b")?.userId == "u2")
        try await store.close()
    }
}

/// What only PostgreSQL has: several hosts (stores) on one database.
@Suite struct PostgresHostsTests {
    /// A host whose calls come one at a time pings the connections its pool keeps open (two of a
    /// pool of four, one ping each, on two server processes): the second would otherwise never be
    /// used, and a NAT or firewall could forget it. None after close.
    @Test(.postgres) func anIdleHostPingsEachConnectionItKeepsOpen() async throws {
        guard let store = try await TestPostgres.store(idleKeepAlive: .milliseconds(200)) else { return }
        let deadline = ContinuousClock.now + .seconds(30)
        // Sparse traffic: one read at a time, never two in flight.
        // Until a round's two pings were seen on two server processes (on a loaded machine one
        // round's pings may come apart and share one).
        while store.idlePings.withLock({ $0.count < 2 || $0.widest < 2 }), ContinuousClock.now < deadline {
            _ = try await store.session(tenant: "t1", key: .id("none"))
            try await Task.sleep(for: .milliseconds(30))
        }
        let pings = store.idlePings.withLock { $0 }
        #expect(pings.count >= 2, "rounds of pings under sparse traffic")
        #expect(pings.widest == 2, "a round pinged both kept connections, one each")
        try await store.dropSchema()
        try await store.close()
        let closed = store.idlePings.withLock { $0.count }
        try await Task.sleep(for: .milliseconds(600))
        #expect(store.idlePings.withLock { $0.count } == closed, "no ping after close")
    }

    /// A PostgreSQL server that is not there: start-up fails with `Unreachable` instead of a pool
    /// retrying in the background forever. Runs without any database. The time limit is that
    /// guard, not a speed: a refused connection fails at once, but in the opening minute of a
    /// whole run on two cores some 80 `platformd` children starve this process (a CI run measured
    /// 72.7 s from this test's start to the refusal, every test around it as late).
    @Test(.timeLimit(.minutes(5))) func anUnreachableServerFailsAtStartUp() async throws {
        await #expect(throws: PostgresSessionStore.Unreachable.self) {
            _ = try await PostgresSessionStore.connect(url: "postgres://nobody:secret@127.0.0.1:1/none")
        }
        await #expect(throws: PostgresSessionStore.InvalidURL.self) {
            _ = try await PostgresSessionStore.connect(url: "postgres://127.0.0.1/none")
        }
        #expect(PostgresSessionStore.isURL("postgresql://u@h/d"))
        #expect(!PostgresSessionStore.isURL("platformd.sqlite"))
    }

    /// Hosts starting together on an empty schema: each migrates or finds it migrated, none fails.
    /// A store call is answered at the operation timeout even when its work does not heed its
    /// cancellation (a lease or a statement stuck in the driver): the caller used to wait for the
    /// cancelled work to end, and a whole-suite run stalled on two such calls for good.
    /// (No time limit: Swift Testing's cannot end an await that ignores cancellation; a
    /// regression hangs the run, and the watchdogs' evidence names this test.)
    @Test(.postgres)
    func aCallWhoseWorkIgnoresCancellationIsAnsweredAtTheOperationTimeout() async throws {
        // Connected and migrated under the usual bound (the whole suite shares two cores), then
        // a short one for the call.
        let store = try #require(try await TestPostgres.store())
        store.watch.operationTimeout = .seconds(2)
        let gate = Gate()
        await #expect(throws: StoreUnavailable.self) {
            try await store.connection { _ in await gate.wait() }
        }
        // The work ends only now, after its caller was answered.
        gate.open()
        try await store.close()
    }

    /// A wait that ignores cancellation, until `open`.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    @Test(.postgres) func hostsStartingTogetherMigrateOnce() async throws {
        guard TestPostgres.url != nil else { return }
        let schema = TestPostgres.freshSchema()
        let stores = try await withThrowingTaskGroup(of: PostgresSessionStore.self) { group in
            for _ in 0..<4 { group.addTask { try await TestPostgres.store(schema: schema, poolSize: 2)! } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 4)
        try await stores[0].updateSession(tenant: "t1", key: .id("s1")) { _ in (SessionCommit(state: sampleState(), events: []), ()) }
        for store in stores { #expect(try await store.session(tenant: "t1", key: .id("s1")) == sampleState()) }
        try await stores[0].dropSchema()
        for store in stores { try await store.close() }
    }

    /// Two stores (hosts) update one session at one revision at the same moment, many times:
    /// each time exactly one commits, and the other then reads the winner's revision.
    @Test(.postgres) func twoHostsRacingOneRevisionHaveOneWinner() async throws {
        guard let (a, b) = try await TestPostgres.twoHosts() else { return }
        var state = sampleState()
        state.revision = 0
        let initial = state
        try await a.updateSession(tenant: "t1", key: .id("s1")) { _ in (SessionCommit(state: initial, events: []), ()) }
        let rounds = 100
        for revision in 0..<rounds {
            @Sendable func attempt(_ store: PostgresSessionStore, _ host: String) async throws -> Bool {
                try await store.updateSession(tenant: "t1", key: .id("s1")) { current -> (SessionCommit?, Bool) in
                    guard var next = current, next.revision == revision else { return (nil, false) }
                    next.revision = revision + 1
                    next.lastSubmitDigest = host
                    return (SessionCommit(state: next, events: [FlowEvent(.arrived, step: host, at: epoch)]), true)
                }
            }
            async let first = attempt(a, "a")
            async let second = attempt(b, "b")
            let (wonA, wonB) = try await (first, second)
            #expect(wonA != wonB, "round \(revision): exactly one host commits")
        }
        #expect(try await b.session(tenant: "t1", key: .id("s1"))?.revision == rounds)
        #expect(try await a.events(tenant: "t1", flow: nil, since: nil, until: nil).count == rounds)
        try await a.dropSchema()
        try await a.close()
        try await b.close()
    }

    /// Stores `state` at revision 0 (through the store, so the host remembers it).
    static func create(_ store: PostgresSessionStore, _ state: SessionState) async throws {
        var initial = state
        initial.revision = 0
        let created = initial
        try await store.updateSession(tenant: created.tenant, key: .id(created.id)) { _ in (SessionCommit(state: created, events: []), ()) }
    }

    /// Group commit of the optimistic writes: writes arriving together share statements, and each
    /// still learns its own outcome. Two commands on one session from one host are both decided
    /// on the state it remembers; had they gone in one statement, both would be told they applied.
    @Test(.postgres) func writesArrivingTogetherShareStatementsAndEachLearnsItsOwnOutcome() async throws {
        guard TestPostgres.url != nil else { return }
        let store = try #require(try await TestPostgres.store())
        let sessions = (0..<40).map { "s\($0)" }
        for id in sessions { try await Self.create(store, sampleState(id: id, user: "u-" + id)) }
        let wins = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
            for id in sessions {
                for host in ["x", "y"] {
                    group.addTask {
                        let won = try await store.updateSession(tenant: "t1", key: .id(id)) { current -> (SessionCommit?, Bool) in
                            guard var next = current, next.revision == 0 else { return (nil, false) }
                            next.revision = 1
                            next.lastSubmitDigest = host
                            return (SessionCommit(state: next, events: [FlowEvent(.arrived, step: host, at: epoch)]), true)
                        }
                        return (id, won)
                    }
                }
            }
            var wins: [String: Int] = [:]
            for try await (id, won) in group where won { wins[id, default: 0] += 1 }
            return wins
        }
        for id in sessions {
            #expect(wins[id] == 1, "\(id): exactly one of its two commands applies")
            let stored = try await store.session(tenant: "t1", key: .id(id))
            #expect(stored?.revision == 1)
        }
        #expect(try await store.events(tenant: "t1", flow: nil, since: nil, until: nil).count == sessions.count)
        let (statements, writes) = store.groupCommitted
        #expect(writes >= sessions.count)
        #expect(statements < writes, "80 writes at once on one lane share statements")
        try await store.dropSchema()
        try await store.close()
    }

    /// Completions go through group commit with their records and events: two of one user's
    /// flows completing together never share a statement (one upsert cannot touch the profile
    /// twice), and every completion's profile, records and outbox event are written with it.
    @Test(.postgres) func completionsArrivingTogetherKeepTheirRecordsAndEvents() async throws {
        guard TestPostgres.url != nil else { return }
        let store = try #require(try await TestPostgres.store())
        let users = (0..<15).map { "c\($0)" }
        let flows = ["first", "second"]
        for user in users {
            for flow in flows { try await Self.create(store, sampleState(id: "\(user)-\(flow)", user: user, flow: flow)) }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for user in users {
                for flow in flows {
                    group.addTask {
                        try await store.updateSession(tenant: "t1", key: .id("\(user)-\(flow)")) { current -> (SessionCommit?, Void) in
                            guard var next = current else { return (nil, ()) }
                            next.revision += 1
                            next.status = .completed
                            let profile = Profile(tenant: "t1", userId: user, completedAt: epoch, records: [flow: ["done": true]])
                            let event = PlatformEvent(
                                id: "evt-\(next.id)", type: .sessionCompleted, tenant: "t1", userId: user, sessionId: next.id,
                                occurredAt: epoch, data: ["records": [flow: ["done": true]]])
                            return (
                                SessionCommit(
                                    state: next, events: [FlowEvent(.completed, at: epoch)], profile: profile,
                                    outbox: [OutboxEvent(event: event, webhooks: ["https://example.com/hook"], deliverUntil: epoch.addingTimeInterval(60))]), ()
                            )
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for user in users {
            let profile = try await store.profile(tenant: "t1", userId: user)
            #expect(profile?.records.keys.sorted() == flows.sorted(), "\(user): both flows' records kept")
            for flow in flows {
                #expect(try await store.session(tenant: "t1", key: .id("\(user)-\(flow)"))?.status == .completed)
            }
        }
        let outbox = try await store.outbox(tenant: "t1", after: 0, limit: 1000)
        #expect(outbox.count == users.count * flows.count, "one event per completion")
        #expect(Set(outbox.map(\.event.id)).count == outbox.count)
        #expect(Set(outbox.map(\.event.id)) == Set(users.flatMap { user in flows.map { "evt-\(user)-\($0)" } }))
        // Each event's delivery to the tenant's webhook was written with it.
        let claimed = try await store.claimDeliveries(now: epoch.addingTimeInterval(1), limit: 1000, lease: 60, host: "test")
        #expect(Set(claimed.claims.map(\.eventId)) == Set(outbox.map(\.event.id)))
        #expect(claimed.claims.allSatisfy { $0.webhook == "https://example.com/hook" && $0.tenant == "t1" })
        let (statements, writes) = store.groupCommitted
        #expect(statements < writes, "completions arriving together share statements")
        try await store.dropSchema()
        try await store.close()
    }

    /// A session row another transaction holds (another host's locked command, an erasure) does
    /// not stall the host's other writes: the batch skips it (`SKIP LOCKED`) and its command waits
    /// on the locked path alone, then applies.
    @Test(.postgres) func aRowHeldElsewhereDoesNotStallTheOtherWrites() async throws {
        guard let url = TestPostgres.url else { return }
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/psql"), "psql comes with the PostgreSQL .ci/run installs")
        let schema = TestPostgres.freshSchema()
        let store = try #require(try await TestPostgres.store(schema: schema))
        let free = (0..<10).map { "free\($0)" }
        for id in ["held"] + free { try await Self.create(store, sampleState(id: id, user: "u-" + id)) }
        @Sendable func bump(_ id: String) async throws -> Bool {
            try await store.updateSession(tenant: "t1", key: .id(id)) { current -> (SessionCommit?, Bool) in
                guard var next = current, next.revision == 0 else { return (nil, false) }
                next.revision = 1
                return (SessionCommit(state: next, events: [FlowEvent(.arrived, step: "b", at: epoch)]), true)
            }
        }
        // psql holds the row for 10 s and says when it has it.
        let input = Pipe()
        let output = Pipe()
        let holder = try ChildProcess(
            "/usr/bin/psql", arguments: [url, "-X", "-q", "-v", "ON_ERROR_STOP=1"],
            stdin: .descriptor(input.fileHandleForReading.fileDescriptor), stdout: .descriptor(output.fileHandleForWriting.fileDescriptor))
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        input.fileHandleForWriting.write(
            Data(
                """
                SET search_path TO \(schema);
                BEGIN;
                SELECT id FROM sessions WHERE id = 'held' FOR UPDATE \\g /dev/null
                \\echo locked
                SELECT pg_sleep(10) \\g /dev/null
                COMMIT;

                """.utf8))
        try input.fileHandleForWriting.close()
        let reader = output.fileHandleForReading
        let said: String = await withCheckedContinuation { continuation in
            Thread {
                var line = Data()
                while let byte = try? reader.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0A]) { line.append(byte) }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }.start()
        }
        #expect(said == "locked", "psql: \(said)")

        async let heldApplied = bump("held")
        let freeApplied = try await withThrowingTaskGroup(of: Bool.self) { group in
            for id in free { group.addTask { try await bump(id) } }
            return try await group.reduce(into: 0) { count, applied in count += applied ? 1 : 0 }
        }
        #expect(freeApplied == free.count)
        #expect(holder.isRunning, "the other sessions' writes were done while the row was still held")
        #expect(try await heldApplied, "the held session's command waited for the row and applied")
        #expect(await holder.waitForExit().status == 0)
        for id in ["held"] + free { #expect(try await store.session(tenant: "t1", key: .id(id))?.revision == 1) }
        try await store.dropSchema()
        try await store.close()
    }

    /// Two hosts starting the same users' sessions at once: a start takes no lock when it finds no
    /// session, so the insert that loses (the unique tenant, user and flow) is decided again on
    /// the winner's row. Every user ends with one session, and both hosts answer with it.
    @Test(.postgres) func twoHostsStartingOneUserAtOnceShareOneSession() async throws {
        guard let (a, b) = try await TestPostgres.twoHosts() else { return }
        @Sendable func start(_ store: PostgresSessionStore, _ user: String, _ host: String) async throws -> String {
            try await store.updateSession(tenant: "t1", key: .user(userId: user, flow: "onboarding")) { current -> (SessionCommit?, String) in
                if let current { return (nil, current.id) }
                var state = sampleState(id: "\(user)-\(host)", user: user)
                state.revision = 0
                return (SessionCommit(state: state, events: [FlowEvent(.started, at: epoch)]), state.id)
            }
        }
        for round in 0..<40 {
            let user = "racer\(round)"
            async let first = start(a, user, "a")
            async let second = start(b, user, "b")
            let (idA, idB) = try await (first, second)
            #expect(idA == idB, "\(user): both hosts answer with the one session")
            #expect(try await a.session(tenant: "t1", key: .user(userId: user, flow: "onboarding"))?.id == idA)
        }
        #expect(try await a.events(tenant: "t1", flow: nil, since: nil, until: nil).count == 40, "one started event per user")
        try await a.dropSchema()
        try await a.close()
        try await b.close()
    }

    /// The same race through the engine on two platforms: one submit is accepted, the other is
    /// answered -32003 with the current session.
    @Test(.postgres) func twoPlatformsRacingASubmitGiveOneAcceptanceAndOneStaleRevision() async throws {
        guard let (a, b) = try await TestPostgres.twoHosts() else { return }
        let clock = TestClock()
        let hostA = try await FlowDriver(plugin: FixturePlugin(), store: a, clock: clock)
        let hostB = try await FlowDriver(plugin: FixturePlugin(), store: b, clock: clock)
        var accepted = 0
        var stale = 0
        for round in 0..<20 {
            // Starting the same user on both hosts at once creates one session.
            async let startA = hostA.start("u\(round)")
            async let startB = hostB.start("u\(round)")
            let (viewA, viewB) = try await (startA, startB)
            #expect(viewA.sessionId == viewB.sessionId)
            let welcome = try await hostB.submit(viewA)
            // Different answers at one revision (the same ones twice would be a retry, answered alike).
            async let submitA = Self.outcome { try await hostA.submit(welcome, basics.merging(["name": "Ann"]) { $1 }) }
            async let submitB = Self.outcome { try await hostB.submit(welcome, basics.merging(["name": "Bob"]) { $1 }) }
            for outcome in await [submitA, submitB] {
                switch outcome {
                case .success: accepted += 1
                case .failure(let error):
                    #expect(error.code == -32003)
                    stale += 1
                }
            }
            // The walk goes on alternately: each host sees what the other wrote.
            let current = try await hostB.get(welcome)
            #expect(current.revision == welcome.revision + 1)
            let next = try await hostA.submit(current, ["route": "fast"])
            #expect(try await hostB.get(next).stepId == next.stepId)
        }
        #expect(accepted == 20)
        #expect(stale == 20)
        try await a.dropSchema()
        try await a.close()
        try await b.close()
    }

    static func outcome(_ body: () async throws -> SessionView) async -> Result<SessionView, RPCError> {
        do { return .success(try await body()) } catch let error as RPCError { return .failure(error) } catch {
            return .failure(RPCError(code: -32603, message: "\(error)"))
        }
    }

    /// Events committed concurrently by two hosts are listed with no gap: a poller following the
    /// cursor while they commit sees every one, in order.
    @Test(.postgres) func aCursorPollerNeverSkipsAnEventCommittedLate() async throws {
        guard let (a, b) = try await TestPostgres.twoHosts() else { return }
        let count = 60
        let seen = try await withThrowingTaskGroup(of: [String].self) { group in
            for index in 0..<count {
                let store = index % 2 == 0 ? a : b
                group.addTask {
                    let state = sampleState(id: "s\(index)", user: "u\(index)")
                    try await store.updateSession(tenant: "t1", key: .id(state.id)) { _ in
                        (SessionCommit(state: state, events: [], outbox: [sampleEvent("evt_\(index)", session: state.id)]), ())
                    }
                    return []
                }
            }
            group.addTask {
                var seen: [String] = []
                var after: Int64 = 0
                let deadline = ContinuousClock.now + .seconds(30)
                while seen.count < count && ContinuousClock.now < deadline {
                    let page = try await a.outbox(tenant: "t1", after: after, limit: 7)
                    seen += page.map(\.event.id)
                    after = page.last?.sequence ?? after
                }
                return seen
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(seen.count == count)
        #expect(Set(seen).count == count)
        try await a.dropSchema()
        try await a.close()
        try await b.close()
    }

    /// The underage rejection deletes the answers in its transaction, and a VACUUM follows off
    /// the reply path.
    @Test(.postgres) func anErasureDeletesTheRowsAndVacuums() async throws {
        guard let store = try await TestPostgres.store() else { return }
        let d = try await FlowDriver(plugin: FixturePlugin(), store: store)
        var view = try await atBasics(d, details: UserDetails(firstName: "Zed", email: "quokka@example.com"))
        view = try await d.walk(view, [basics.merging(["name": "Quokkaname"]) { $1 }, ["route": "fast"]])
        let other = try await atBasics(d, user: "u2")
        _ = try await d.submit(other, basics.merging(["name": "Keepme"]) { $1 })
        #expect(try await store.session(tenant: d.tenant, key: .id(view.sessionId))?.answers.isEmpty == false)
        let rejected = try await d.submit(view, ["birthdate": "2021-06-01"])
        #expect(rejected.status == .rejected)
        let erased = try #require(try await store.session(tenant: d.tenant, key: .id(view.sessionId)))
        #expect(erased.answers.isEmpty)
        #expect(erased.user == .empty)
        #expect(try await store.session(tenant: d.tenant, key: .id(other.sessionId))?.answers.isEmpty == false)
        await store.waitForVacuum()
        #expect(store.vacuumsAfterErasure >= 1)
        try await store.dropSchema()
        try await store.close()
    }
}
