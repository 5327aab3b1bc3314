import Foundation
import PlatformCore
import PlatformStorage

extension Platform {
    /// `analytics.experiment`: the phase's figures from the store, the contract's statistics over
    /// them, and, with `autoStop`, the stop of a running experiment one of whose variants is worse.
    public func experimentResults(tenant: String, experiment id: String) async throws(FlowError) -> ExperimentResults {
        let registered = try await self.tenant(tenant)
        guard let experiment = registered.experiments.first(where: { IDBytes.equal($0.id, id) }) else {
            throw .notFound("experiment \(id) of tenant \(tenant)")
        }
        guard let experiments = store as? any ExperimentStore else { throw .unavailable("this store keeps no experiments") }
        var engines: [FlowEngine] = []
        for variant in experiment.variants { engines.append(try registered.engine(variant.flow, version: variant.version)) }
        let arms = experiment.variants.map { ExperimentArm(variant: $0.id, flow: $0.flow) }
        let figures = try await storing {
            try await experiments.experimentFigures(
                tenant: tenant, experiment: experiment.id, seed: experiment.seed, arms: arms, window: experiment.completedWithinHours * 3600)
        }
        let tallies = experiment.variants.map { variant in
            let arm = figures[variant.id] ?? ExperimentArmFigures()
            return ExperimentStatistics.VariantTally(exposed: arm.exposed, completed: arm.completed, durations: arm.durations)
        }
        let controlIndex = experiment.variants.firstIndex { $0.id == experiment.control } ?? 0
        let report = ExperimentStatistics.report(
            variants: tallies, shares: experiment.shares, control: controlIndex, alpha: experiment.alpha, tuning: experiment.tuning)
        var stop = try await storedStop(of: experiment, tenant: tenant)
        if stop == nil, experiment.autoStop, experiment.status == .running,
            let worse = report.variants.indices.first(where: { report.variants[$0].vsControl?.decision == .worse })
        {
            stop = try await recordStop(experiment, variant: experiment.variants[worse], comparison: report.variants[worse].vsControl, in: registered)
        }
        let shares = experiment.shares
        let variants = experiment.variants.indices.map { index in
            let variant = experiment.variants[index]
            let summary = report.variants[index]
            let steps = (figures[variant.id]?.funnel ?? FunnelFigures()).funnel(stepOrder: engines[index].flow.steps.map(\.id)).steps
            return ExperimentResults.Variant(
                id: variant.id, flow: variant.flow, version: engines[index].version, share: shares[index], exposed: summary.exposed,
                completed: summary.completed, completionRate: summary.completionRate,
                secondsToComplete: summary.secondsToComplete.map { .init(median: $0.median, p90: $0.p90) }, steps: steps,
                vsControl: summary.vsControl.map { comparison in
                    .init(
                        difference: comparison.difference, interval: comparison.interval.map { [$0.lower, $0.upper] },
                        decision: comparison.decision.rawValue)
                })
        }
        return ExperimentResults(
            experiment: experiment.id, seed: experiment.seed, status: stop != nil ? Experiment.Status.stopped.rawValue : experiment.status.rawValue,
            control: experiment.control,
            srm: report.srm.map { .init(chiSquare: $0.chiSquare, pValue: $0.pValue, mismatch: $0.mismatch) }, variants: variants,
            stopped: stop.map { .init(at: Timestamp.string($0.at), variant: $0.variant, reason: $0.reason) })
    }

    /// Stores the stop (the first host's holds), with its `experiment.stopped` event for the
    /// tenant's webhooks and `events.list`, and logs it for the operator.
    func recordStop(
        _ experiment: Experiment, variant: Experiment.Variant, comparison: ExperimentStatistics.Comparison?, in registered: Tenant
    ) async throws(FlowError) -> ExperimentStop? {
        guard let experiments = store as? any ExperimentStore else { return nil }
        let now = clock()
        let interval = comparison?.interval.map { [$0.lower, $0.upper] } ?? []
        let reason = "variant \(variant.id) completes worse than control \(experiment.control)"
        let stop = ExperimentStop(
            tenant: registered.id, experiment: experiment.id, seed: experiment.seed, at: now, variant: variant.id, reason: reason, interval: interval)
        let report = event(
            .experimentStopped, of: registered, userId: "", sessionId: nil, at: now,
            data: ["experiment": .string(experiment.id), "variant": .string(variant.id), "interval": .array(interval.map(JSONValue.double))])
        let held = try await storing { try await experiments.recordExperimentStop(stop, report: report) }
        if held.stored {
            if !report.webhooks.isEmpty { outboxSignal.ring() }
            logger.warning(
                "experiment stopped: \(reason); new people get the control's flow",
                metadata: [
                    "tenant": "\(registered.id)", "experiment": "\(experiment.id)", "seed": "\(experiment.seed)", "variant": "\(variant.id)",
                    "interval": "\(interval)",
                ])
        }
        return held.stop
    }

    /// Every running experiment with `autoStop`, results computed (and a worse variant stopped):
    /// `serve` calls it at least once a minute.
    public func checkExperiments() async {
        for (tenant, registered) in tenants {
            for experiment in registered.experiments where experiment.autoStop && experiment.status == .running {
                do {
                    _ = try await experimentResults(tenant: tenant, experiment: experiment.id)
                } catch {
                    logger.warning(
                        "experiment check failed; retried in a minute",
                        metadata: ["tenant": "\(tenant)", "experiment": "\(experiment.id)", "error": "\(error)"])
                }
            }
        }
    }
}
