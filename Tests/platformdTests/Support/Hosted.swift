import PlatformCore
import PlatformTesting
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
    static func complete(on server: PlatformdProcess, userId: String, among tenants: [String] = Hosted.tenants) async throws -> (tenant: String, view: JSONValue) {
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
