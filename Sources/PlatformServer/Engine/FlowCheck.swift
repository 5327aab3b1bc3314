import Foundation
import Logging
import PlatformCore
import PlatformStorage

/// What a deploy would do to the sessions in flight: for each tenant and flow, the sessions by
/// the version they run on, and for each version that is no longer served what moving them onto
/// the newest does (`platformd flows check`; `serve` logs the same at start).
public struct FlowCheckReport: Sendable {
    public struct VersionCount: Sendable, Hashable {
        public var version: String
        public var fingerprint: String
        public var sessions: Int
        /// `served`, `moves` (no longer served: moved on first touch), or `newer` (first served by
        /// a newer binary on this database: left alone here).
        public var fate: String
    }

    public struct Resumption: Sendable, Hashable {
        public var from: String
        public var to: String
        public var sessions: Int
        public var declared: Bool
    }

    public struct Dropped: Sendable, Hashable {
        public var step: String
        public var field: String
        public var sessions: Int
        public var declared: Bool
    }

    public struct Refused: Sendable, Hashable {
        public var step: String
        public var field: String
        public var sessions: Int
    }

    /// A required step of the new version the moved sessions have not answered (one added before
    /// their position): they are asked it before they can complete.
    public struct Unanswered: Sendable, Hashable {
        public var step: String
        public var sessions: Int
    }

    /// Moving the sessions of one version that is no longer served.
    public struct Move: Sendable, Hashable {
        public var fromVersion: String
        public var fromFingerprint: String
        public var sessions: Int
        /// Moved by a declaration of the newest flow (`FlowMigration`).
        public var declared: Int
        /// The version string is the served one, the shape is not: the flow changed without a new version.
        public var sameVersionChanged: Bool
        public var resumed: [Resumption]
        public var dropped: [Dropped]
        public var refused: [Refused]
        public var unanswered: [Unanswered] = []
        /// Sessions with at least one required step to answer.
        public var sessionsWithUnanswered = 0
    }

    public struct FlowReport: Sendable, Hashable {
        public var tenant: String
        public var flow: String
        public var version: String
        public var fingerprint: String
        public var olderServed: [String]
        public var inFlight: [VersionCount]
        public var moves: [Move]
    }

    public var flows: [FlowReport]

    /// Sessions in flight that would resume at an earlier step or lose an answer with no
    /// declaration saying so: a deploy pipeline stops on these (exit 65).
    public var unsafeSessions: Int

    public var isSafe: Bool { unsafeSessions == 0 }
}

extension Platform {
    /// `place` for planning: a version this host has not heard of is older (it read the registry
    /// at start, so nobody registered it since).
    func placeVersion(_ state: SessionState, in registered: Tenant, now: Date) throws(FlowError) -> (fate: String, placement: Placement) {
        let placement: Placement
        do throws(FlowError) {
            placement = try place(state, in: registered, now: now)
        } catch .unknownFlowVersion(let tenant, let flow, let version, let fingerprint) {
            flowRegistry.settle(tenant: tenant, flow: flow, version: version, fingerprint: fingerprint)
            placement = try place(state, in: registered, now: now)
        }
        return (placement.moved ? "moves" : "served", placement)
    }

