import Benchmark
import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import StatLocker
import Synchronization
import TeePals

// The request path in process, piece by piece (issue 13, item 6). Docs/performance.md has the
// figures and what each benchmark covers.

/// StatLocker's answers, one per step, in flow order: the same walk as `platformd bench`
/// (`StatLockerWalk` in Sources/platformd/Bench.swift). The last one completes the session.
let statLockerAnswers: [[String: JSONValue]] = [
    ["sport": "lacrosse"], [:], ["teamGender": "girls"], ["gradYear": 2026, "level": "JV"], ["position": "Midfield"],
    ["hsTeamName": "Duxbury High School", "hsCity": "Duxbury", "hsState": "MA", "hasClubTeam": false],
    ["seasonGoals": ["g-mid-jv-dc-50", "g-mid-jv-goals-28", ["title": "Win 60% of draws", "targetValue": 60, "unit": "%"]]],
    [:], ["aiTone": "Analyst"], [:], [:],
]

let alex = UserDetails(firstName: "Alex", lastName: "Morgan", email: "alex@example.com")
let fixedNow = Date(timeIntervalSince1970: 1_795_000_000)
func silent(_ label: String) -> Logger { Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }

/// Ids that never repeat within the process: session ids, and user ids across iterations.
let counter = Atomic<Int>(0)
@Sendable func nextID() -> String { "id-\(counter.add(1, ordering: .relaxed).newValue)" }

func statLockerEngine() -> FlowEngine {
    let plugin = StatLockerPlugin()
    return FlowEngine(plugin: plugin, flow: plugin.flows[0])
}

enum BenchFailure: Error { case unexpected(String) }

/// Submits `values` on the state's current step; the transition must apply (StatLocker has no server work).
@inline(__always)
func submit(_ engine: FlowEngine, _ state: SessionState, _ values: [String: JSONValue]) throws -> FlowEngine.Transition {
    let command = FlowEngine.Submit(stepId: state.currentStep ?? "", revision: state.revision, values: values)
    guard case .applied(let transition) = try engine.submit(state, command, now: fixedNow, newID: nextID) else {
        throw BenchFailure.unexpected("StatLocker asked for server work")
    }
    return transition
}

/// The StatLocker session state on each step, from `sport` to `review`, and the final one.
func statLockerStates(_ engine: FlowEngine) throws -> [SessionState] {
    var state = engine.start(nil, tenant: "statlocker", userId: "walker", user: alex, now: fixedNow, newID: nextID).state
    var states = [state]
    for values in statLockerAnswers {
        state = try submit(engine, state, values).state
        states.append(state)
    }
    guard state.status.isFinal else { throw BenchFailure.unexpected("the walk did not complete: \(state.status)") }
    return states
}

/// A typical `flow.submit` line: the `team_info` step's answers, as the bench's clients send it.
let submitLine: [UInt8] = Array(
    #"{"jsonrpc":"2.0","id":4711,"method":"flow.submit","params":{"tenant":"statlocker","sessionId":"6f1c2a9e-3b7d-4e58-9a41-0c2d8e7f5b13","stepId":"team_info","revision":6,"action":"continue","values":{"hsTeamName":"Duxbury High School","hsCity":"Duxbury","hsState":"MA","hasClubTeam":true,"clubTeamName":"Laxachusetts","clubCity":"Boston","clubState":"MA"}}}"#
        .utf8)

// MARK: - store

/// Temporary directories the store benchmarks made, removed at teardown.
let temporaryDirectories = Mutex<[URL]>([])

/// A file store (WAL, synchronous=FULL) in a new temporary directory on the same disk as /tmp.
func fileStore() throws -> SQLiteSessionStore {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("platformd-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    temporaryDirectories.withLock { $0.append(directory) }
    return try SQLiteSessionStore(path: directory.appendingPathComponent("bench.sqlite").path, logger: silent("store"))
}

func removeTemporaryDirectories() {
    for directory in temporaryDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(at: directory) }
}

