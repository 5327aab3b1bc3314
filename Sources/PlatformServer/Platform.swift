import Foundation
import Logging
import PlatformCore
import PlatformStorage
import Synchronization

/// The imperative shell around the engine: finds the tenant's plugin, reads and writes the
/// store (one transaction per command), runs server work outside transactions, writes the
/// plugins' log lines once their command has committed, and answers each contract method with a
/// wire type or a `FlowError`; it knows nothing of JSON-RPC.
public final class Platform: Sendable {
    public static let version = "0.1.0"
    public static let protocolVersion = 4

    /// The hosted tenants, in configuration order.
    public let hosted: [HostedTenant]
    let tenants: [String: Tenant]
    let store: any SessionStore
    let clock: @Sendable () -> Date
    /// Session ids, and the ids plugins take with `StepContext.newID()`.
    let newID: @Sendable () -> String
    /// Completion events' ids, drawn apart from `newID` so events never shift the ids plugins see.
    let eventID: @Sendable () -> String
    let logger: Logger
    /// Each plugin's Logger, by its `logLabel`.
    let pluginLoggers: [String: Logger]
    /// Each plugin type's `prepare`, started on the first request of one of its tenants.
    /// Keyed by the plugin's type (every request looks its plugin up here).
    let preparations = Mutex<[ObjectIdentifier: Task<Void, Never>]>([:])
    /// Signalled after every commit that wrote a completion event, so the delivery worker
    /// delivers it at once.
    public let outboxSignal = OutboxSignal()
    /// The order in which this database's hosts first served flow versions.
    let flowRegistry = FlowRegistry()
    /// How long a completion event's deliveries are retried.
    public static let deliveryWindow: TimeInterval = 24 * 3600

    /// A hosted tenant with its flows' engines, built once.
    struct Tenant: Sendable {
        let id: String
        let plugin: any OnboardingPlugin
        /// Flow ids in the plugin's order.
        let flowIDs: [String]
        /// The newest version of each flow, by flow id.
        let engines: [String: FlowEngine]
        /// Older versions still served, by flow id.
        let olderEngines: [String: [FlowEngine]]
        let validator: FieldValidator
        let webhooks: [Webhook]
        /// Its texts in every locale it serves.
        let copy: CopyBook
        /// The tenants file's experiments, in its order.
        var experiments: [Experiment] = []
        /// How its hosted pages look.
        var look: HostedLook

        func engine(_ flow: String) throws(FlowError) -> FlowEngine {
            guard let engine = engines[flow] else { throw .notFound("flow \(flow) of tenant \(id)") }
            return engine
        }
    }

    /// The server's ids: random UUIDs (version 4), lowercase.
    public static let randomID: @Sendable () -> String = { RandomUUID.make() }
    /// Session ids and plugins' ids: time-ordered UUIDs (version 7), lowercase, so the rows of
    /// sessions in progress cluster in the store's indexes.
    public static let timeOrderedID: @Sendable () -> String = { TimeOrderedID.make() }

