import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

/// What happened, in order: the store's commits and the log lines written.
final class Journal: Sendable {
    private let entries = Mutex<[String]>([])

    var all: [String] { entries.withLock { $0 } }

    func record(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    /// A Logger whose lines go to the journal as `log LEVEL LABEL [SOURCE] MESSAGE key=value…`.
    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { label in
            RecordingLogHandler(label: label) { line in
                self.record("log \(line.level) \(line.label) [\(line.source)] \(line.message)\(line.metadataPairs)")
            }
        }
        logger.logLevel = .trace
        return logger
    }

    /// The entries recorded while `body` ran.
    func during(_ body: () async throws -> Void) async rethrows -> [String] {
        let before = all.count
        try await body()
        return Array(all.dropFirst(before))
    }
}

/// A store over the in-memory SQLite one that notes each commit that wrote in the journal, and
/// whose next commit can be made to fail after the command was decided (a full disk).
final class JournalStore: SessionStore {
    let inner: any SessionStore
    let journal: Journal
    private let failing = Mutex(false)

    init(journal: Journal) throws {
        self.inner = try SQLiteSessionStore(path: SQLiteSessionStore.memoryPath)
        self.journal = journal
    }

    func failNextCommit() {
        failing.withLock { $0 = true }
    }

    func session(tenant: String, key: SessionKey) async throws -> SessionState? {
        try await inner.session(tenant: tenant, key: key)
    }

    func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        if failing.withLock({ failing in
            defer { failing = false }
            return failing
        }) {
            // The engine decides as usual; then the commit fails and nothing is written.
            _ = try body(try await inner.session(tenant: tenant, key: key))
            throw StoreUnavailable("disk full")
        }
        let (result, wrote) = try await inner.updateSession(tenant: tenant, key: key) { state in
            let (commit, result) = try body(state)
            return (commit, (result, commit != nil))
        }
        if wrote { journal.record("commit") }
        return result
    }

    func profile(tenant: String, userId: String) async throws -> Profile? {
        try await inner.profile(tenant: tenant, userId: userId)
    }

    func updateProfile<Result: Sendable>(
        tenant: String, userId: String, at time: Date,
        _ body: @escaping @Sendable (Profile?) throws -> (ProfileCommit?, Result)
    ) async throws -> Result {
        let result = try await inner.updateProfile(tenant: tenant, userId: userId, at: time, body)
        journal.record("commit")
        return result
    }

    func outbox(tenant: String, after: Int64, limit: Int) async throws -> [OutboxEntry] {
        try await inner.outbox(tenant: tenant, after: after, limit: limit)
    }

    func events(tenant: String, flow: String?, since: Date?, until: Date?) async throws -> [StoredEvent] {
        try await inner.events(tenant: tenant, flow: flow, since: since, until: until)
    }

    func userData(tenant: String, userId: String) async throws -> StoredUserData {
        try await inner.userData(tenant: tenant, userId: userId)
    }

    func eraseUser(tenant: String, userId: String, report: OutboxEvent) async throws -> UserErasure.Counts {
        try await inner.eraseUser(tenant: tenant, userId: userId, report: report)
    }

    func sweepCandidates(tenant: String, kind: SweepCandidates, before: Date, limit: Int) async throws -> [SessionState] {
        try await inner.sweepCandidates(tenant: tenant, kind: kind, before: before, limit: limit)
    }

    func pruneEvents(tenant: String, flows: [String], before: Date, limit: Int) async throws -> (events: Int, completionEvents: Int) {
        try await inner.pruneEvents(tenant: tenant, flows: flows, before: before, limit: limit)
    }

    func claimSweep(host: String, now: Date, lease: TimeInterval) async throws -> Bool {
        try await inner.claimSweep(host: host, now: now, lease: lease)
    }

    func registerFlowVersions(_ records: [FlowVersionRecord]) async throws -> [FlowVersionRecord] {
        try await inner.registerFlowVersions(records)
    }

    func versionsInFlight(tenant: String, flow: String) async throws -> [(version: String, fingerprint: String, sessions: Int)] {
        try await inner.versionsInFlight(tenant: tenant, flow: flow)
    }

    func sessionsInFlight(
        tenant: String, flow: String, version: String, fingerprint: String, after: String, limit: Int
    ) async throws -> [SessionState] {
        try await inner.sessionsInFlight(tenant: tenant, flow: flow, version: version, fingerprint: fingerprint, after: after, limit: limit)
    }

    func funnel(
        tenant: String, flow: String, since: Date?, until: Date?, version: String?, renamedSteps: [String: [String: String]]
    ) async throws -> FunnelFigures {
        try await inner.funnel(tenant: tenant, flow: flow, since: since, until: until, version: version, renamedSteps: renamedSteps)
    }

    func close() async throws {
        try await inner.close()
    }
}

