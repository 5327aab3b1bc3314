import PlatformCore

/// A session commit with everything it writes already encoded, so the store's one write
/// transaction (which every other write waits for) only executes statements.
package struct PreparedSessionCommit: Sendable {
    package let commit: SessionCommit
    /// The write count of the row it replaces (the row is updated only if it still has it), or
    /// nil for a new session (inserted).
    package let replacedWriteCount: Int?
    /// The commit rejects or expires a session, erasing its answers (the WAL is truncated after).
    package let rejects: Bool
    /// The id of an expired session a new one of the same user replaces (deleted, then inserted).
    package let replacedID: String?
    package let text: SessionTextColumns
    package let answers: AnswerRowChanges
    /// The outbox events' bodies, in the commit's order.
    package let outboxBodies: [String]

    package init(_ commit: SessionCommit, replacing stored: RecentSessions.Entry?) throws {
        let old = stored?.state
        self.commit = commit
        replacedWriteCount = stored?.writeCount
        replacedID = old.flatMap { $0.id == commit.state.id ? nil : $0.id }
        rejects = SessionState.erases(from: old, to: commit.state)
        text = try SessionTextColumns(commit.state)
        answers = AnswerRowChanges(commit.state, replacing: replacedID == nil ? old : nil)
        outboxBodies = try commit.outbox.map(Self.body(of:))
    }

    /// The row as this commit leaves it: its state, and the write count its write gives it.
    package var written: RecentSessions.Entry {
        RecentSessions.Entry(state: commit.state, writeCount: replacedID == nil ? replacedWriteCount.map { $0 + 1 } ?? 0 : 0)
    }

    package static func body(of event: OutboxEvent) throws -> String {
        try JSONValue(encoding: event.event).serialized()
    }
}