    /// Hosts the tenants. A definition error (two tenants with one id, two flows with one id, a
    /// field id used twice in a flow, progress or edges naming unknown steps) stops the server at
    /// start-up rather than on some later request.
    ///
    /// - Parameters:
    ///   - clock: the time of every command (tests pass a clock they move by hand).
    ///   - newID: session ids and the ids plugins draw with `StepContext.newID()`.
    ///   - eventID: completion events' ids (`evt_` and a UUID by default).
    ///   - logger: the platform's own lines.
    ///   - pluginLogger: the Logger a plugin's lines are written with, made once per plugin from
    ///     its `logLabel`; by default `Logger(label:)`, so the lines read as when plugins logged
    ///     themselves (`… info TeePals: tenant=teepals [TeePals] age verified`).
    public init(
        tenants hosted: [HostedTenant], store: any SessionStore,
        clock: @escaping @Sendable () -> Date = { Date() },
        newID: @escaping @Sendable () -> String = Platform.timeOrderedID,
        eventID: @escaping @Sendable () -> String = { "evt_" + Platform.randomID() },
        logger: Logger = Logger(label: "platformd"),
        pluginLogger: (_ label: String) -> Logger = { Logger(label: $0) }
    ) {
        var tenants: [String: Tenant] = [:]
        var pluginLoggers: [String: Logger] = [:]
        let now = clock()
        for entry in hosted {
            let plugin = entry.plugin
            precondition(tenants[entry.id] == nil, "two tenants have the id \(entry.id)")
            let flows = plugin.flows
            precondition(Set(flows.map(\.id)).count == flows.count, "tenant \(entry.id) has two flows with one id")
            let context = StepContext(tenant: entry.id, displayName: plugin.defaultDisplayName, now: now)
            let older = plugin.olderFlows
            let problems =
                (flows + older).flatMap { $0.definitionProblems(context) }
                + older.compactMap { flow in
                    flows.contains { $0.id == flow.id } ? nil : "flow \(flow.id): an older version of a flow the plugin does not serve"
                }
            precondition(problems.isEmpty, "tenant \(entry.id): \(problems.joined(separator: "; "))")
            let newest = Dictionary(uniqueKeysWithValues: flows.map { ($0.id, FlowEngine(plugin: plugin, flow: $0, copy: entry.copy)) })
            let olderEngines = older.map { FlowEngine(plugin: plugin, flow: $0, copy: entry.copy) }
            for engine in olderEngines {
                let served = newest[engine.flow.id]
                precondition(
                    engine.fingerprint != served?.fingerprint || engine.version != served?.version,
                    "tenant \(entry.id): flow \(engine.flow.id) lists version \(engine.version) twice")
            }
            tenants[entry.id] = Tenant(
                id: entry.id, plugin: plugin, flowIDs: flows.map(\.id), engines: newest,
                olderEngines: Dictionary(grouping: olderEngines, by: \.flow.id),
                validator: plugin.validator, webhooks: entry.webhooks, copy: entry.copy, experiments: entry.experiments,
                look: entry.look)
            if pluginLoggers[plugin.logLabel] == nil {
                pluginLoggers[plugin.logLabel] = pluginLogger(plugin.logLabel)
            }
        }
        self.hosted = hosted
        self.tenants = tenants
        self.store = store
        self.clock = clock
        self.newID = newID
        self.eventID = eventID
        self.logger = logger
        self.pluginLoggers = pluginLoggers
    }

    /// Hosts each plugin as one tenant under its own id (tests, and the version 1 set-up).
    public convenience init(
        plugins: [any OnboardingPlugin], store: any SessionStore,
        clock: @escaping @Sendable () -> Date = { Date() },
        newID: @escaping @Sendable () -> String = Platform.randomID,
        logger: Logger = Logger(label: "platformd"),
        pluginLogger: (_ label: String) -> Logger = { Logger(label: $0) }
    ) {
        self.init(
            tenants: plugins.map { HostedTenant(id: $0.id, pluginName: $0.name, plugin: $0) }, store: store,
            clock: clock, newID: newID, logger: logger, pluginLogger: pluginLogger)
    }

    /// The tenants' ids, in configuration order.
    public var tenantIDs: [String] { hosted.map(\.id) }

    // MARK: - lookups

    /// The tenant. Its plugin's preparation starts on its first request and runs in the
    /// background; only the calls that need it (search) wait for it.
    func tenant(_ id: String) async throws(FlowError) -> Tenant {
        guard let tenant = tenants[id] else { throw unknownTenant(id) }
        _ = preparation(of: tenant.plugin)
        return tenant
    }

    /// -32002 for a tenant this server does not host, with the ids it does, so a client that
    /// wrote `"StatLocker"` for `"statlocker"` is told what to write.
    func unknownTenant(_ id: String) -> FlowError {
        .unknownTenant(id, hosted: tenantIDs)
    }

    /// The user a session belongs to, or nil when the tenant has no such session.
    func owner(tenant: String, sessionId: String) async -> String? {
        guard tenants[tenant] != nil else { return nil }
        return try? await store.session(tenant: tenant, key: .id(sessionId))?.userId
    }

    /// Waits until the plugin is prepared.
    func prepared(_ plugin: any OnboardingPlugin) async {
        await preparation(of: plugin).value
    }

    func preparation(of plugin: any OnboardingPlugin) -> Task<Void, Never> {
        let kind = ObjectIdentifier(type(of: plugin))
        return preparations.withLock { started in
            if let task = started[kind] { return task }
            let task = Task {
                // A thread of its own: loading may take seconds and must not hold a pool thread.
                await BlockingWork.run("platformd.plugin.prepare") { plugin.prepare() }
            }
            started[kind] = task
            return task
        }
    }