/// One command's write, as Platform.submit makes it: the session row and one event. The first
/// write of a user inserts the session; later ones update it.
func commit(_ store: SQLiteSessionStore, user: String, template: SessionState) async throws {
    try await store.updateSession(tenant: "statlocker", key: .user(userId: user, flow: template.flow)) { existing in
        var state = existing ?? template
        if existing == nil {
            state.id = "s-\(user)"
            state.userId = user
        }
        state.revision += 1
        state.updatedAt = fixedNow
        return (SessionCommit(state: state, events: [FlowEvent(.arrived, step: state.currentStep, at: fixedNow)]), ())
    }
}

let transactionsPerIteration = BenchmarkMetric.custom("transactions", polarity: .prefersSmaller, useScalingFactor: false)

/// `writers` concurrent writes per iteration, each to its own user's session; reports the
/// transactions they took (group commit shares one among the writes that arrive while one commits).
func measureCommits(_ benchmark: Benchmark, _ store: SQLiteSessionStore, writers: Int) async {
    let template = try! statLockerStates(statLockerEngine())[1]
    let users = (0..<writers).map { "u\($0)" }
    do {
        for user in users { try await commit(store, user: user, template: template) }  // the rows exist: every write is an update
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let before = store.groupCommits.transactions
            if writers == 1 {
                try await commit(store, user: users[0], template: template)
            } else {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for user in users { group.addTask { try await commit(store, user: user, template: template) } }
                    try await group.waitForAll()
                }
            }
            benchmark.measurement(transactionsPerIteration, store.groupCommits.transactions - before)
        }
        benchmark.stopMeasurement()
    } catch {
        benchmark.error("store commit failed: \(error)")
    }
}

/// StatLocker's walk on the engine alone: a start and the 11 answers, each with its view.
func walk(_ engine: FlowEngine, locale: String? = nil) {
    var state = engine.start(nil, tenant: "statlocker", userId: "walker", user: alex, locale: locale, now: fixedNow, newID: nextID).state
    blackHole(engine.view(state, now: fixedNow))
    for values in statLockerAnswers {
        state = try! submit(engine, state, values).state
        blackHole(engine.view(state, now: fixedNow))
    }
    precondition(state.status.isFinal)
}

