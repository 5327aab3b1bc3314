import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore

@testable import PlatformTransports
@testable import platformd

/// The tenants platformd's tests drive, read from the host's registry
/// (`RegisteredPlugins.registrations`): no platformd test names a plugin or a tenant, so adding
/// or removing a plugin edits no test here. What a plugin does in particular is tested in its
/// own target (`Tests/<Plugin>Tests`).
enum Hosted {
    static var registrations: [PluginRegistration] { RegisteredPlugins.registrations }

    /// Every default tenant, in registration order.
    static var tenants: [String] { registrations.map(\.defaultTenant) }

    /// A tenant, for tests where any will do: the first registered.
    static var tenant: String { tenants[0] }

    /// A tenant other than `tenant`: the second registered one (tests that need two skip with a
    /// printed reason when the registry holds one plugin).
    static var otherTenant: String? { tenants.dropFirst().first }

    /// The plugin name tenants files write for `tenant` (`plugin`).
    static var plugin: String { registrations[0].name }

    /// The first tenant, in registration order, whose flow `GenericAnswers` completes: walks
    /// `userId` there and returns the tenant and the completed view. Throws when none completes.
    static func complete(on server: PlatformdProcess, userId: String, among tenants: [String] = Hosted.tenants) async throws -> (
        tenant: String, view: JSONValue
    ) {
        var failures: [String] = []
        for tenant in tenants {
            do {
                return (tenant, try await server.complete(tenant: tenant, userId: userId))
            } catch let failure as PlatformdProcess.WalkFailure {
                failures.append(failure.description)
            }
        }
        throw PlatformdProcess.Failure(description: "no tenant's flow completes with generic answers: \(failures.joined(separator: "; "))")
    }
}

extension Hosted {
    /// The step a new session of `tenant` stands on, read from a fresh in-memory server.
    static func firstStep(of tenant: String) async throws -> String {
        try await PlatformdProcess.withServer { server in
            let started = try await server.call("flow.start", ["tenant": .string(tenant), "userId": "first-step"])
            guard let step = started["result"]?["step"]?["id"]?.stringValue else {
                throw PlatformdProcess.Failure(description: "flow.start on \(tenant): \(started.serialized())")
            }
            return step
        }
    }
}

extension MCPClient {
    /// Answers the current step through `onboarding_answer` with `GenericAnswers` (search fields
    /// through `onboarding_search`), trying the next candidates while the server refuses; returns
    /// the new SessionView.
    func answerGenerically() async throws -> JSONValue {
        var answers = GenericAnswers()
        while true {
            let view = try await self.view("onboarding_status")
            let values = try await answers.values(for: view["step"]?["fields"]?.arrayValue ?? []) { field in
                for query in ["Lon", "New", "San", "a"] {
                    let found = try await self.call("onboarding_search", ["field": .string(field), "query": .string(query)])
                    if let first = found["structuredContent"]?["results"]?[0]?["value"] { return first }
                }
                return nil
            }
            let result = try await call("onboarding_answer", ["values": .object(values)])
            if result["isError"] != true, let next = result["structuredContent"] { return next }
            let errors = result["structuredContent"]?["errors"]?.arrayValue ?? []
            guard answers.retry(after: errors) else {
                throw PlatformdProcess.Failure(description: "onboarding_answer refused: \(MCPClient.text(result))")
            }
        }
    }
}