    /// Plans what the served flows do to the store's sessions in flight, without writing anything.
    public func checkFlows(now: Date = Date()) async throws -> FlowCheckReport {
        var reports: [FlowCheckReport.FlowReport] = []
        var unsafe = 0
        for entry in hosted {
            guard let registered = tenants[entry.id] else { continue }
            for flowID in registered.flowIDs {
                guard let newest = registered.engines[flowID] else { continue }
                var counts: [String: FlowCheckReport.VersionCount] = [:]
                var moves:
                    [String: (
                        move: FlowCheckReport.Move, resumed: [FlowMove.Resumption: Int], dropped: [FlowMove.DroppedAnswer: Int], refused: [String: Int],
                        unanswered: [String: Int]
                    )] = [:]
                // Counted in the store; only the sessions of versions that would move are read,
                // a page at a time (each page a store call of its own).
                for group in try await store.versionsInFlight(tenant: entry.id, flow: flowID) {
                    let key = group.version + "\u{0}" + group.fingerprint
                    var probe = SessionState(
                        id: "", tenant: entry.id, userId: "", flow: flowID, flowVersion: group.version, flowFingerprint: group.fingerprint,
                        path: [], arrivedAt: now, createdAt: now, updatedAt: now)
                    probe.status = .active
                    var fate: String
                    do {
                        fate = try placeVersion(probe, in: registered, now: now).fate
                    } catch {
                        fate = "newer"
                    }
                    // Sessions stored before versions each move, or not, by what they hold: read them.
                    if group.fingerprint.isEmpty && fate == "served" { fate = "moves" }
                    counts[key] = .init(version: group.version, fingerprint: group.fingerprint, sessions: group.sessions, fate: fate)
                    guard fate == "moves" else { continue }
                    var after = ""
                    while true {
                        let page = try await store.sessionsInFlight(
                            tenant: entry.id, flow: flowID, version: group.version, fingerprint: group.fingerprint, after: after, limit: 500)
                        guard let last = page.last else { break }
                        after = last.id
                        for state in page {
                            guard case .moves(_, let move) = try? placeVersion(state, in: registered, now: now).placement else {
                                // Stored before versions and moving nothing: it runs on the newest as it is.
                                continue
                            }
                            var entry =
                                moves[key] ?? (
                                    FlowCheckReport.Move(
                                        fromVersion: state.flowVersion, fromFingerprint: state.flowFingerprint, sessions: 0, declared: 0,
                                        sameVersionChanged: state.flowVersion == newest.version, resumed: [], dropped: [], refused: []),
                                    [:], [:], [:], [:]
                                )
                            entry.move.sessions += 1
                            if move.declared { entry.move.declared += 1 }
                            if let resumption = move.resumption { entry.resumed[resumption, default: 0] += 1 }
                            for dropped in Set(move.dropped) { entry.dropped[dropped, default: 0] += 1 }
                            for (step, errors) in move.refused {
                                for field in Set(errors.compactMap(\.field)) { entry.refused[step + "\u{0}" + field, default: 0] += 1 }
                            }
                            if move.losesUndeclared { unsafe += 1 }
                            let unanswered = newest.unansweredRequiredSteps(move.state, now: now)
                            for step in unanswered { entry.unanswered[step, default: 0] += 1 }
                            if !unanswered.isEmpty { entry.move.sessionsWithUnanswered += 1 }
                            moves[key] = entry
                        }
                    }
                    if moves[key] == nil, var count = counts[key], group.fingerprint.isEmpty {
                        // Every session stored before versions runs on the newest unchanged.
                        count.fate = "served"
                        counts[key] = count
                    }
                }
                reports.append(
                    FlowCheckReport.FlowReport(
                        tenant: entry.id, flow: flowID, version: newest.version, fingerprint: newest.fingerprint,
                        olderServed: (registered.olderEngines[flowID] ?? []).map(\.version),
                        inFlight: counts.values.sorted { ($0.sessions, $0.version) > ($1.sessions, $1.version) },
                        moves: moves.values.map { entry in
                            var move = entry.move
                            move.resumed = entry.resumed.map { .init(from: $0.key.from, to: $0.key.to, sessions: $0.value, declared: $0.key.declared) }
                                .sorted { ($0.sessions, $0.from) > ($1.sessions, $1.from) }
                            move.dropped = entry.dropped.map { .init(step: $0.key.step, field: $0.key.field, sessions: $0.value, declared: $0.key.declared) }
                                .sorted { ($0.step, $0.field) < ($1.step, $1.field) }
                            move.refused = entry.refused.map { key, count in
                                let parts = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
                                return .init(step: parts[0], field: parts.count > 1 ? parts[1] : "", sessions: count)
                            }.sorted { ($0.step, $0.field) < ($1.step, $1.field) }
                            let order = newest.flow.steps.map(\.id)
                            move.unanswered = entry.unanswered.map { .init(step: $0.key, sessions: $0.value) }
                                .sorted { (order.firstIndex(of: $0.step) ?? .max) < (order.firstIndex(of: $1.step) ?? .max) }
                            return move
                        }.sorted { $0.sessions > $1.sessions }))
            }
        }
        return FlowCheckReport(flows: reports, unsafeSessions: unsafe)
    }
}

extension FlowCheckReport {
    /// The report for people: one block per flow, then the verdict.
    public var lines: [String] {
        var lines: [String] = []
        for flow in flows {
            let older = flow.olderServed.isEmpty ? "" : "; older versions still served: \(flow.olderServed.joined(separator: ", "))"
            lines.append("\(flow.tenant)/\(flow.flow): serving version \(flow.version) (fingerprint \(flow.fingerprint))\(older)")
            if flow.inFlight.isEmpty {
                lines.append("  no sessions in flight")
            } else {
                lines.append(
                    "  in flight: "
                        + flow.inFlight.map { count in
                            "\(count.sessions) on \(Self.name(count.version, count.fingerprint)): \(Self.fateWords(count.fate))"
                        }.joined(separator: "; "))
            }
            for move in flow.moves {
                lines.append(
                    "  \(move.sessions) session(s) on \(Self.name(move.fromVersion, move.fromFingerprint)) move onto \(flow.version)"
                        + (move.declared > 0 ? ", \(move.declared) by the flow's declared migration" : ", with no declared migration"))
                if move.sameVersionChanged {
                    lines.append(
                        "    the flow changed without a new version: \(flow.version) now has fingerprint \(flow.fingerprint); declare a new version and its migration"
                    )
                }
                for resumed in move.resumed {
                    lines.append(
                        "    \(resumed.sessions) resume at \(resumed.to) instead of \(resumed.from)"
                            + (resumed.declared ? " (declared)" : " (an earlier step, not declared)"))
                }
                for dropped in move.dropped {
                    lines.append(
                        "    \(dropped.sessions) lose their answer to \(dropped.step).\(dropped.field)" + (dropped.declared ? " (declared)" : " (not declared)")
                    )
                }
                for refused in move.refused {
                    lines.append(
                        "    \(refused.sessions) have an answer to \(refused.step).\(refused.field) the new rules refuse: shown with its error when they reach it"
                    )
                }
                if move.sessionsWithUnanswered > 0 {
                    lines.append(
                        "    \(move.sessionsWithUnanswered) have required steps of \(flow.version) to answer before they can complete (nothing is lost: they are asked)"
                    )
                }
                for unanswered in move.unanswered {
                    lines.append("    \(unanswered.sessions) must answer \(unanswered.step), a required step they have not seen")
                }
            }
        }
        lines.append(
            isSafe
                ? "ok: no session in flight resumes at an earlier step or loses an answer without a declaration"
                : "not safe: \(unsafeSessions) session(s) in flight would resume at an earlier step or lose an answer without a declaration")
        return lines
    }

