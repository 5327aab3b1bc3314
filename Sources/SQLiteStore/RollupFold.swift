import GRDB
import PlatformCore

/// One fold's events added up per session before anything is written: a session that made a
/// dozen commands since the last fold costs a statement per step it touched and one for its
/// outcome, not two or three a command. What each event does (PostgreSQL's trigger does the
/// same in each commit, on the assignment's row): the exposure makes the session's outcome row;
/// an arrival adds the step (once) and makes it the last; a leaving marks it left and adds its
/// seconds; the first completion stamps the outcome.
struct RollupFold {
    struct Step {
        var arrived = false
        /// Leavings after the step's first arrival in this fold, their seconds summed (nil when
        /// none had any).
        var left = false
        var seconds: Double?
        /// Leavings before it: they move only a row an earlier fold made (as one event at a
        /// time would), so the result does not depend on where a fold's chunk begins.
        var leftBefore = false
        var secondsBefore: Double?
    }

    struct Session {
        var steps: [String: Step] = [:]
        var order: [String] = []
        var lastArrival: String?
        var completedAt: Double?
        /// Enrolled in this fold: its outcome row is made even if nothing else happened yet.
        var exposed = false

        mutating func touch(_ step: String, _ change: (inout Step) -> Void) {
            if steps[step] == nil { order.append(step) }
            change(&steps[step, default: Step()])
        }
    }

    private var sessions: [String: Session] = [:]
    private var order: [String] = []

    /// An event, in commit order.
    mutating func add(sessionId: String, kind: String, step: String?, seconds: Double?, at: Double) {
        if sessions[sessionId] == nil { order.append(sessionId) }
        var session = sessions[sessionId, default: Session()]
        switch FlowEvent.Kind(rawValue: kind) {
        case .arrived?:
            guard let step else { break }
            session.touch(step) { $0.arrived = true }
            session.lastArrival = step
        case .left?:
            guard let step else { break }
            session.touch(step) { touched in
                if touched.arrived {
                    touched.left = true
                    if let seconds { touched.seconds = (touched.seconds ?? 0) + seconds }
                } else {
                    touched.leftBefore = true
                    if let seconds { touched.secondsBefore = (touched.secondsBefore ?? 0) + seconds }
                }
            }
        case .completed?:
            if session.completedAt == nil { session.completedAt = at }
        case .exposed?:
            session.exposed = true
        default:
            break
        }
        sessions[sessionId] = session
    }

    func write(_ db: Database) throws {
        for id in order {
            guard let session = sessions[id] else { continue }
            // The session's phase, read once for all its rows (the events were read only for
            // sessions with an assignment).
            guard
                let phase = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT tenant, experiment, seed, variant, assigned_at FROM experiment_assignments WHERE session_id = ?"),
                    arguments: [id])
            else { continue }
            let (tenant, experiment, seed, variant, assignedAt): (String, String, String, String, Double) = (
                phase[0], phase[1], phase[2], phase[3], phase[4]
            )
            for name in session.order {
                guard let step = session.steps[name] else { continue }
                if step.leftBefore {
                    // Left a step reached before this fold: its row is there (or the leaving
                    // counts for nothing, as it did when each event moved the rollup).
                    try db.cachedStatement(
                        sql: """
                            UPDATE experiment_steps SET went_on = 1, seconds = CASE WHEN ?1 IS NULL THEN seconds ELSE COALESCE(seconds, 0) + ?1 END
                            WHERE session_id = ?2 AND step = ?3
                            """
                    ).execute(arguments: [step.secondsBefore, id, name])
                }
                if step.arrived {
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO experiment_steps (session_id, step, tenant, experiment, seed, variant, went_on, seconds)
                            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                            ON CONFLICT (session_id, step) DO UPDATE SET went_on = MAX(went_on, excluded.went_on),
                                seconds = CASE WHEN excluded.seconds IS NULL THEN seconds ELSE COALESCE(seconds, 0) + excluded.seconds END
                            """
                    ).execute(arguments: [id, name, tenant, experiment, seed, variant, step.left, step.seconds])
                }
            }
            let row: StatementArguments = [id, tenant, experiment, seed, variant, session.lastArrival]
            if let completedAt = session.completedAt {
                // Every value is the old row's in an upsert's SET: the first completion stays.
                try db.cachedStatement(
                    sql: """
                        INSERT INTO experiment_outcomes (session_id, tenant, experiment, seed, variant, last_step, completed_at, seconds_to_complete)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                        ON CONFLICT (session_id) DO UPDATE SET last_step = COALESCE(excluded.last_step, last_step),
                            completed_at = COALESCE(completed_at, excluded.completed_at),
                            seconds_to_complete = CASE WHEN completed_at IS NULL THEN excluded.seconds_to_complete ELSE seconds_to_complete END
                        """
                ).execute(arguments: row + [completedAt, max(0, completedAt - assignedAt)])
            } else if session.exposed || session.lastArrival != nil {
                // Only the last step in the SET: SQLite rewrites the entries of every index whose
                // columns an UPDATE sets, whatever their values, and the duration index holds
                // nothing a step changes.
                try db.cachedStatement(
                    sql: """
                        INSERT INTO experiment_outcomes (session_id, tenant, experiment, seed, variant, last_step)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                        ON CONFLICT (session_id) DO UPDATE SET last_step = excluded.last_step
                            WHERE excluded.last_step IS NOT NULL AND excluded.last_step IS NOT experiment_outcomes.last_step
                        """
                ).execute(arguments: row)
            }
        }
    }
}
