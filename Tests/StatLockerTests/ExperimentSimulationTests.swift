import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

@testable import StatLocker

/// StatLocker's revamp (seed 001) against its classic flow (seed 000): people walk both flows
/// with completion probabilities the test sets, and `analytics.experiment` must report what the
/// contract's formulas give for the counts the test kept itself.
@Suite("Experiments: StatLocker's revamp against classic")
struct ExperimentSimulationTests {
    static func revamp(autoStop: Bool = false, weights: (Double, Double) = (50, 50), tuning: Double = 5000) -> Experiment {
        Experiment(
            id: "revamp", flow: "onboarding",
            variants: [.init(id: "classic", flow: "classic", weight: weights.0), .init(id: "revamp", flow: "onboarding", weight: weights.1)],
            control: "classic", seed: "revamp", completedWithinHours: 72, tuning: tuning, autoStop: autoStop)
    }

    /// What the test itself counted, per variant.
    struct Kept {
        var exposed = 0
        var completed = 0
        var seconds: [Double] = []
    }

    /// Starts `people` people; each completes with their variant's probability (else leaves after
    /// the third step), taking `secondsPerStep` a step.
    static func simulate(
        _ d: FlowDriver, clock: TestClock, people: Int, completing: [String: Double], prefix: String = "p", seed: UInt64 = 7
    ) async throws -> [String: Kept] {
        var random = SplitMix64(seed: seed)
        var kept: [String: Kept] = [:]
        for index in 0..<people {
            var view = try await d.start("\(prefix)-\(index)", user: alex)
            let variant = try #require(view.json["experiment"]?["variant"]?.stringValue)
            kept[variant, default: Kept()].exposed += 1
            let started = clock.now
            let finishes = Double.random(in: 0..<1, using: &random) < (completing[variant] ?? 0)
            var steps = 0
            while view.status == .active, let step = view.stepId {
                if !finishes && steps == 3 { break }
                clock.advance(seconds: 20)
                view = try await d.submit(view, defaultAnswers[step] ?? [:])
                steps += 1
            }
            if view.status == .completed {
                kept[variant, default: Kept()].completed += 1
                kept[variant, default: Kept()].seconds.append(clock.now.timeIntervalSince(started))
            }
            clock.advance(seconds: 5)
        }
        return kept
    }

    /// The contract's confidence sequence, written out here from its text.
    static func interval(nc: Int, cc: Int, nv: Int, cv: Int, alpha: Double, tuning: Double) -> [Double] {
        let (pc, pv) = (Double(cc) / Double(nc), Double(cv) / Double(nv))
        let t = Double(nc + nv)
        let v = pc * (1 - pc) / Double(nc) + pv * (1 - pv) / Double(nv)
        let sigma = (t * v).squareRoot()
        let rho2 = (-2 * log(alpha) + log(1 - 2 * log(alpha))) / tuning
        let b = sigma * (2 * (t * rho2 + 1) / (t * t * rho2) * log((t * rho2 + 1).squareRoot() / alpha)).squareRoot()
        return [pv - pc - b, pv - pc + b]
    }

    static func nearestRank(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        return sorted[max(1, Int((q * Double(sorted.count)).rounded(.up))) - 1]
    }