    static func name(_ version: String, _ fingerprint: String) -> String {
        version.isEmpty && fingerprint.isEmpty
            ? "no version (stored before versions)" : "version \(version) [\(fingerprint.isEmpty ? "no fingerprint" : fingerprint)]"
    }

    static func fateWords(_ fate: String) -> String {
        switch fate {
        case "served": "served"
        case "moves": "no longer served: moved on first touch"
        default: "first served by a newer binary: left alone here, -32008 on this host"
        }
    }

    /// The report as JSON, for deploy pipelines.
    public var json: JSONValue {
        .object([
            "ok": .bool(isSafe),
            "unsafeSessions": .int(Int64(unsafeSessions)),
            "flows": .array(
                flows.map { flow in
                    .object([
                        "tenant": .string(flow.tenant), "flow": .string(flow.flow), "version": .string(flow.version),
                        "fingerprint": .string(flow.fingerprint), "olderServed": .array(flow.olderServed.map(JSONValue.string)),
                        "inFlight": .array(
                            flow.inFlight.map { count in
                                [
                                    "version": .string(count.version), "fingerprint": .string(count.fingerprint),
                                    "sessions": .int(Int64(count.sessions)), "fate": .string(count.fate),
                                ]
                            }),
                        "moves": .array(
                            flow.moves.map { move in
                                .object([
                                    "fromVersion": .string(move.fromVersion), "fromFingerprint": .string(move.fromFingerprint),
                                    "sessions": .int(Int64(move.sessions)), "declared": .int(Int64(move.declared)),
                                    "sameVersionChanged": .bool(move.sameVersionChanged),
                                    "resumed": .array(
                                        move.resumed.map {
                                            [
                                                "from": .string($0.from), "to": .string($0.to), "sessions": .int(Int64($0.sessions)),
                                                "declared": .bool($0.declared),
                                            ]
                                        }),
                                    "dropped": .array(
                                        move.dropped.map {
                                            [
                                                "step": .string($0.step), "field": .string($0.field), "sessions": .int(Int64($0.sessions)),
                                                "declared": .bool($0.declared),
                                            ]
                                        }),
                                    "refused": .array(
                                        move.refused.map {
                                            ["step": .string($0.step), "field": .string($0.field), "sessions": .int(Int64($0.sessions))]
                                        }),
                                    "sessionsWithUnanswered": .int(Int64(move.sessionsWithUnanswered)),
                                    "unanswered": .array(move.unanswered.map { ["step": .string($0.step), "sessions": .int(Int64($0.sessions))] }),
                                ])
                            }),
                    ])
                }),
        ])
    }
}

extension Platform {
    /// What `serve` does before it answers: registers the flow versions it serves, then logs
    /// what they do to the sessions in flight (the `flows check` report) at notice, or at
    /// warning when someone would be moved back or lose an answer without a declaration.
    public func startServingFlows(logger: Logger) async throws {
        try await registerFlowVersions()
        let report = try await checkFlows()
        // Nothing to move: one line says so (the whole report is at debug); otherwise the whole
        // report, at warning when someone would be moved back or lose an answer unawares.
        if report.isSafe, report.flows.allSatisfy({ $0.moves.isEmpty }) {
            let served = report.flows.map { "\($0.tenant)/\($0.flow) \($0.version)" }.joined(separator: ", ")
            let inFlight = report.flows.reduce(0) { $0 + $1.inFlight.reduce(0) { $0 + $1.sessions } }
            logger.notice("flows: serving \(served); \(inFlight) session(s) in flight, none moves onto another version")
            for line in report.lines { logger.debug("flows: \(line)") }
            return
        }
        let level: Logger.Level = report.isSafe ? .notice : .warning
        for line in report.lines { logger.log(level: level, "flows: \(line)") }
    }
}
