import Benchmark
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import StatLocker

// What an experiment adds to a request (issue 40's "assignment adds at most 5 µs to a
// flow.start"): the hash alone, a flow.start with and without an experiment on the flow, and a
// walk with and without one (an enrolled walk's events are folded into the results' rollup
// after its commits, by the file store's own task, which runs beside the measured walk).
//
// On a file store (WAL, synchronous=FULL), as the server runs: an in-memory store is a GRDB
// DatabaseQueue, whose reads set `PRAGMA query_only` on and off, and SQLite expires every
// prepared statement of the connection on a flag pragma, so each read there re-compiles every
// cached statement the next write uses. The enrolment's reads would measure that, not the server.

/// StatLocker's onboarding split 50/50 between two variants on the same flow, as the bench's.
let benchExperiment = Experiment(
    id: "bench", flow: "onboarding",
    variants: [.init(id: "a", flow: "onboarding", weight: 1), .init(id: "b", flow: "onboarding", weight: 1)],
    control: "a", seed: "bench-1")

func statLockerPlatform(experiments: [Experiment] = [], store: SQLiteSessionStore) -> Platform {
    let plugin = StatLockerPlugin()
    return Platform(
        tenants: [HostedTenant(id: plugin.id, pluginName: plugin.name, plugin: plugin, experiments: experiments)], store: store,
        clock: { fixedNow }, newID: nextID, logger: silent("platformd"), pluginLogger: silent)
}

/// Each iteration starts a new person's session (their first `flow.start`: an enrolment when the
/// flow is in an experiment).
func measureStarts(_ benchmark: Benchmark, _ platform: Platform) async {
    do {
        for _ in benchmark.scaledIterations {
            blackHole(try await platform.start(tenant: "statlocker", userId: nextID(), flow: "onboarding", user: alex))
        }
    } catch {
        benchmark.error("start failed: \(error)")
    }
}

func measureWalks(_ benchmark: Benchmark, _ platform: Platform) async {
    do {
        for _ in benchmark.scaledIterations {
            var view = try await platform.start(tenant: "statlocker", userId: nextID(), flow: "onboarding", user: alex)
            for values in statLockerAnswers {
                let command = FlowEngine.Submit(stepId: view.step?.id ?? "", revision: view.revision, values: values)
                view = try await platform.submit(tenant: "statlocker", sessionId: view.sessionId, command: command)
            }
            precondition(view.status == .completed, "\(view.status)")
        }
    } catch {
        benchmark.error("walk failed: \(error)")
    }
}

func experimentBenchmarks() {
    let userIds = (0..<1_000).map { "user-\($0)-\(UUID().uuidString)" }
    Benchmark("ExperimentHash.variantIndex, 50/50, full coverage") { benchmark in
        for iteration in benchmark.scaledIterations {
            blackHole(
                ExperimentHash.variantIndex(seed: "bench-1", userId: userIds[iteration % userIds.count], weights: [1, 1], coverage: 1))
        }
    }

    let fileConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 5,
        maxDuration: .seconds(5), maxIterations: 5_000, teardown: removeTemporaryDirectories)

    // Each measured without an experiment and enrolled, on a file store of its own.
    for enrolled in [false, true] {
        let experiments = enrolled ? [benchExperiment] : []
        let startName = enrolled ? "flow.start, enrolled 50/50" : "flow.start"
        Benchmark("Platform StatLocker \(startName), file store", configuration: fileConfiguration) { (benchmark: Benchmark, platform: Platform) in
            await measureStarts(benchmark, platform)
        } setup: {
            statLockerPlatform(experiments: experiments, store: try fileStore())
        }
        let walkName = enrolled ? "walk, enrolled 50/50:" : "walk:"
        Benchmark("Platform StatLocker \(walkName) start + 11 submits, file store", configuration: fileConfiguration) {
            (benchmark: Benchmark, platform: Platform) in
            await measureWalks(benchmark, platform)
        } setup: {
            statLockerPlatform(experiments: experiments, store: try fileStore())
        }
    }
}