/// Plugins' log lines are written by the platform once their command has committed, with the
/// plugin's label as Logger label and source; ids come from the platform's generator.
@Suite struct PluginEffectsTests {
    let journal = Journal()
    let store: JournalStore
    let driver: FlowDriver

    init() async throws {
        let ids = SequentialIDs()
        store = try JournalStore(journal: journal)
        driver = try await FlowDriver(
            plugin: FixturePlugin(), store: store, newID: ids.next, pluginLogger: journal.logger)
    }

    /// A session of `user` on `birth`, by the fast route.
    func atBirth(_ user: String = "u1", name: String = "Alex") async throws -> SessionView {
        let view = try await driver.submit(try await driver.start(user, user: UserDetails(firstName: "Alex")))
        let basics: [String: JSONValue] = ["name": .string(name), "age": 30, "kind": "alpha", "hasPet": false]
        return try await driver.walk(view, [basics, ["route": "fast"]])
    }

    @Test func anAcceptedSubmitLogsItsLineAfterTheCommit() async throws {
        let view = try await atBirth()
        let entries = try await journal.during {
            _ = try await driver.submit(view, ["birthdate": "1990-05-01"])
        }
        #expect(entries == ["commit", "log info Fixture [Fixture] age checked step=birth"])
    }

    @Test func aSubmitWhoseCommitFailsLogsNothing() async throws {
        let view = try await atBirth()
        store.failNextCommit()
        let entries = await journal.during {
            #expect(await driver.refuse(view, ["birthdate": "1990-05-01"])?.code == -32008)
        }
        #expect(entries.isEmpty)
        // Nothing was saved: the same submit then goes through, and logs once.
        #expect(try await driver.get(view).stepId == "birth")
        var next: SessionView?
        let retried = try await journal.during {
            next = try await driver.submit(view, ["birthdate": "1990-05-01"])
        }
        #expect(next?.stepId == "analysis")
        #expect(retried == ["commit", "log info Fixture [Fixture] age checked step=birth"])
    }

    @Test func aCompletionThatThrowsLogsNothing() async throws {
        let analysis = try await driver.submit(try await atBirth(name: "Crash"), ["birthdate": "1990-05-01"])
        let entries = await journal.during {
            #expect(await driver.refuse(analysis)?.code == -32603)
        }
        // The completion logged "completing" before it threw: the line was never written.
        #expect(entries.isEmpty)
        #expect(try await driver.get(analysis).stepId == "analysis")
    }

    @Test func refusedSubmitsLogNothing() async throws {
        let view = try await atBirth()
        let entries = await journal.during {
            #expect(await driver.refuse(view, ["birthdate": "1990-02-30"])?.code == -32004)
        }
        #expect(entries.isEmpty)
    }

    @Test func aProfileUpdateLogsAfterItsCommitAndARefusedOneLogsNothing() async throws {
        let analysis = try await driver.submit(try await atBirth(), ["birthdate": "1990-05-01"])
        var completed: SessionView?
        let done = try await journal.during {
            completed = try await driver.submit(analysis)
        }
        #expect(completed?.status == .completed)
        #expect(done == ["commit", "log info Fixture [Fixture] completing user=u1"])

        let updated = try await journal.during {
            _ = try await driver.call("profile.update", ["userId": "u1", "values": ["photoUrl": "https://x.test/p.png"]])
        }
        #expect(updated == ["commit", "log info Fixture [Fixture] profile updated fields=photoUrl"])
        let refused = await journal.during {
            #expect(await driver.error("profile.update", ["userId": "u1", "values": ["photoUrl": "http://x.test"]])?.code == -32004)
        }
        #expect(refused.isEmpty)
    }

    @Test func idsComeFromThePlatformsGenerator() async throws {
        let analysis = try await driver.submit(try await atBirth(), ["birthdate": "1990-05-01"])
        #expect(analysis.sessionId == "id-1")
        _ = try await driver.submit(analysis)
        #expect(try await driver.profile("u1")["records"]?["account"]?["id"] == "id-2")
    }
}
