import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import SQLiteStore
import Synchronization

/// A clock tests move by hand, so timings in events and ages are exact.
public final class TestClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_795_000_000)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(seconds: Double) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}

/// Ids `id-1`, `id-2`, … in the order they are drawn: what a test passes as `newID` to the
/// platform or the engine, so that session and record ids are known in advance.
public final class SequentialIDs: Sendable {
    private let issued = Mutex(0)

    public init() {}

    public func next() -> String {
        issued.withLock { count in
            count += 1
            return "id-\(count)"
        }
    }
}

/// Accessors tests read replies with. Every reply a test sees is decoded into the wire types
/// (`PlatformProtocol`), so a reply that drifts from them fails the test that reads it.
extension SessionView: CustomStringConvertible {
    /// The view as the client received it.
    public var json: JSONValue { (try? JSONValue(encoding: self)) ?? .null }
    public var stepId: String? { step?.id }
    public var title: String? { step?.title }
    public var progressLabel: String? { progress.label }
    public var progressIndex: Int? { progress.index }
    public var actions: [String] { step?.actions.map(\.id) ?? [] }
    public var stepErrors: [FieldError] { step?.errors ?? [] }

    /// The FieldView with this id on the current step, as JSON.
    public func field(_ id: String) -> JSONValue? {
        step?.field(id).flatMap { try? JSONValue(encoding: $0) }
    }

    /// The saved answer shown for a field.
    public func value(_ id: String) -> JSONValue? {
        step?.field(id)?.value
    }

    public var description: String { json.serialized() }

    /// Decodes a reply; a reply that is not a SessionView fails the test here.
    public init(_ reply: JSONValue) throws {
        self = try reply.decode(SessionView.self)
    }
}

/// Wire types read as JSON, for tests that look at members by name.
public protocol JSONReadable: Encodable {}
extension JSONReadable {
    public subscript(key: String) -> JSONValue? {
        (try? JSONValue(encoding: self))?[key]
    }
}
extension StepView: JSONReadable {}
extension CompletionView: JSONReadable {}
extension Rejection: JSONReadable {}
extension FieldView: JSONReadable {}

/// Drives a plugin's flows through the contract's method table over a store (in memory by default),
/// so plugin tests read like the seed's checklist.
public struct FlowDriver: Sendable {
    public let platform: Platform
    public let tenant: String
    public let clock: TestClock
    let methods: [String: RPCServer.Method]

    /// - Parameters:
    ///   - newID: the ids of sessions and of `StepContext.newID()`; by default the server's (UUIDs).
    ///   - logger: the platform's own lines (a step work's fallback among them); by default the
    ///     server's, `Logger(label: "platformd")`.
    ///   - pluginLogger: the Logger the plugin's lines are written with once their command has
    ///     committed (tests pass one that records them); by default the server's, `Logger(label:)`.
    /// The tenant's texts in every locale (its plugin's catalogs and `copy` overrides).
    public let copy: CopyBook