    @Test func theResultsAreTheContractsFormulasOverWhatHappened() async throws {
        let clock = TestClock()
        let experiment = Self.revamp()
        let d = try await FlowDriver(plugin: StatLockerPlugin(), clock: clock, experiments: [experiment])
        let kept = try await Self.simulate(d, clock: clock, people: 160, completing: ["classic": 0.6, "revamp": 0.85])
        let results = try await d.call("analytics.experiment", ["experiment": "revamp"])
        #expect(results["experiment"] == "revamp")
        #expect(results["seed"] == "revamp")
        #expect(results["status"] == "running")
        #expect(results["control"] == "classic")
        #expect(results["stopped"] == .null)
        let variants = try #require(results["variants"]?.arrayValue)
        #expect(variants.map { $0["id"]?.stringValue } == ["classic", "revamp"])
        for variant in variants {
            let id = try #require(variant["id"]?.stringValue)
            let mine = kept[id] ?? Kept()
            #expect(variant["share"] == 0.5)
            #expect(variant["exposed"] == .int(Int64(mine.exposed)), "\(id)")
            #expect(variant["completed"] == .int(Int64(mine.completed)), "\(id)")
            #expect(variant["completionRate"]?.doubleValue == Double(mine.completed) / Double(mine.exposed))
            #expect(variant["secondsToComplete"]?["median"]?.doubleValue == Self.nearestRank(mine.seconds, 0.5))
            #expect(variant["secondsToComplete"]?["p90"]?.doubleValue == Self.nearestRank(mine.seconds, 0.9))
            #expect(variant["steps"]?.arrayValue?.first?["reached"] == .int(Int64(mine.exposed)), "\(id): its funnel is its sessions")
        }
        #expect(variants[0]["vsControl"] == .null)
        let (classic, revamp) = (kept["classic"] ?? Kept(), kept["revamp"] ?? Kept())
        let expected = Self.interval(nc: classic.exposed, cc: classic.completed, nv: revamp.exposed, cv: revamp.completed, alpha: 0.05, tuning: 5000)
        let bounds = variants[1]["vsControl"]?["interval"]?.arrayValue ?? []
        let reported = bounds.compactMap { $0.doubleValue }
        try #require(reported.count == 2)
        #expect(abs(reported[0] - expected[0]) < 1e-12 && abs(reported[1] - expected[1]) < 1e-12, "\(reported) vs \(expected)")
        let decision = expected[0] > 0 ? "better" : expected[1] < 0 ? "worse" : "inconclusive"
        #expect(variants[1]["vsControl"]?["decision"] == .string(decision))
        let srm = try #require(results["srm"]?.objectValue)
        let total = Double(classic.exposed + revamp.exposed)
        let chi = [classic.exposed, revamp.exposed].reduce(0.0) { $0 + pow(Double($1) - total / 2, 2) / (total / 2) }
        #expect(abs((srm["chiSquare"]?.doubleValue ?? -1) - chi) < 1e-9)
        #expect(srm["mismatch"] == false)
    }

    /// Weights changed after people were enrolled: the exposed counts no longer match the shares.
    @Test func skewedExposuresAreFlaggedAsASampleRatioMismatch() async throws {
        let clock = TestClock()
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let skewed = try await FlowDriver(plugin: StatLockerPlugin(), store: store, clock: clock, experiments: [Self.revamp(weights: (85, 15))])
        for index in 0..<120 { _ = try await skewed.start("s-\(index)", user: alex) }
        let declared = try await FlowDriver(plugin: StatLockerPlugin(), store: store, clock: clock, experiments: [Self.revamp(weights: (50, 50))])
        let results = try await declared.call("analytics.experiment", ["experiment": "revamp"])
        #expect(results["srm"]?["mismatch"] == true, "\(results["srm"] ?? .null)")
        #expect((results["srm"]?["pValue"]?.doubleValue ?? 1) < 0.001)
    }

