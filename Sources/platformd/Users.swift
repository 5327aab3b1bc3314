import ArgumentParser
import Foundation
import PlatformCore

/// `platformd users`: a person's data from the command line (`user.export` and `user.erase`).
struct Users: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export or erase everything held about one user of a tenant.",
        subcommands: [Export.self, Erase.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print everything the database holds about a user of a tenant, as the JSON of user.export.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var tenantOptions: TenantOptions
        @Argument(help: "The tenant, e.g. teepals.") var tenant: String
        @Argument(help: "The user's id in that tenant.") var user: String

        func run() async throws {
            let exported = try await Users.run(store, tenantOptions, tenant) { platform throws(FlowError) in
                try await platform.exportUser(tenant: tenant, userId: user)
            }
            StandardOutput.writeLine(try JSONValue(encoding: exported).serialized())
        }
    }

    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase every session, answer, profile, record and funnel event of a user of a tenant.",
            discussion: """
                In one transaction, with a user.erased event for the tenant's webhooks and events.list; pending \
                deliveries about the user are cancelled and their payloads deleted. Prints the counts as the JSON of \
                user.erase. Erasing a user the database does not know prints zeros.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var tenantOptions: TenantOptions
        @Argument(help: "The tenant, e.g. teepals.") var tenant: String
        @Argument(help: "The user's id in that tenant.") var user: String

        func run() async throws {
            let erased = try await Users.run(store, tenantOptions, tenant) { platform throws(FlowError) in
                try await platform.eraseUser(tenant: tenant, userId: user)
            }
            StandardOutput.writeLine(try JSONValue(encoding: erased).serialized())
        }
    }

    /// Opens the database and the tenants, runs `body`, closes; a refusal is one line and exit 64.
    static func run<T: Sendable>(
        _ store: StoreOptions, _ tenantOptions: TenantOptions, _ tenant: String, _ body: (Platform) async throws(FlowError) -> T
    ) async throws -> T {
        let logger = store.bootstrapLogging()
        try tenantOptions.requireDefined(tenant)
        let (platform, _) = try await store.openPlatform(tenants: tenantOptions.load(), logger: logger)
        let result: Result<T, FlowError>
        do throws(FlowError) {
            result = .success(try await body(platform))
        } catch {
            result = .failure(error)
        }
        try await platform.close()
        switch result {
        case .success(let value): return value
        case .failure(let error): throw CommandRefusal.exit(RPCError(error).message)
        }
    }
}