    /// Runs a store call, passing the domain's errors through; anything else the store throws is
    /// a defect unless the store says it is a passing condition (`StoreUnavailable`).
    func storing<T>(_ body: () async throws -> T) async throws(FlowError) -> T {
        do {
            return try await body()
        } catch let error as FlowError {
            throw error
        } catch {
            if let reason = store.unavailability(of: error) { throw .unavailable(reason) }
            throw .defect("store: \(error)")
        }
    }

    /// The store's `updateSession`, counting the committed change's events in the metrics: the
    /// events the engine produced for it, once, after the commit (a body the store runs again
    /// on a conflict counts only as its last run).
    func updateSession<Result: Sendable>(
        tenant: String, key: SessionKey, readAsAbsent: Bool = false,
        _ body: @escaping @Sendable (SessionState?) throws -> (SessionCommit?, Result)
    ) async throws -> Result {
        let committed = LastCommit()
        let result = try await store.updateSession(tenant: tenant, key: key, readAsAbsent: readAsAbsent) { state in
            let (commit, result) = try body(state)
            committed.commit.withLock { $0 = commit }
            return (commit, result)
        }
        if let commit = committed.commit.withLock({ $0 }) { PlatformMetrics.record(commit) }
        return result
    }

    /// What the last run of an update's body returned to commit.
    final class LastCommit: Sendable {
        let commit = Mutex<SessionCommit?>(nil)
    }

    /// Writes plugins' log lines. Called only after the store call that committed their command
    /// returned, so a refused or rolled-back command logs nothing.
    func write(_ lines: [PluginLogLine]) {
        for line in lines {
            line.write(to: pluginLoggers[line.plugin] ?? logger)
        }
    }

    // MARK: - methods

    public func info() -> PlatformInfo {
        PlatformInfo(
            version: Self.version, protocol: Self.protocolVersion,
            tenants: hosted.map { entry in
                PlatformInfo.Tenant(
                    tenant: entry.id, plugin: entry.pluginName, version: entry.plugin.version,
                    flows: tenants[entry.id]?.flowIDs ?? [])
            })
    }

    /// - Parameter locale: a BCP 47 tag (already normalised, ``LocaleTag/normalized(_:)``), kept
    ///   with the session; nil keeps the one it has.
    /// A hosted tenant's texts in every locale it serves (the base texts for an unknown tenant).
    public func copy(for tenant: String) -> CopyBook {
        tenants[tenant]?.copy ?? .base
    }

    /// How the tenant's hosted pages look; nil for a tenant not hosted.
    public func look(for tenant: String) -> HostedLook? {
        tenants[tenant]?.look
    }

    public func start(tenant: String, userId: String, flow: String, user: UserDetails?, locale: String? = nil) async throws(FlowError) -> SessionView {
        try await knowingVersions { () async throws(FlowError) in
            try await startPlaced(tenant: tenant, userId: userId, flow: flow, user: user, locale: locale)
        }
    }

    func startPlaced(tenant: String, userId: String, flow: String, user: UserDetails?, locale: String?) async throws(FlowError) -> SessionView {
        let registered = try await self.tenant(tenant)
        _ = try registered.engine(flow)
        if registered.experiments.contains(where: { $0.flow == flow }) {
            return try await startInExperiments(registered, userId: userId, flow: flow, user: user, locale: locale)
        }
        return try await startOn(registered, userId: userId, flow: flow, user: user, locale: locale)
    }

