import Foundation
import PlatformCore
import PlatformStorage
import PostgresNIO

/// Sessions: the optimistic path for a session this host knows, the locked path otherwise.
extension PostgresSessionStore {
    public func session(tenant: String, key: SessionKey) async throws -> SessionState? {
        try await connection { connection in try await self.fetchSession(connection, tenant: tenant, key: key, lock: false) }
    }

    public func ping() async throws {
        try await connection { connection in _ = try await connection.query("SELECT 1", logger: self.logger).collect() }
    }

    public func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        if let result = try await updateOptimistically(tenant: tenant, key: key, body) {
            return result
        }
        return try await updateLockedAfterRace(tenant: tenant, key: key, body)
    }

    /// A session read as absent by user and flow is started without another read: its insert
    /// does nothing when another host's start came first, and an enrolment (which this path does
    /// not write) goes straight to the locked transaction, without the unlocked read between.
    public func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey, readAsAbsent: Bool,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        guard readAsAbsent, case .user = key else { return try await updateSession(tenant: tenant, key: key, body) }
        if let result = try await startOptimistically(tenant: tenant, key: key, body) {
            return result
        }
        return try await updateLockedAfterRace(tenant: tenant, key: key, body)
    }

    /// The locked path, once more when a start raced another host's.
    func updateLockedAfterRace<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        do {
            return try await updateLocked(tenant: tenant, key: key, body)
        } catch is StartRaced {
            return try await updateLocked(tenant: tenant, key: key, body)
        }
    }

    /// The optimistic path, as the SQLite store's: the command is decided outside any
    /// transaction on the row as last read, and its whole write (the session, its changed
    /// answers, its events) is one statement that applies it only if the row's write count is
    /// still the one read. At most a read and one statement instead of a transaction's eight or
    /// more round trips.
    /// A completion's records, profile and outbox events go in the same statement as its session,
    /// so completions share commits (and each tenant's outbox lock) like the other writes.
    /// Nil when the locked path must decide: the row changed meanwhile (the command runs again on
    /// the locked row, where a stale revision is -32003 as ever), or the commit is one this path
    /// does not write (a new or replaced session, an erasure).
    func updateOptimistically<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result? {
        let remembered: RecentSessions.Entry? = if case .id(let id) = key { recent.entry(tenant: tenant, id: id) } else { nil }
        let read: (state: SessionState, writes: Int64)
        if let remembered {
            read = (remembered.state, Int64(remembered.writeCount))
        } else {
            guard let stored = try await connection({ connection in try await self.fetchStored(connection, tenant: tenant, key: key, lock: false) }) else {
                return try await startOptimistically(tenant: tenant, key: key, body)
            }
            read = stored
        }
        let commit: SessionCommit?
        let result: Result
        do {
            (commit, result) = try body(read.state)
        } catch  where remembered != nil {
            // Refused on a remembered state, which may be stale: the locked path decides.
            return nil
        }
        // Nothing to write is an answer only on a state just read.
        guard let commit else { return remembered == nil ? result : nil }
        let state = commit.state
        guard state.id == read.state.id, state.tenant == tenant, !SessionState.erases(from: read.state, to: state), !commit.touchesAssignments
        else { return nil }
        let write = try SessionWrite(
            state, events: commit.events, replacing: read.state, writes: read.writes, profile: commit.profile, outbox: commit.outbox)
        guard try await batcher.apply(write, send: { await self.send($0) }) else { return nil }
        recent.remember(state, writeCount: Int(read.writes + 1))
        return result
    }

    /// A user's first session of a flow, decided on finding none and inserted by one statement that
    /// does nothing if another host inserted one meanwhile (the unique tenant, user and flow); then
    /// the locked path decides on theirs. Nil for a session looked up by id (gone: the locked path
    /// says so) and for any other commit.
    func startOptimistically<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result? {
        guard case .user(let userId, let flow) = key else { return nil }
        let (commit, result) = try body(nil)
        guard let commit else { return result }
        let state = commit.state
        // An enrolment's assignment is written beside its session: the locked path's transaction.
        guard IDBytes.equal(state.tenant, tenant), IDBytes.equal(state.userId, userId), state.flow == flow, commit.profile == nil, commit.outbox.isEmpty,
            !commit.touchesAssignments
        else { return nil }
        let started = ContinuousClock.now
        guard try await connection({ connection in try await self.insert(connection, state, events: commit.events) }) else { return nil }
        StoreMetrics.commit(duration: .now - started, batchSize: 1)
        recent.remember(state, writeCount: 0)
        return result
    }

    /// Whether the new session was inserted (false: the user already has one of that flow).
    func insert(_ connection: PostgresConnection, _ state: SessionState, events: [FlowEvent]) async throws -> Bool {
        var inserted = false
        for try await id in try await connection.execute(try SessionInsertStatement(state, events: events), logger: logger) {
            inserted = inserted || id == state.id
        }
        return inserted
    }

    /// Statements the optimistic path has sent and the writes they carried (group commit's
    /// figures, for tests and operators' curiosity).
    public var groupCommitted: (statements: Int, writes: Int) { batcher.counts.withLock { $0 } }

    /// One statement carrying these optimistic writes; for each, whether it applied. When a
    /// statement of several fails for a reason that is not the database's state (a deadlock victim,
    /// a value it refused), each write is sent again alone, so one write's failure is its own.
    func send(_ writes: [SessionWrite]) async -> [Result<Bool, any Error>] {
        do {
            let started = ContinuousClock.now
            let applied = try await connection { connection in try await self.execute(connection, writes) }
            StoreMetrics.commit(duration: .now - started, batchSize: writes.count)
            return writes.map { .success(applied.contains($0.sessionID)) }
        } catch {
            guard writes.count > 1, Self.isWritesOwnFailure(error) else { return writes.map { _ in .failure(error) } }
            var outcomes: [Result<Bool, any Error>] = []
            for write in writes { outcomes.append(contentsOf: await send([write])) }
            return outcomes
        }
    }

    /// Whether a failed statement may have failed for one of its writes rather than for the
    /// database's state: anything but an unreachable, closed or overloaded server.
    static func isWritesOwnFailure(_ error: any Error) -> Bool {
        if let error = error as? StoreUnavailable { return error.reason.contains("SQLSTATE 40") }
        guard let reason = passingFailure(error) else { return true }
        return reason.contains("SQLSTATE 40")
    }

    func execute(_ connection: PostgresConnection, _ writes: [SessionWrite]) async throws -> Set<String> {
        var applied = Set<String>()
        for try await id in try await connection.execute(SessionWriteStatement(writes), logger: logger) { applied.insert(id) }
        return applied
    }

    /// The command decided on the row locked in a transaction (`SELECT … FOR UPDATE`).
    func updateLocked<Result: Sendable>(
        tenant: String, key: SessionKey,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        let started = ContinuousClock.now
        let (result, erased, wrote, saved) = try await transaction { connection -> (Result, Bool, Bool, RecentSessions.Entry?) in
            if case .user(let userId, let flow) = key {
                // Serialises two hosts starting the same user's session: the second finds the first's.
                _ = try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\("session:" + tenant + "\u{1F}" + userId + "\u{1F}" + flow), 0))",
                    logger: self.logger
                ).collect()
            }
            let stored = try await self.fetchLocked(connection, tenant: tenant, key: key)
            let old = stored?.state
            let (commit, result) = try body(old)
            // Read locked, the stored row is what to remember when nothing is written (a stale
            // entry is refreshed).
            guard let commit else {
                return (result, false, false, stored.map { RecentSessions.Entry(state: $0.state, writeCount: Int($0.writes)) })
            }
            precondition(commit.state.tenant == tenant, "a commit must stay in its tenant")
            // Before the session's events: the rollup their trigger keeps starts from it.
            for stale in commit.droppedAssignments { try await self.drop(connection, stale) }
            if let assignment = commit.assignment { try await self.insert(connection, assignment) }
            if let stored, stored.state.id == commit.state.id {
                // The row is held: its write count is the one read, and the session's whole
                // write (a completion's records and events included) is one statement, as on the
                // optimistic path.
                let write = try SessionWrite(
                    commit.state, events: commit.events, replacing: stored.state, writes: stored.writes,
                    profile: commit.profile, outbox: commit.outbox)
                guard try await self.execute(connection, [write]).contains(write.sessionID) else {
                    throw StoreDefect("session \(write.sessionID) is not in tenant \(tenant)")
                }
            } else {
                if old == nil {
                    // Another host's optimistic start (which takes no advisory lock) may have
                    // inserted the user's session since the read: decide again on theirs.
                    guard try await self.insert(connection, commit.state, events: commit.events) else {
                        if case .user = key { throw StartRaced() }
                        throw StoreDefect("user \(commit.state.userId) of tenant \(tenant) already has a session of flow \(commit.state.flow)")
                    }
                } else {
                    try await self.save(connection, commit.state, replacing: old)
                    for event in commit.events { try await self.insert(connection, event, of: commit.state) }
                }
                if let profile = commit.profile {
                    try await self.save(connection, profile, keepingOtherRecords: true, at: commit.state.updatedAt)
                }
                try await self.insert(connection, outbox: commit.outbox, tenant: tenant)
            }
            // The row's write count after this write: one more, or 0 for a row just inserted.
            let writes = stored.map { $0.state.id == commit.state.id ? Int($0.writes) + 1 : 0 } ?? 0
            return (result, SessionState.erases(from: old, to: commit.state), true, RecentSessions.Entry(state: commit.state, writeCount: writes))
        }
        if let saved { recent.remember(saved) }
        // One session's transaction is one commit.
        if wrote { StoreMetrics.commit(duration: .now - started, batchSize: 1) }
        if erased { vacuumAfterErasure() }
        return result
    }

    /// The erased rows are dead tuples until a vacuum reclaims their space: one runs now, in a
    /// task of its own, never inside the request. Erasures while one runs ask for one more.
    func vacuumAfterErasure() {
        vacuumState.withLock { state in
            guard state.running == nil else {
                state.again = true
                return
            }
            state.generation += 1
            let generation = state.generation
            state.running = Task.detached { [weak self] in
                // Every way out clears `running` (unless a newer vacuum took its place), or
                // `waitForVacuum`, and so `close`, would wait on a finished task forever: a store
                // closed before the first pass is one such way out.
                defer {
                    self?.vacuumState.withLock { state in
                        if state.generation == generation { state.running = nil }
                    }
                }
                while let self, !self.closed.load(ordering: .relaxed) {
                    do {
                        try await self.connection { connection in
                            // The tables an erasure deletes from (a rejection, or user.erase).
                            for table in ["answers", "sessions", "replaced_sessions", "events", "records", "profiles", "deliveries", "outbox"] {
                                try await Self.run(connection, "VACUUM \(table)", self.logger)
                            }
                        }
                        self.vacuumCount.add(1, ordering: .relaxed)
                    } catch {
                        self.logger.warning("VACUUM after an erasure failed (autovacuum will reclaim the rows later): \(error)")
                    }
                    let again = self.vacuumState.withLock { state in
                        defer { state.again = false }
                        if !state.again { state.running = nil }
                        return state.again
                    }
                    if !again { return }
                }
            }
        }
    }

    /// Vacuums run after erasures so far (for tests).
    public var vacuumsAfterErasure: Int { vacuumCount.load(ordering: .relaxed) }

    /// Waits for a vacuum in progress (for tests).
    public func waitForVacuum() async {
        while let task = vacuumState.withLock({ $0.running }) { await task.value }
    }

    func fetchSession(_ connection: PostgresConnection, tenant: String, key: SessionKey, lock: Bool) async throws -> SessionState? {
        try await fetchStored(connection, tenant: tenant, key: key, lock: lock)?.state
    }

    /// The session's row locked, with its write count. A session this host remembers is read
    /// whole only when another write has come since (its write count moved): a completion then
    /// costs one small read instead of the session's and its answers' rows and their parsing.
    func fetchLocked(_ connection: PostgresConnection, tenant: String, key: SessionKey) async throws -> (state: SessionState, writes: Int64)? {
        guard case .id(let id) = key, let remembered = recent.entry(tenant: tenant, id: id) else {
            return try await fetchStored(connection, tenant: tenant, key: key, lock: true)
        }
        let rows = try await connection.query(
            "SELECT writes FROM sessions WHERE tenant = \(tenant) AND id = \(id) FOR UPDATE", logger: logger
        ).collect()
        guard let writes = try rows.first?.decode(Int64.self) else { return nil }
        if writes == Int64(remembered.writeCount) { return (remembered.state, writes) }
        return try await fetchStored(connection, tenant: tenant, key: key, lock: true)
    }

    /// The session and the count of writes its row has had.
    func fetchStored(
        _ connection: PostgresConnection, tenant: String, key: SessionKey, lock: Bool
    ) async throws -> (state: SessionState, writes: Int64)? {
        let row: PostgresRandomAccessRow?
        if lock {
            // Locked reads are the rarer path (a conflict, a start racing another host): not
            // prepared. Their answers come in a second query below (FOR UPDATE cannot go with the
            // aggregate the unlocked reads use).
            var query: PostgresQuery
            switch key {
            case .id(let id):
                query = "SELECT \(unescaped: SessionRead.columns), NULL AS answer_rows FROM sessions WHERE tenant = \(tenant) AND id = \(id)"
            case .user(let userId, let flow):
                query = """
                    SELECT \(unescaped: SessionRead.columns), NULL AS answer_rows FROM sessions
                    WHERE tenant = \(tenant) AND user_id = \(userId) AND flow = \(flow)
                    """
            }
            query = PostgresQuery(unsafeSQL: query.sql + " FOR UPDATE", binds: query.binds)
            row = try await connection.query(query, logger: logger).collect().first?.makeRandomAccess()
        } else {
            var rows: [PostgresRow] = []
            switch key {
            case .id(let id):
                for try await found in try await connection.execute(SessionByIDStatement(tenant: tenant, id: id), logger: logger) {
                    rows.append(found)
                }
            case .user(let userId, let flow):
                let statement = SessionByUserStatement(tenant: tenant, userId: userId, flow: flow)
                for try await found in try await connection.execute(statement, logger: logger) { rows.append(found) }
            }
            row = rows.first?.makeRandomAccess()
        }
        guard let row else { return nil }
        let id = try row["id"].decode(String.self)
        var answers: [String: [String: JSONValue]] = [:]
        var computed: [String: JSONValue] = [:]
        func take(_ step: String, _ values: String, _ computedJSON: String?) throws {
            answers[step] = try JSONValue.parse(values).objectValue ?? [:]
            if let computedJSON { computed[step] = try JSONValue.parse(computedJSON) }
        }
        if lock {
            for try await (step, values, computedJSON) in try await connection.query(
                "SELECT step_id, values_json, computed_json FROM answers WHERE tenant = \(tenant) AND session_id = \(id)", logger: logger
            ).decode((String, String, String?).self) {
                try take(step, values, computedJSON)
            }
        } else if let rows = try row["answer_rows"].decode(String?.self) {
            for entry in try JSONValue.parse(rows).arrayValue ?? [] {
                guard let fields = entry.arrayValue, fields.count == 3, let step = fields[0].stringValue, let values = fields[1].stringValue
                else { continue }
                try take(step, values, fields[2].stringValue)
            }
        }
        let text = try SessionTextColumns(
            user: try row["user_json"].decode(String.self), path: try row["path_json"].decode(String.self),
            progress: try row["progress_json"].decode(String.self), completion: try row["completion_json"].decode(String?.self),
            rejection: try row["rejection_json"].decode(String?.self)
        ).decoded()
        let state = SessionState(
            id: id, tenant: try row["tenant"].decode(String.self), userId: try row["user_id"].decode(String.self),
            flow: try row["flow"].decode(String.self),
            flowVersion: try row["flow_version"].decode(String.self), flowFingerprint: try row["flow_fingerprint"].decode(String.self),
            locale: text.locale, status: SessionStatus(rawValue: try row["status"].decode(String.self)) ?? .active,
            revision: Int(try row["revision"].decode(Int64.self)),
            user: text.user, path: text.path,
            answers: answers, computed: computed,
            skipped: text.skipped, stepErrors: text.stepErrors, secondsSpent: text.secondsSpent,
            arrivedAt: Date(timeIntervalSince1970: try row["arrived_at"].decode(Double.self)),
            lastSubmitDigest: try row["last_submit_digest"].decode(String?.self),
            completion: text.completion, rejection: text.rejection,
            createdAt: Date(timeIntervalSince1970: try row["created_at"].decode(Double.self)),
            updatedAt: Date(timeIntervalSince1970: try row["updated_at"].decode(Double.self)),
            abandonedAt: try row["abandoned_at"].decode(Double?.self).map(Date.init(timeIntervalSince1970:)),
            progressTotal: text.progressTotal, experiment: text.experiment
        )
        return (state, try row["writes"].decode(Int64.self))
    }

    func save(_ connection: PostgresConnection, _ state: SessionState, replacing old: SessionState?) async throws {
        let text = try SessionTextColumns(state)
        let (userJSON, pathJSON, progressJSON) = (text.user, text.path, text.progress)
        let (completionJSON, rejectionJSON) = (text.completion, text.rejection)
        let revision = Int64(state.revision)
        let arrived = state.arrivedAt.timeIntervalSince1970
        let created = state.createdAt.timeIntervalSince1970
        let updated = state.updatedAt.timeIntervalSince1970
        if let old, old.id != state.id {
            // An expired session makes way for the user's new one (unique per user and flow).
            _ = try await connection.query("DELETE FROM sessions WHERE tenant = \(state.tenant) AND id = \(old.id)", logger: logger).collect()
        }
        if old == nil || old?.id != state.id {
            _ = try await connection.query(
                """
                INSERT INTO sessions (id, tenant, user_id, flow, status, revision, user_json, path_json,
                    progress_json, arrived_at, last_submit_digest, completion_json, rejection_json, created_at, updated_at,
                    flow_version, flow_fingerprint)
                VALUES (\(state.id), \(state.tenant), \(state.userId), \(state.flow), \(state.status.rawValue), \(revision),
                    \(userJSON), \(pathJSON), \(progressJSON), \(arrived), \(state.lastSubmitDigest), \(completionJSON),
                    \(rejectionJSON), \(created), \(updated), \(state.flowVersion), \(state.flowFingerprint))
                """, logger: logger
            ).collect()
        } else {
            let changed = try await connection.query(
                """
                UPDATE sessions SET status = \(state.status.rawValue), revision = \(revision), user_json = \(userJSON),
                    path_json = \(pathJSON), progress_json = \(progressJSON), arrived_at = \(arrived),
                    last_submit_digest = \(state.lastSubmitDigest), completion_json = \(completionJSON),
                    rejection_json = \(rejectionJSON), updated_at = \(updated),
                    flow_version = \(state.flowVersion), flow_fingerprint = \(state.flowFingerprint),
                    abandoned_at = \(state.abandonedAt?.timeIntervalSince1970), writes = writes + 1
                WHERE tenant = \(state.tenant) AND id = \(state.id) RETURNING 1
                """, logger: logger
            ).collect().count
            guard changed == 1 else { throw StoreDefect("session \(state.id) is not in tenant \(state.tenant)") }
        }
        let answers = AnswerRowChanges(state, replacing: old?.id == state.id ? old : nil)
        for step in answers.removed {
            _ = try await connection.query(
                "DELETE FROM answers WHERE tenant = \(state.tenant) AND session_id = \(state.id) AND step_id = \(step)",
                logger: logger
            ).collect()
        }
        for row in answers.upserted {
            _ = try await connection.query(
                """
                INSERT INTO answers (session_id, tenant, step_id, values_json, computed_json)
                VALUES (\(state.id), \(state.tenant), \(row.step), \(row.values), \(row.computed))
                ON CONFLICT (session_id, step_id) DO UPDATE SET
                    values_json = excluded.values_json, computed_json = excluded.computed_json
                """, logger: logger
            ).collect()
        }
    }

    func insert(_ connection: PostgresConnection, _ event: FlowEvent, of state: SessionState) async throws {
        _ = try await connection.query(
            """
            INSERT INTO events (tenant, flow, session_id, kind, step, action, to_step, seconds, at, flow_version)
            VALUES (\(state.tenant), \(state.flow), \(state.id), \(event.kind.rawValue), \(event.step), \(event.action),
                \(event.toStep), \(event.seconds), \(event.at.timeIntervalSince1970), \(state.flowVersion))
            """, logger: logger
        ).collect()
    }
}
