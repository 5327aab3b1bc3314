/// Why the engine or the platform refused a command, in the domain's words. Only the RPC edge
/// turns these into JSON-RPC codes (`RPCError(_:)`).
public enum FlowError: Error, Sendable, Hashable {
    /// No such tenant, flow, session, user or profile (another tenant's session included).
    case notFound(String)
    /// The request names a tenant this server does not host; `hosted` are the ids it does.
    case unknownTenant(String, hosted: [String])
    /// The command names a stale revision or step; `session` is the current one.
    case conflict(String, session: SessionView)
    /// Nothing was saved; every invalid field is listed.
    case validationFailed([FieldError], session: SessionView?)
    /// The session cannot take this command now (completed, an action not offered, …).
    case invalidState(String, session: SessionView)
    /// A command's argument is unusable (a field that is not a search field).
    case invalidArgument(name: String, reason: String)
    /// The store cannot take the write now (disk full, locked, unreachable); nothing was saved.
    case unavailable(String)
    /// A session runs on a version of its flow this host has not heard of: the platform reads the
    /// store's registry of versions again and retries once (never answered as such; -32008 if it were).
    case unknownFlowVersion(tenant: String, flow: String, version: String, fingerprint: String)
    /// A defect in a plugin or the platform; the detail is for the log only.
    case defect(String)
}