    /// `flow.start` on the flow itself (the newest version for a new session), or with an
    /// experiment's `enrolment`: a new session on the variant's flow and version, its assignment
    /// and exposure written with it.
    func startOn(
        _ registered: Tenant, userId: String, flow: String, user: UserDetails?, locale: String?, enrolment: StartTarget? = nil
    ) async throws(FlowError) -> SessionView {
        let tenant = registered.id
        let (state, engine, now, logs) = try await storing {
            try await updateSession(tenant: tenant, key: .user(userId: userId, flow: flow), readAsAbsent: enrolment?.readAsAbsent ?? false) {
                existing in
                let now = self.clock()
                // A returning user resumes on the version their session runs on (moved first when
                // that version is no longer served); a new one starts on the newest.
                let placed = try existing.map { state throws(FlowError) in try self.place(state, in: registered, now: now) }
                let fresh = placed == nil || placed?.state.status == .expired
                let engine: FlowEngine
                if fresh, let enrolment { engine = enrolment.engine } else { engine = try placed?.engine ?? registered.engine(flow) }
                var transition = engine.start(
                    placed?.state, tenant: tenant, userId: userId, user: user, locale: locale, now: now, newID: self.newID)
                var assignment: ExperimentAssignment?
                if fresh, let membership = enrolment?.membership {
                    // The exposure: this reply is the variant's first view.
                    transition.state.experiment = membership
                    transition.events.insert(FlowEvent(.exposed, at: now), at: 0)
                    assignment = enrolment?.assignment(of: transition.state, at: now)
                }
                let moved = placed?.moved == true
                let commit =
                    transition.changed || moved
                    ? SessionCommit(
                        state: transition.state, events: (placed?.events ?? []) + transition.events, assignment: assignment,
                        droppedAssignments: fresh ? enrolment?.dropping ?? [] : []) : nil
                return (commit, (transition.state, engine, now, transition.logs))
            }
        }
        write(logs)
        // The view is built after the commit, off the store's one writer: it reads only the state.
        return engine.view(state, now: now)
    }

    /// By user and flow, an experiment's flow answers the person's session on whichever variant's
    /// flow it is, as `flow.start` does (every door reads it the same way).
    public func get(tenant: String, key: SessionKey) async throws(FlowError) -> SessionView {
        guard case .user(let userId, let flow) = key else {
            return try await knowingVersions { () async throws(FlowError) in try await getPlaced(tenant: tenant, key: key) }
        }
        let flows = sessionFlows(tenant: tenant, flow: flow)
        for candidate in flows.dropLast() {
            do {
                return try await knowingVersions { () async throws(FlowError) in
                    try await getPlaced(tenant: tenant, key: .user(userId: userId, flow: candidate))
                }
            } catch .notFound {
                continue
            }
        }
        return try await knowingVersions { () async throws(FlowError) in
            try await getPlaced(tenant: tenant, key: .user(userId: userId, flow: flows.last ?? flow))
        }
    }

    func getPlaced(tenant: String, key: SessionKey) async throws(FlowError) -> SessionView {
        let registered = try await self.tenant(tenant)
        let state = try await storing { try await store.session(tenant: tenant, key: key) }
        guard let state else { throw .notFound("session") }
        let now = clock()
        switch try place(state, in: registered, now: now) {
        case .runs(let engine, let state):
            return engine.view(state, now: now)
        case .moves:
            // The first read after its version stopped being served moves it, once, for good.
            let (engine, moved) = try await storing {
                try await updateSession(tenant: tenant, key: .id(state.id)) { stored in
                    guard let stored else { throw FlowError.notFound("session") }
                    let placed = try self.place(stored, in: registered, now: now)
                    let commit = placed.moved ? SessionCommit(state: placed.state, events: placed.events) : nil
                    return (commit, (placed.engine, placed.state))
                }
            }
            return engine.view(moved, now: now)
        }
    }

    public func submit(tenant: String, sessionId: String, command: FlowEngine.Submit) async throws(FlowError) -> SessionView {
        try await knowingVersions { () async throws(FlowError) in try await submitPlaced(tenant: tenant, sessionId: sessionId, command: command) }
    }

