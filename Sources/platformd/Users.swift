import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore

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

        func validate() throws { try Users.validate(user: user) }

        func run() async throws {
            try tenantOptions.requireDefined(tenant)
            let exported = try await store.withPlatform(tenantOptions) { platform in
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

        func validate() throws { try Users.validate(user: user) }

        func run() async throws {
            try tenantOptions.requireDefined(tenant)
            let erased = try await store.withPlatform(tenantOptions) { platform in
                try await platform.eraseUser(tenant: tenant, userId: user)
            }
            StandardOutput.writeLine(try JSONValue(encoding: erased).serialized())
        }
    }

    /// The user id as the RPC methods take it: 1-256 characters with no control character.
    static func validate(user: String) throws {
        if let refusal = IDBytes.refusal(user) { throw ValidationError("the user id \(refusal)") }
        guard !user.trimmingCharacters(in: .whitespaces).isEmpty, user.count <= 256 else {
            throw ValidationError("the user id must be 1-256 characters, not blank")
        }
    }
}
