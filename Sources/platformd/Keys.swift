import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore

/// `platformd keys create|list|revoke`: the keys in the database. Secrets are printed once, at
/// creation, and stored only as hashes.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list and revoke API keys (tenant keys and admin keys).",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key and print its secret, once, as one line on stdout.",
            discussion: "The secret is never shown again: store it where the app's backend reads its secrets.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var tenantOptions: TenantOptions
        @Option(help: "The tenant the key acts for.") var tenant: String?
        @Flag(help: "An admin key: every method, every tenant.") var admin = false
        @Option(help: "A label to recognise the key by in `keys list`.") var name: String?

        func validate() throws {
            guard admin != (tenant != nil) else { throw ValidationError("give either --tenant TENANT or --admin") }
            if let tenant, !TenantsConfiguration.isValidID(tenant) {
                throw ValidationError("--tenant must be 1-63 characters of a-z, 0-9 and -")
            }
        }

        func run() async throws {
            let logger = store.bootstrapLogging()
            if let tenant { try tenantOptions.requireDefined(tenant) }
            let database = try await store.openStore(logger: logger)
            let (key, secret) = try await Credentials(store: database).createKey(
                tenant: tenant, name: name ?? (tenant.map { "\($0) key" } ?? "admin key"))
            try await database.close()
            logger.info("key created", metadata: ["key": "\(key.id)", "tenant": "\(key.tenant ?? "admin")"])
            StandardOutput.writeLine(secret)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys: id, tenant or admin, name, created, last used, revoked. Never a secret.")

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let logger = store.bootstrapLogging()
            let database = try await store.openStore(logger: logger)
            let keys = try await Credentials(store: database).keys()
            try await database.close()
            let rows = keys.map { key in
                [
                    key.id, key.tenant ?? "admin", key.name, Timestamp.string(key.createdAt),
                    key.lastUsedAt.map(Timestamp.string) ?? "-", key.revokedAt.map { "revoked " + Timestamp.string($0) } ?? "active",
                ]
            }
            for line in FunnelTable.table(["id", "tenant", "name", "created", "last used", "state"], rows) {
                StandardOutput.writeLine(line)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key: connections logged in with it get -32001 from their next request on.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The key's id, as `keys list` shows it.") var id: String

        func run() async throws {
            let logger = store.bootstrapLogging()
            let database = try await store.openStore(logger: logger)
            let revoked = try await Credentials(store: database).revoke(keyID: id)
            try await database.close()
            guard revoked else { throw CommandRefusal.exit("no active key has the id \(id)") }
            logger.info("key revoked", metadata: ["key": "\(id)"])
        }
    }
}