    func submitPlaced(tenant: String, sessionId: String, command: FlowEngine.Submit) async throws(FlowError) -> SessionView {
        let registered = try await self.tenant(tenant)
        // A search value is checked inside the write transaction, so its provider must be ready
        // before it starts. Preparing is a one-time, cheap step (the gazetteer is memory-mapped),
        // so every submit of a plugin with search fields waits for it rather than first reading
        // the session to see whether its step has one.
        if !registered.plugin.searchProviders.isEmpty {
            await prepared(registered.plugin)
        }
        var workResult: JSONValue?
        while true {
            let given = workResult
            let outcome = try await storing {
                try await updateSession(tenant: tenant, key: .id(sessionId)) { state -> (SessionCommit?, SubmitOutcome) in
                    guard let state else { throw FlowError.notFound("session \(sessionId)") }
                    let now = self.clock()
                    let placed = try self.place(state, in: registered, now: now)
                    let engine = placed.engine
                    let submitted: FlowEngine.SubmitResult
                    do throws(FlowError) {
                        submitted = try engine.submit(placed.state, command, workResult: given, now: now, newID: self.newID)
                    } catch {
                        // Refused on the moved session: the move is kept all the same.
                        guard placed.moved else { throw error }
                        return (SessionCommit(state: placed.state, events: placed.events), .refused(error))
                    }
                    switch submitted {
                    case .applied(let transition):
                        let outbox = transition.changed ? self.outbox(for: transition, of: registered, at: now) : []
                        let commit =
                            transition.changed || placed.moved
                            ? SessionCommit(
                                state: transition.state, events: placed.events + transition.events, profile: transition.profile,
                                outbox: outbox)
                            : nil
                        return (
                            commit,
                            .applied(
                                transition.state, engine: engine, now: now, logs: transition.logs, queuedDeliveries: outbox.contains { !$0.webhooks.isEmpty })
                        )
                    case .needsWork(let work):
                        return (nil, .work(work))
                    }
                }
            }
            switch outcome {
            case .applied(let state, let engine, let now, let logs, let queuedDeliveries):
                // The transaction has committed: only now are the plugin's lines true, and its
                // events ready to deliver.
                write(logs)
                if queuedDeliveries { outboxSignal.ring() }
                // Built after the commit, off the store's one writer (every write waits for it).
                return engine.view(state, now: now)
            case .refused(let error):
                throw error
            case .work(let work):
                // Runs between two transactions, so a slow analysis never holds the write lock.
                workResult = await run(work)
            }
        }
    }

    enum SubmitOutcome: Sendable {
        /// The state the command left, to render once committed.
        case applied(SessionState, engine: FlowEngine, now: Date, logs: [PluginLogLine], queuedDeliveries: Bool)
        /// The command was refused after its session was moved onto a newer version (the move committed).
        case refused(FlowError)
        case work(StepWork)
    }

    /// Runs server work bounded by its timeout; any failure gives the work's fallback.
    func run(_ work: StepWork) async -> JSONValue {
        switch await BoundedWork.run(work.perform, timeout: work.timeout) {
        case .success(let value):
            return value
        case .failure(let reason):
            logger.warning("\(work.name) fell back: \(reason)")
            return work.fallback(reason)
        }
    }

    public func back(tenant: String, sessionId: String, revision: Int) async throws(FlowError) -> SessionView {
        try await move(tenant: tenant, sessionId: sessionId) { engine, state, now throws(FlowError) in
            try engine.back(state, revision: revision, now: now)
        }
    }

    public func goto(tenant: String, sessionId: String, stepId: String, revision: Int) async throws(FlowError) -> SessionView {
        try await move(tenant: tenant, sessionId: sessionId) { engine, state, now throws(FlowError) in
            try engine.goto(state, stepId: stepId, revision: revision, now: now)
        }
    }

    private func move(
        tenant: String, sessionId: String,
        _ command: @escaping @Sendable (FlowEngine, SessionState, Date) throws(FlowError) -> FlowEngine.Transition
    ) async throws(FlowError) -> SessionView {
        try await knowingVersions { () async throws(FlowError) in try await movePlaced(tenant: tenant, sessionId: sessionId, command) }
    }

    private func movePlaced(
        tenant: String, sessionId: String,
        _ command: @escaping @Sendable (FlowEngine, SessionState, Date) throws(FlowError) -> FlowEngine.Transition
    ) async throws(FlowError) -> SessionView {
        let registered = try await self.tenant(tenant)
        let outcome = try await storing {
            try await updateSession(tenant: tenant, key: .id(sessionId)) { state -> (SessionCommit?, Result<(SessionView, [PluginLogLine]), FlowError>) in
                guard let state else { throw FlowError.notFound("session \(sessionId)") }
                let now = self.clock()
                let placed = try self.place(state, in: registered, now: now)
                let transition: FlowEngine.Transition
                do throws(FlowError) {
                    transition = try command(placed.engine, placed.state, now)
                } catch {
                    // Refused on the moved session: the move is kept all the same.
                    guard placed.moved else { throw error }
                    return (SessionCommit(state: placed.state, events: placed.events), .failure(error))
                }
                return (
                    SessionCommit(state: transition.state, events: placed.events + transition.events),
                    .success((placed.engine.view(transition.state, now: now), transition.logs))
                )
            }
        }
        let (view, logs) = try outcome.get()
        write(logs)
        return view
    }

