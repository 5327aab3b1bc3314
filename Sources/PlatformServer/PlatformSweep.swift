import Foundation
import PlatformCore
import PlatformStorage

/// What one sweep did, per tenant.
public struct SweepReport: Sendable, Hashable {
    public struct Tenant: Sendable, Hashable {
        public var tenant: String
        public var abandoned = 0
        public var expired = 0
        /// Completed sessions whose remaining details were deleted (records kept).
        public var pruned = 0
        public var events = 0
        public var completionEvents = 0

        public var isEmpty: Bool { abandoned + expired + pruned + events + completionEvents == 0 }
    }

    public var tenants: [Tenant]

    public var lines: [String] {
        tenants.map { t in
            "\(t.tenant): \(t.abandoned) abandoned, \(t.expired) expired, \(t.pruned) completed sessions' details deleted, "
                + "\(t.events) funnel events and \(t.completionEvents) completion events deleted"
        }
    }
}

/// Abandonment, expiry and retention (contract version 3, "The user's data"): each tenant's
/// `sessions` and `retention` applied in bounded batches, each session in a write of its own that
/// checks its condition again, so a sweep never holds the writer long and two hosts sweeping at
/// once raise each event once.
extension Platform {
    /// Takes (or renews) the sweeper's lease on the database for `host`; false while another holds it.
    public func claimSweep(host: String, now: Date, lease: TimeInterval) async throws -> Bool {
        try await store.claimSweep(host: host, now: now, lease: lease)
    }

    /// Sessions per batch, and batches per kind of work per tenant in one sweep.
    static let sweepBatch = 100
    static let sweepBatches = 20

    /// One pass at time `now` (the clock, or an operator's `--now`).
    public func sweep(now: Date) async throws -> SweepReport {
        var report = SweepReport(tenants: [])
        for entry in hosted where !entry.dataPolicy.isEmpty {
            guard let registered = tenants[entry.id] else { continue }
            let policy = entry.dataPolicy
            var done = SweepReport.Tenant(tenant: entry.id)
            if let days = policy.expireAfterDays {
                done.expired = try await sweepSessions(registered, .idle, before: now.addingTimeInterval(-days * 86_400), now: now, counted: .expired) {
                    state, engine in
                    guard !state.status.isFinal, state.updatedAt <= now.addingTimeInterval(-days * 86_400) else { return nil }
                    let at = self.standing(state, engine)
                    var expired = state
                    expired.status = .expired
                    expired.erase()
                    expired.stepErrors = [:]
                    expired.revision += 1
                    expired.lastSubmitDigest = nil
                    expired.updatedAt = now
                    return (expired, [self.event(.sessionExpired, of: registered, userId: state.userId, sessionId: state.id, at: now, data: at)])
                }
            }
            if let hours = policy.abandonedAfterHours {
                let cutoff = now.addingTimeInterval(-hours * 3_600)
                done.abandoned = try await sweepSessions(registered, .idleNotTold, before: cutoff, now: now, counted: .abandoned) { state, engine in
                    guard !state.status.isFinal, state.updatedAt <= cutoff, state.abandonedAt.map({ $0 < state.updatedAt }) ?? true else { return nil }
                    var told = state
                    told.abandonedAt = now
                    return (
                        told,
                        [
                            self.event(
                                .sessionAbandoned, of: registered, userId: state.userId, sessionId: state.id, at: now,
                                data: self.standing(state, engine))
                        ]
                    )
                }
            }
            if let days = policy.keepCompletedAnswersDays {
                let cutoff = now.addingTimeInterval(-days * 86_400)
                done.pruned = try await sweepSessions(registered, .completedBefore, before: cutoff, now: now) { state, _ in
                    guard state.status == .completed, state.updatedAt <= cutoff,
                        state.user != .empty || !state.answers.isEmpty || !state.computed.isEmpty || state.completion?.personal == true
                    else { return nil }
                    var pruned = state
                    pruned.user = .empty
                    pruned.answers = [:]
                    pruned.computed = [:]
                    // The completion's copy may name the person; the records' names stay.
                    pruned.completion = state.completion.map { CompletionView(message: "", records: $0.records) }
                    return (pruned, [])
                }
            }
            if let days = policy.eventsDays {
                let cutoff = now.addingTimeInterval(-days * 86_400)
                for _ in 0..<Self.sweepBatches {
                    let gone = try await store.pruneEvents(
                        tenant: entry.id, flows: registered.flowIDs, before: cutoff, limit: Self.sweepBatch * 10)
                    done.events += gone.events
                    done.completionEvents += gone.completionEvents
                    if gone.events + gone.completionEvents == 0 { break }
                }
            }
            if !done.isEmpty { report.tenants.append(done) }
        }
        return report
    }

    /// Where a session stood, for the events about it: its step and progress, nothing the person typed.
    func standing(_ state: SessionState, _ engine: FlowEngine?) -> JSONValue {
        guard let engine else { return ["step": state.currentStep.map(JSONValue.string) ?? .null] }
        let progress = engine.progress(state)
        return [
            "step": state.currentStep.map(JSONValue.string) ?? .null,
            "progress": [
                "index": .int(Int64(progress.index)), "total": .int(Int64(progress.total)), "label": .string(progress.label),
                "fraction": .double(progress.fraction),
            ],
        ]
    }

    /// Applies `change` to the candidates, batch by batch; how many it changed. Each change
    /// committed counts once as `counted` in the sessions metric.
    func sweepSessions(
        _ registered: Tenant, _ kind: SweepCandidates, before: Date, now: Date, counted: PlatformMetrics.SessionEvent? = nil,
        _ change: @escaping @Sendable (SessionState, FlowEngine?) -> (SessionState, [OutboxEvent])?
    ) async throws -> Int {
        var changed = 0
        var seen = Set<String>()
        // Its events happen at `now` (an operator's `--now` replays another day), but go out when
        // the sweep runs: due at the clock's time, retried for the delivery window from then.
        let raised = clock()
        let window = Self.deliveryWindow
        for _ in 0..<Self.sweepBatches {
            let candidates = try await store.sweepCandidates(tenant: registered.id, kind: kind, before: before, limit: Self.sweepBatch)
                .filter { !seen.contains($0.id) }
            guard !candidates.isEmpty else { break }
            for candidate in candidates {
                seen.insert(candidate.id)
                let applied = try await store.updateSession(tenant: registered.id, key: .id(candidate.id)) { state -> (SessionCommit?, String?) in
                    // Checked again on the stored row: another host, or the person, may have come first.
                    guard let state, let (next, outbox) = change(state, registered.engines[state.flow]) else { return (nil, nil) }
                    let due = outbox.map { event in
                        var event = event
                        event.deliverFrom = raised
                        event.deliverUntil = raised.addingTimeInterval(window)
                        return event
                    }
                    return (SessionCommit(state: next, events: [], outbox: due), state.flow)
                }
                if let flow = applied {
                    changed += 1
                    if let counted { PlatformMetrics.session(counted, tenant: registered.id, flow: flow) }
                }
            }
        }
        if changed > 0 { outboxSignal.ring() }
        return changed
    }
}
