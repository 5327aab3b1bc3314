import Foundation
import PlatformCore
import PlatformStorage

/// The person's data (contract version 3, "The user's data"): everything held about one user of a
/// tenant as one document, and its erasure on request.
extension Platform {
    public func exportUser(tenant: String, userId: String) async throws(FlowError) -> UserExport {
        _ = try await self.tenant(tenant)
        let data = try await storing { try await store.userData(tenant: tenant, userId: userId) }
        let funnel = data.events.map { stored in
            UserExport.Event(type: stored.event.kind.rawValue, step: stored.event.step, at: Timestamp.string(stored.event.at))
        }
        let completion = data.outbox.map { event in
            UserExport.Event(type: event.type.rawValue, at: Timestamp.string(event.occurredAt))
        }
        var assignments: [ExperimentAssignment] = []
        if let experiments = store as? any ExperimentStore {
            assignments = try await storing { try await experiments.assignments(tenant: tenant, userId: userId) }
        }
        return UserExport(
            tenant: tenant, userId: userId, exportedAt: Timestamp.string(clock()),
            sessions: data.sessions.map { state in
                UserExport.Session(
                    sessionId: state.id, flow: state.flow, flowVersion: state.flowVersion, status: state.status,
                    createdAt: Timestamp.string(state.createdAt), updatedAt: Timestamp.string(state.updatedAt),
                    user: state.user, answers: state.answers)
            },
            profile: data.profile,
            events: (funnel + completion).sorted { $0.at < $1.at },
            assignments: assignments.map { assignment in
                UserExport.Assignment(
                    experiment: assignment.experiment, seed: assignment.seed, variant: assignment.variant, flow: assignment.flow,
                    assignedAt: Timestamp.string(assignment.assignedAt))
            })
    }

    /// Erases the user in one transaction with a `user.erased` event, and logs what went (counts,
    /// never the person's data). Erasing a user the store does not know answers zeros, and the
    /// same user id may start afresh afterwards.
    public func eraseUser(tenant: String, userId: String) async throws(FlowError) -> UserErasure {
        let registered = try await self.tenant(tenant)
        let now = clock()
        let report = event(.userErased, of: registered, userId: userId, sessionId: nil, at: now, data: [:])
        let counts = try await storing { try await store.eraseUser(tenant: tenant, userId: userId, report: report) }
        if !report.webhooks.isEmpty { outboxSignal.ring() }
        logger.notice(
            "user erased",
            metadata: [
                "tenant": "\(tenant)", "user": "\(userId)", "sessions": "\(counts.sessions)", "records": "\(counts.records)",
                "events": "\(counts.events)", "deliveries": "\(counts.deliveries)",
            ])
        return UserErasure(erased: counts)
    }
}