    public func search(tenant: String, sessionId: String, field: String, query: String, limit: Int) async throws(FlowError) -> SearchResults {
        let plugin = try await self.tenant(tenant).plugin
        await prepared(plugin)
        guard let session = try await storing({ try await store.session(tenant: tenant, key: .id(sessionId)) }) else {
            throw .notFound("session \(sessionId)")
        }
        guard let provider = plugin.searchProviders[field] else {
            throw .invalidArgument(name: "field", reason: "\(field) is not a search field of \(tenant)")
        }
        // In the session's language, as its views are: the provider's labels, the host's message.
        let copy = copy(for: tenant)
        let locale = copy.served(session.locale.isEmpty ? nil : session.locale)
        let results = provider.search(query, limit: limit, locale: locale)
        return SearchResults(results: results, message: results.isEmpty ? copy.text(provider.emptyMessage, in: locale) : nil)
    }

    public func describe(tenant: String, flow: String) throws(FlowError) -> FlowDescription {
        guard let registered = tenants[tenant] else { throw unknownTenant(tenant) }
        let engine = try registered.engine(flow)
        var description = FlowDiagram(flow: engine.flow, plugin: engine.plugin).description
        description.tenant = tenant
        description.version = engine.version
        description.fingerprint = engine.fingerprint
        return description
    }

    public func profile(tenant: String, userId: String) async throws(FlowError) -> Profile {
        _ = try await self.tenant(tenant)
        guard let profile = try await storing({ try await store.profile(tenant: tenant, userId: userId) }) else {
            throw .notFound("profile of user \(userId): onboarding is not complete")
        }
        return profile
    }

    public func updateProfile(tenant: String, userId: String, values: [String: JSONValue]) async throws(FlowError) -> Profile {
        let registered = try await self.tenant(tenant)
        let plugin = registered.plugin
        let validator = registered.validator
        let now = clock()
        let (updated, logs, queuedDeliveries) = try await storing {
            try await store.updateProfile(tenant: tenant, userId: userId, at: now) { profile -> (ProfileCommit?, (Profile, [PluginLogLine], Bool)) in
                guard var profile else { throw FlowError.notFound("profile of user \(userId): onboarding is not complete") }
                let (clean, errors) = validator.checkProfileUpdate(
                    values, editable: plugin.editableFields, profile: profile, label: { Self.label(of: $0, in: registered, now: now) })
                guard errors.isEmpty else { throw FlowError.validationFailed(errors, session: nil) }
                let context = StepContext(
                    tenant: tenant, userId: userId, displayName: plugin.defaultDisplayName, now: now,
                    newID: self.newID, logLabel: plugin.logLabel)
                let before = profile.records
                do throws(ValidationFailure) {
                    profile.records = try plugin.updatedRecords(profile, with: clean, in: context)
                } catch {
                    throw FlowError.validationFailed(error.errors, session: nil)
                }
                // An update that changes nothing reports nothing.
                let outbox =
                    profile.records == before
                    ? []
                    : [
                        self.event(
                            .profileUpdated, of: registered, userId: userId, sessionId: nil, at: now,
                            data: ["records": .object(profile.records)])
                    ]
                return (ProfileCommit(profile: profile, outbox: outbox), (profile, context.logLines, outbox.contains { !$0.webhooks.isEmpty }))
            }
        }
        write(logs)
        if queuedDeliveries { outboxSignal.ring() }
        return updated
    }

    /// - Parameter locale: the language of the decision's copy; nil: the locale of the user's
    ///   session of the tenant's first flow (read only when the tenant serves more than one).
    public func checkGate(tenant: String, userId: String, action: String, locale: String? = nil) async throws(FlowError) -> GateDecision {
        let registered = try await self.tenant(tenant)
        let decision = try await decideGate(registered.plugin, tenant: tenant, userId: userId, action: action)
        let copy = registered.copy
        guard decision.allowed == false || decision.title != nil, copy.locales.count > 1 else { return decision }
        var wanted = locale
        if wanted == nil, let flow = registered.flowIDs.first {
            wanted = try await storing { try await store.session(tenant: tenant, key: .user(userId: userId, flow: flow)) }?.locale
        }
        return copy.localized(decision, in: copy.served(wanted))
    }

