import Foundation
import PlatformCore
import PlatformStorage

// MARK: - flow versions

extension Platform {
    /// Where a stored session runs: on the version it started on while that is served, else
    /// moved onto the newest (`FlowEngine.move`). Completed and rejected sessions take no more
    /// commands, so they are never moved. A session stored before flows had versions runs on the
    /// newest unchanged when nothing of it would move.
    enum Placement: Sendable {
        case runs(FlowEngine, SessionState)
        case moves(FlowEngine, FlowMove)

        var engine: FlowEngine {
            switch self {
            case .runs(let engine, _), .moves(let engine, _): engine
            }
        }
        var state: SessionState {
            switch self {
            case .runs(_, let state): state
            case .moves(_, let move): move.state
            }
        }
        /// What the move writes, with the command's own events after it.
        var events: [FlowEvent] {
            if case .moves(_, let move) = self { move.events } else { [] }
        }
        var moved: Bool {
            if case .moves = self { true } else { false }
        }
    }

    func place(_ state: SessionState, in registered: Tenant, now: Date) throws(FlowError) -> Placement {
        guard let newest = registered.engines[state.flow] else { throw .notFound("session \(state.id)") }
        if newest.runs(state) { return .runs(newest, state) }
        if let older = registered.olderEngines[state.flow]?.first(where: { $0.runs(state) }) { return .runs(older, state) }
        if state.status.isFinal { return .runs(newest, state) }
        switch flowRegistry.order(
            tenant: state.tenant, flow: state.flow, version: state.flowVersion, fingerprint: state.flowFingerprint,
            than: (newest.version, newest.fingerprint))
        {
        case .newer:
            throw .unavailable(
                "session \(state.id) runs on flow \(state.flow) version \(state.flowVersion) (\(state.flowFingerprint)), newer than this host serves: another host of a deploy in progress serves it"
            )
        case .unknown:
            throw .unknownFlowVersion(tenant: state.tenant, flow: state.flow, version: state.flowVersion, fingerprint: state.flowFingerprint)
        case .older:
            break
        }
        let move = newest.move(state, now: now)
        if state.flowFingerprint.isEmpty, move.dropped.isEmpty, move.resumption == nil, move.refused.isEmpty {
            // Stored before versions, and nothing of it moves: it runs on the newest as it is.
            var stamped = state
            stamped.flowVersion = newest.version
            stamped.flowFingerprint = newest.fingerprint
            return .runs(newest, stamped)
        }
        return .moves(newest, move)
    }

    /// Runs a command; when it meets a version this host has not heard of, reads the registry
    /// again (another host may have registered it since this one started) and runs it once more.
    func knowingVersions<T>(_ body: () async throws(FlowError) -> T) async throws(FlowError) -> T {
        do {
            return try await body()
        } catch .unknownFlowVersion(let tenant, let flow, let version, let fingerprint) {
            do {
                try await registerFlowVersions()
            } catch {
                throw .unavailable("reading the flow versions' registry: \(error)")
            }
            flowRegistry.settle(tenant: tenant, flow: flow, version: version, fingerprint: fingerprint)
            return try await body()
        }
    }

    /// Learns the order of the versions other hosts registered, registering nothing (a dry run
    /// such as `flows check` must not claim a place for versions it does not serve).
    public func learnFlowVersions() async throws {
        let ids = Set(tenantIDs)
        flowRegistry.learn(try await store.registerFlowVersions([]).filter { ids.contains($0.tenant) })
    }

    /// Records the versions this host serves in the store's registry (first served, first
    /// kept), and learns every version other hosts registered before, so that a session on a
    /// version registered later (by a newer binary during a rolling deploy) is never moved back.
    public func registerFlowVersions() async throws {
        let records = hosted.flatMap { entry -> [FlowVersionRecord] in
            guard let tenant = tenants[entry.id] else { return [] }
            return (Array(tenant.engines.values) + tenant.olderEngines.values.flatMap { $0 }).map {
                FlowVersionRecord(tenant: entry.id, flow: $0.flow.id, version: $0.version, fingerprint: $0.fingerprint)
            }
        }
        let known = try await store.registerFlowVersions(records)
        flowRegistry.learn(known)
    }
}