// MARK: - benchmarks

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 10,
        maxDuration: .seconds(5),
        maxIterations: 100_000
    )

    // (1) The engine's submit, in process, no store.

    Benchmark("FlowEngine.submit StatLocker sport step") { (benchmark: Benchmark, setup: (FlowEngine, SessionState)) in
        let (engine, state) = setup
        for _ in benchmark.scaledIterations {
            blackHole(try! submit(engine, state, ["sport": "lacrosse"]))
        }
    } setup: {
        let engine = statLockerEngine()
        return (engine, try statLockerStates(engine)[0])
    }

    Benchmark("FlowEngine.submit StatLocker team_info step, and its view") { (benchmark: Benchmark, setup: (FlowEngine, SessionState)) in
        let (engine, state) = setup
        let values = statLockerAnswers[5]
        for _ in benchmark.scaledIterations {
            let transition = try! submit(engine, state, values)
            blackHole(engine.view(transition.state, now: fixedNow))
        }
    } setup: {
        let engine = statLockerEngine()
        return (engine, try statLockerStates(engine)[5])
    }

    Benchmark("FlowEngine StatLocker walk: start + 11 submits, with views") { (benchmark: Benchmark, engine: FlowEngine) in
        for _ in benchmark.scaledIterations { walk(engine) }
    } setup: {
        statLockerEngine()
    }

    // (1) Platform.submit: the engine inside the store's write transaction, an in-memory SQLite store.

    Benchmark("Platform StatLocker walk: start + 11 submits, in-memory store") { (benchmark: Benchmark, platform: Platform) in
        await measureWalks(benchmark, platform)
    } setup: {
        statLockerPlatform(store: try SQLiteSessionStore(path: SQLiteSessionStore.memoryPath, logger: silent("store")))
    }

    // (1b) What an experiment adds: the hash, an enrolling start, an enrolled walk.

    experimentBenchmarks()

    // (2) A durable store commit: SQLiteSessionStore.updateSession on a file database.

    let storeConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, transactionsPerIteration],
        timeUnits: .microseconds, warmupIterations: 5, maxDuration: .seconds(10), maxIterations: 5_000,
        teardown: removeTemporaryDirectories)

    Benchmark("SQLiteSessionStore.updateSession, file, 1 writer", configuration: storeConfiguration) { (benchmark: Benchmark, store: SQLiteSessionStore) in
        await measureCommits(benchmark, store, writers: 1)
    } setup: {
        try fileStore()
    }

    Benchmark("SQLiteSessionStore.updateSession, file, 16 concurrent writers", configuration: storeConfiguration) {
        (benchmark: Benchmark, store: SQLiteSessionStore) in
        await measureCommits(benchmark, store, writers: 16)
    } setup: {
        try fileStore()
    }

    // (3) TeePals' city search over the memory-mapped gazetteer.

    for query in ["austin", "san", "s"] {
        Benchmark("TeePals CitySearch \"\(query)\", limit 10") { (benchmark: Benchmark, provider: any SearchProvider) in
            for _ in benchmark.scaledIterations {
                let results = provider.search(query, limit: 10)
                precondition(results.count == 10, "\(query): \(results.count) results")
                blackHole(results)
            }
        } setup: {
            let plugin = TeePalsPlugin()
            plugin.prepare()
            guard let provider = plugin.searchProviders["location"] else { throw BenchFailure.unexpected("no location search") }
            _ = provider.search(query, limit: 10)  // the index pages it reads are in memory
            return provider
        }
    }

    // (5) Copy: a view the engine built, translated into Spanish (the cost `locale` adds to a
    // request); the base language does no work at all.

    for (step, index) in [("team_info", 5), ("season_goals", 6), ("review", 10)] {
        Benchmark("CopyBook.localized StatLocker \(step) view, es") { (benchmark: Benchmark, setup: (CopyBook, SessionView)) in
            let (copy, view) = setup
            for _ in benchmark.scaledIterations {
                blackHole(copy.localized(view, in: "es"))
            }
        } setup: {
            let engine = statLockerEngine()
            return (engine.copy, engine.view(try statLockerStates(engine)[index], now: fixedNow))
        }
    }

    Benchmark("FlowEngine StatLocker walk in es: start + 11 submits, with views") { (benchmark: Benchmark, engine: FlowEngine) in
        for _ in benchmark.scaledIterations { walk(engine, locale: "es") }
    } setup: {
        statLockerEngine()
    }

    // (4) A SessionView encoded to the bytes of a reply: its writer (`renderedJSON`, what the
    // server sends and the type's only encoder), against the same through `JSONValue` (what a
    // `Codable` caller gets: the writer's text parsed back; before the writer, the synthesized
    // encoding took 249 µs and 1,529 mallocs for the team_info view).

    Benchmark("SessionView (team_info step) renderedJSON") { (benchmark: Benchmark, view: SessionView) in
        for _ in benchmark.scaledIterations {
            blackHole(view.renderedJSON())
        }
    } setup: {
        let engine = statLockerEngine()
        return engine.view(try statLockerStates(engine)[5], now: fixedNow)
    }

    Benchmark("SessionView (team_info step) to JSONValue to bytes") { (benchmark: Benchmark, view: SessionView) in
        for _ in benchmark.scaledIterations {
            blackHole(try! JSONValue(encoding: view).serializedBytes())
        }
    } setup: {
        let engine = statLockerEngine()
        return engine.view(try statLockerStates(engine)[5], now: fixedNow)
    }

    Benchmark("SessionView (review step) to JSONValue to bytes") { (benchmark: Benchmark, view: SessionView) in
        for _ in benchmark.scaledIterations {
            blackHole(try! JSONValue(encoding: view).serializedBytes())
        }
    } setup: {
        let engine = statLockerEngine()
        return engine.view(try statLockerStates(engine)[10], now: fixedNow)
    }

    Benchmark("SessionView (review step) JSONValue to bytes only") { (benchmark: Benchmark, json: JSONValue) in
        for _ in benchmark.scaledIterations {
            blackHole(json.serializedBytes())
        }
    } setup: {
        let engine = statLockerEngine()
        return try JSONValue(encoding: engine.view(try statLockerStates(engine)[10], now: fixedNow))
    }

    // (5) A request line parsed.

    Benchmark("JSONValue.parseMessage flow.submit line (\(submitLine.count) bytes)") { (benchmark: Benchmark, line: [UInt8]) in
        for _ in benchmark.scaledIterations {
            blackHole(try! JSONValue.parseMessage(line))
        }
    } setup: {
        submitLine
    }
}