    private func decideGate(_ plugin: any OnboardingPlugin, tenant: String, userId: String, action: String) async throws(FlowError) -> GateDecision {
        let profile = try await storing { try await store.profile(tenant: tenant, userId: userId) }
        return plugin.gateDecision(for: action, tenant: tenant, userId: userId, profile: profile)
    }

    public func funnel(tenant: String, flow: String, since: Date?, until: Date?, version: String? = nil) async throws(FlowError) -> Funnel {
        let engine = try await self.tenant(tenant).engine(flow)
        let renamed = engine.flow.renamedStepsByVersion
        let figures = try await storing {
            try await store.funnel(tenant: tenant, flow: flow, since: since, until: until, version: version, renamedSteps: renamed)
        }
        return figures.funnel(stepOrder: engine.flow.steps.map(\.id))
    }

    /// `events.list`: the tenant's completion events after the position `after` (0: the start).
    public func events(tenant: String, after: Int64, limit: Int) async throws(FlowError) -> EventsPage {
        _ = try await self.tenant(tenant)
        let entries = try await storing { try await store.outbox(tenant: tenant, after: after, limit: limit) }
        return EventsPage(events: entries.map(\.event), next: EventCursor.string(entries.last?.sequence ?? after))
    }

    /// The completion events a transition reports: a completion (with the records it wrote) or
    /// a rejection (its code, nothing of the person).
    func outbox(for transition: FlowEngine.Transition, of tenant: Tenant, at now: Date) -> [OutboxEvent] {
        let state = transition.state
        var outbox: [OutboxEvent] = []
        for happened in transition.events {
            switch happened.kind {
            case .completed:
                outbox.append(
                    event(
                        .sessionCompleted, of: tenant, userId: state.userId, sessionId: state.id, at: now,
                        data: withExperiment(["records": .object(transition.profile?.records ?? [:]), "flowVersion": .string(state.flowVersion)], state)))
            case .rejected:
                outbox.append(
                    event(
                        .sessionRejected, of: tenant, userId: state.userId, sessionId: state.id, at: now,
                        data: withExperiment(["code": .string(state.rejection?.code ?? "rejected")], state)))
            default:
                break
            }
        }
        return outbox
    }

    /// A completion event's data, with the session's experiment and variant when it is in one.
    func withExperiment(_ data: [String: JSONValue], _ state: SessionState) -> JSONValue {
        var data = data
        if let experiment = state.experiment { data["experiment"] = ["id": .string(experiment.id), "variant": .string(experiment.variant)] }
        return .object(data)
    }

    /// An event with a new id, for the tenant's webhooks that take its type.
    func event(
        _ type: PlatformEventType, of tenant: Tenant, userId: String, sessionId: String?, at now: Date, data: JSONValue
    ) -> OutboxEvent {
        OutboxEvent(
            event: PlatformEvent(
                id: eventID(), type: type, tenant: tenant.id, userId: userId, sessionId: sessionId,
                occurredAt: now, data: data),
            webhooks: tenant.webhooks.filter { $0.takes(type) }.map(\.url),
            deliverUntil: now.addingTimeInterval(Self.deliveryWindow))
    }

    public func close() async throws {
        try await store.close()
    }

    /// Why the store cannot serve requests now, or nil when it answers within `patience`
    /// (readiness: a load balancer stops sending requests a host cannot answer).
    public func storeUnavailability(patience: Duration = .seconds(2)) async -> String? {
        let store = self.store
        return await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await store.ping()
                    return nil
                } catch {
                    return store.unavailability(of: error) ?? "the store failed: \(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: patience)
                return "the store did not answer within \(patience)"
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }

    /// A field's label as its flow shows it, for messages about keys that are not editable.
    static func label(of field: String, in tenant: Tenant, now: Date) -> String? {
        let plugin = tenant.plugin
        let context = StepContext(tenant: plugin.id, displayName: plugin.defaultDisplayName, now: now)
        for engine in tenant.engines.values {
            for step in engine.flow.steps {
                if let spec = step.fields(in: context).first(where: { $0.id == field }) { return spec.label }
            }
        }
        return nil
    }
}