    public init(
        plugin: any OnboardingPlugin, store: (any SessionStore)? = nil, clock: TestClock = TestClock(),
        newID: @escaping @Sendable () -> String = Platform.randomID,
        webhooks: [Webhook] = [], copy: CopyBook? = nil, experiments: [Experiment] = [],
        logger: Logger = Logger(label: "platformd"),
        pluginLogger: (_ label: String) -> Logger = { Logger(label: $0) }
    ) async throws {
        let hosted = HostedTenant(
            id: plugin.id, pluginName: plugin.name, plugin: plugin, webhooks: webhooks, copy: copy, experiments: experiments)
        self.copy = hosted.copy
        // Opened (and migrated) on a thread of its own, as the server's is: a test's many drivers
        // would otherwise hold the cooperative pool the other tests run on.
        let opened: any SessionStore
        if let store { opened = store } else { opened = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath) }
        self.platform = Platform(
            tenants: [hosted],
            store: opened,
            clock: { clock.now }, newID: newID, logger: logger, pluginLogger: pluginLogger)
        self.tenant = plugin.id
        self.clock = clock
        self.methods = platform.methods
    }

    /// Calls a method with these params (the tenant is added); an RPCError is thrown as is.
    public func call(_ method: String, _ params: [String: JSONValue] = [:]) async throws -> JSONValue {
        var params = params
        if params["tenant"] == nil { params["tenant"] = .string(tenant) }
        guard let handler = methods[method] else { throw RPCError.methodNotFound(method) }
        do {
            let result = try await handler(RPCParams(params))
            try Self.conform(SchemaValidator.served.problems(result: result, of: method), method)
            return result
        } catch let error as RPCError {
            try Self.conform(SchemaValidator.served.problems(error: error.object.wireJSON), method)
            throw error
        }
    }

    /// A reply that does not validate against `rpc.discover`'s schema fails the test that read it.
    static func conform(_ problems: [String], _ method: String) throws {
        guard problems.isEmpty else { throw SchemaViolation(method: method, problems: problems) }
    }

    /// Calls a method that must fail, and returns its error.
    public func error(_ method: String, _ params: [String: JSONValue] = [:]) async -> RPCError? {
        do {
            _ = try await call(method, params)
            return nil
        } catch let error as RPCError {
            return error
        } catch {
            return RPCError.internalError("\(error)")
        }
    }

    public func start(_ userId: String, user: UserDetails? = nil, flow: String = "onboarding", locale: String? = nil) async throws -> SessionView {
        var params: [String: JSONValue] = ["userId": .string(userId), "flow": .string(flow)]
        if let locale { params["locale"] = .string(locale) }
        if let user { params["user"] = try JSONValue(encoding: user) }
        return try SessionView(try await call("flow.start", params))
    }

    public func get(_ view: SessionView) async throws -> SessionView {
        try SessionView(try await call("flow.get", ["sessionId": .string(view.sessionId)]))
    }

    public func submitParams(_ view: SessionView, _ values: [String: JSONValue], action: String) -> [String: JSONValue] {
        [
            "sessionId": .string(view.sessionId), "stepId": .string(view.stepId ?? ""),
            "revision": .int(Int64(view.revision)), "action": .string(action), "values": .object(values),
        ]
    }

    public func submit(_ view: SessionView, _ values: [String: JSONValue] = [:], action: String = "continue") async throws -> SessionView {
        try SessionView(try await call("flow.submit", submitParams(view, values, action: action)))
    }

    /// Submits values that must be refused; returns the error.
    public func refuse(_ view: SessionView, _ values: [String: JSONValue] = [:], action: String = "continue") async -> RPCError? {
        await error("flow.submit", submitParams(view, values, action: action))
    }

    public func back(_ view: SessionView) async throws -> SessionView {
        try SessionView(try await call("flow.back", ["sessionId": .string(view.sessionId), "revision": .int(Int64(view.revision))]))
    }

    public func goto(_ view: SessionView, _ stepId: String) async throws -> SessionView {
        try SessionView(
            try await call(
                "flow.goto",
                [
                    "sessionId": .string(view.sessionId), "stepId": .string(stepId), "revision": .int(Int64(view.revision)),
                ]))
    }

    public func profile(_ userId: String) async throws -> JSONValue {
        try await call("profile.get", ["userId": .string(userId)])
    }

    /// `profile.update`: changes the fields the plugin lets a user edit after onboarding.
    public func updateProfile(_ userId: String, _ values: [String: JSONValue]) async throws -> Profile {
        try await call("profile.update", ["userId": .string(userId), "values": .object(values)]).decode(Profile.self)
    }

    /// `gate.check`'s reply as JSON.
    public func gate(_ userId: String, _ action: String) async throws -> JSONValue {
        try await call("gate.check", ["userId": .string(userId), "action": .string(action)])
    }

    /// `gate.check`'s reply decoded: `allowed`, the blocking `gate`, its copy and requirements.
    public func checkGate(_ userId: String, _ action: String) async throws -> GateDecision {
        try await gate(userId, action).decode(GateDecision.self)
    }

    /// Submits each step's values in turn, starting from `view`, and returns the last view.
    public func walk(_ view: SessionView, _ steps: [[String: JSONValue]]) async throws -> SessionView {
        var view = view
        for values in steps { view = try await submit(view, values) }
        return view
    }

    /// Submits, on each step from `view` on, that step's values in `answers` (none for a step not
    /// in it), until the session stands on `step`; returns that view. Throws `WalkFailure` when
    /// the session ends, stays put (a step sent back with errors) or takes more than `maxSteps`
    /// submits without reaching it.
    public func walk(
        _ view: SessionView, to step: String, answers: [String: [String: JSONValue]], maxSteps: Int = 100
    ) async throws -> SessionView {
        var view = view
        var submits = 0
        while view.stepId != step {
            guard view.status == .active || view.status == .deferred, let current = view.stepId else {
                throw WalkFailure(target: step, reason: "the session is \(view.status.rawValue)", view: view)
            }
            guard submits < maxSteps else {
                throw WalkFailure(target: step, reason: "not reached after \(maxSteps) submits", view: view)
            }
            let next = try await submit(view, answers[current] ?? [:])
            if next.stepId == current && !next.stepErrors.isEmpty {
                throw WalkFailure(target: step, reason: "\(current) sent back with \(next.stepErrors)", view: next)
            }
            view = next
            submits += 1
        }
        return view
    }

    /// Starts a session for `userId` and walks it to `step` (see `walk(_:to:answers:maxSteps:)`).
    public func walk(
        _ userId: String, user: UserDetails? = nil, flow: String = "onboarding", to step: String,
        answers: [String: [String: JSONValue]]
    ) async throws -> SessionView {
        try await walk(try await start(userId, user: user, flow: flow), to: step, answers: answers)
    }
}

extension RPCErrorObject {
    /// The error object as a client receives it.
    public var wireJSON: JSONValue { (try? JSONValue(encoding: self)) ?? .null }
}

/// A reply that broke the published schema.
public struct SchemaViolation: Error, CustomStringConvertible {
    public var method: String
    public var problems: [String]
    public var description: String { "\(method) reply breaks rpc.discover's schema: \(problems.joined(separator: "; "))" }
}

/// A walk that did not reach its step.
public struct WalkFailure: Error, CustomStringConvertible {
    public var target: String
    public var reason: String
    public var view: SessionView
    public var description: String { "walking to \(target): \(reason); at \(view)" }
}
