/// A session commit with everything it writes already encoded, so the store's one write
/// transaction (which every other write waits for) only executes statements.
struct PreparedSessionCommit: Sendable {
    let commit: SessionCommit
    /// The write count of the row it replaces (the row is updated only if it still has it), or
    /// nil for a new session (inserted).
    let replacedWriteCount: Int?
    /// The commit rejects a session that was not rejected, erasing its answers.
    let rejects: Bool
    let text: SessionTextColumns
    let answers: AnswerRowChanges
    /// The outbox events' bodies, in the commit's order.
    let outboxBodies: [String]

    init(_ commit: SessionCommit, replacing stored: RecentSessions.Entry?) throws {
        let old = stored?.state
        self.commit = commit
        replacedWriteCount = stored?.writeCount
        rejects = commit.state.status == .rejected && old?.status != .rejected
        text = try SessionTextColumns(commit.state)
        answers = AnswerRowChanges(commit.state, replacing: old)
        outboxBodies = try commit.outbox.map(Self.body(of:))
    }

    /// The row as this commit leaves it: its state, and the write count its write gives it.
    var written: RecentSessions.Entry {
        RecentSessions.Entry(state: commit.state, writeCount: replacedWriteCount.map { $0 + 1 } ?? 0)
    }

    static func body(of event: OutboxEvent) throws -> String {
        try JSONValue(encoding: event.event).serialized()
    }
}