    /// Each variant's funnel in the results (kept by the rollup every commit moves) is the funnel
    /// `analytics.funnel` folds from the events of the variant's flow, where every session of the
    /// flow is enrolled: reached, left, dropped and median seconds, with people going Back and
    /// coming again, leaving mid-flow and completing. (Both stores: ExperimentStoreTests.)
    @Test func eachVariantsFunnelIsTheEventsFunnelOfItsSessions() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: StatLockerPlugin(), clock: clock, experiments: [Self.revamp()])
        var random = SplitMix64(seed: 11)
        for index in 0..<60 {
            var view = try await d.start("walker-\(index)", user: alex)
            let stopAfter = Int.random(in: 1...14, using: &random)
            var moves = 0
            while view.status == .active, let step = view.stepId, moves < stopAfter {
                clock.advance(seconds: Double(Int.random(in: 3...40, using: &random)))
                if moves > 1, Int.random(in: 0..<5, using: &random) == 0, view.step?.actions.contains(where: { $0.id == "back" }) == true {
                    view = try await d.back(view)
                } else {
                    view = try await d.submit(view, defaultAnswers[step] ?? [:])
                }
                moves += 1
            }
        }
        let results = try await d.call("analytics.experiment", ["experiment": "revamp"])
        for variant in results["variants"]?.arrayValue ?? [] {
            let flow = try #require(variant["flow"]?.stringValue)
            let funnel = try await d.call("analytics.funnel", ["flow": .string(flow)])
            #expect(variant["steps"] == funnel["steps"], "\(flow): \(variant["steps"] ?? .null) vs \(funnel["steps"] ?? .null)")
            #expect(variant["exposed"] == funnel["started"])
            #expect(variant["completed"] == funnel["completed"])
        }
    }

    static let stops = Webhook(
        url: "http://127.0.0.1:9/stops", secretEnv: "HOOK", secret: Array("s3cret".utf8), events: [.experimentStopped])
    static let completions = Webhook(
        url: "http://127.0.0.1:9/completions", secretEnv: "HOOK", secret: Array("other".utf8), events: [.sessionCompleted])

    /// The minutely check `serve` runs stops a worse variant though nobody asked for the results.
    @Test func theMinutelyCheckStopsAWorseVariantUnasked() async throws {
        let clock = TestClock()
        let d = try await FlowDriver(plugin: StatLockerPlugin(), clock: clock, experiments: [Self.revamp(autoStop: true, tuning: 200)])
        _ = try await Self.simulate(d, clock: clock, people: 140, completing: ["classic": 0.95, "revamp": 0.1])
        let before = try await d.call("events.list", [:])
        #expect(before["events"]?.arrayValue?.contains { $0["type"] == "experiment.stopped" } == false)
        await d.platform.checkExperiments()
        let after = try await d.call("events.list", [:])
        #expect(after["events"]?.arrayValue?.filter { $0["type"] == "experiment.stopped" }.count == 1)
        let view = try await d.start("after-check", user: alex)
        #expect(view.json["flow"] == "classic")
        #expect(view.json["experiment"] == nil)
    }

    /// A revamp that completes far worse stops the experiment: stored, reported, and new people
    /// get the control's flow.
    @Test func autoStopStopsAWorseVariant() async throws {
        let clock = TestClock()
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let d = try await FlowDriver(
            plugin: StatLockerPlugin(), store: store, clock: clock, webhooks: [Self.stops, Self.completions],
            experiments: [Self.revamp(autoStop: true, tuning: 200)])
        _ = try await Self.simulate(d, clock: clock, people: 140, completing: ["classic": 0.95, "revamp": 0.1])
        let results = try await d.call("analytics.experiment", ["experiment": "revamp"])
        #expect(results["status"] == "stopped")
        #expect(results["stopped"]?["variant"] == "revamp")
        #expect(results["variants"]?.arrayValue?.last?["vsControl"]?["decision"] == "worse")
        let events = try await d.call("events.list", [:])
        let stopped = try #require(events["events"]?.arrayValue?.first { $0["type"] == "experiment.stopped" })
        #expect(stopped["data"]?["experiment"] == "revamp")
        #expect(stopped["data"]?["variant"] == "revamp")
        #expect(stopped["data"]?["interval"]?.arrayValue?.count == 2)
        // Its delivery is queued for the webhook that takes experiment.stopped, and only that one.
        let queued = try await store.recentEvents(tenant: "statlocker", limit: 1, failedOnly: false)
        #expect(queued.first?.deliveries.map(\.webhook) == [Self.stops.url])
        // Asked again, the same stop holds and no second event is raised.
        _ = try await d.call("analytics.experiment", ["experiment": "revamp"])
        let again = try await d.call("events.list", [:])
        #expect(again["events"]?.arrayValue?.filter { $0["type"] == "experiment.stopped" }.count == 1)
        for index in 0..<10 {
            let view = try await d.start("late-\(index)", user: alex)
            #expect(view.json["flow"] == "classic")
            #expect(view.json["experiment"] == nil)
        }
    }
}
