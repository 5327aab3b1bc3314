import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import PostgresStore
import SQLiteStore

@main
struct Platformd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "platformd",
        abstract: "Serves the onboarding flows of the registered app plugins: JSON-RPC 2.0 over stdio, sockets and HTTP, hosted pages and a dashboard.",
        discussion: """
            `platformd serve` (the default command) answers on stdio; add --unix PATH or --tcp [HOST:]PORT \
            for sockets, and --http [HOST:]PORT for HTTP: POST /rpc, a WebSocket on GET /rpc, remote MCP on /mcp, \
            each tenant's hosted flow at /flow/TENANT/, the operators' dashboard at /admin/, /health/live, \
            /health/ready and /metrics. --db PATH chooses the SQLite database (./\(StoreOptions.defaultPath) in the \
            directory the server starts in unless given; --db :memory: keeps nothing); --db postgres://USER:PASSWORD@HOST:PORT/DATABASE \
            a PostgreSQL database that several hosts may share. See `platformd serve --help` and Docs/.
            """,
        version: Platform.version,
        subcommands: [
            Serve.self, MCP.self, Info.self, Describe.self, Funnel.self, Flows.self, Users.self, Sessions.self, Backup.self, Keys.self, Events.self,
            Copy.self, Bench.self, Scaffold.self, Experiments.self,
        ],
        defaultSubcommand: Serve.self
    )

    static func main() async {
        do {
            var command = try parseAsRoot()
            // Before anything uses NIO's singletons: the count is read once, when they are made.
            if let serve = command as? Serve,
                let loops = serve.eventLoopCount(environment: ProcessInfo.processInfo.environment, cores: System.coreCount)
            {
                NIOSingletons.groupLoopCountSuggestion = loops
            }
            if let serve = command as? Serve, PostgresSessionStore.isURL(serve.store.db) {
                // On PostgreSQL every store call is I/O on NIO's event loops: running the tasks
                // there too saves a thread hop each way (two hosts x 32 connections: ~8 % more
                // requests/s, ~40 us less CPU a request). On SQLite, whose calls run on threads of
                // their own, it cost ~8 %: that path keeps Swift's own pool.
                NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// Options every subcommand that opens the database shares.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "SQLite database file (serve and mcp create and migrate it on first use; every other command needs it to exist, exit 66 otherwise; a directory or a file that cannot be opened is exit 66 too, one that is not a SQLite database 65); ':memory:' for a throwaway run; or postgres://USER:PASSWORD@HOST:PORT/DATABASE (postgresql:// too) for a PostgreSQL database several hosts share.",
            valueName: "path|url"))
    var db: String = StoreOptions.defaultPath

    @Option(name: .long, help: "With a PostgreSQL --db: the most connections this process opens to the server.")
    var dbPoolSize: Int = 8

    /// Found where the server was started, so a newcomer sees it next to their checkout.
    static let defaultPath = "platformd.sqlite"

    @Option(name: .long, help: "Log level on stderr.")
    var logLevel: Logger.Level = .info

    func bootstrapLogging() -> Logger {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "platformd")
    }

    /// Exit code when the database cannot be reached at start-up (EX_UNAVAILABLE).
    static let unreachableExitCode: Int32 = 69

    /// Exit code when a command that reads a database is given a SQLite path that does not exist
    /// (EX_NOINPUT).
    static let missingDatabaseExitCode: Int32 = 66

    /// Exit code when the SQLite file at `--db` is not a database, or a damaged one (EX_DATAERR).
    static let damagedDatabaseExitCode: Int32 = 65

    /// How a command treats a SQLite path that does not exist yet.
    enum Access {
        /// `serve` and `mcp`: created and migrated on first use.
        case createIfMissing
        /// Every other command: refused (exit 66), so a mistyped path is not taken for an empty
        /// database and answered with zeros.
        case existingOnly
        /// A report that must leave the file as it found it (`flows check`): as `existingOnly`,
        /// and a SQLite file is opened read-only, unmigrated.
        case readOnly
    }

    /// The one place `--db` is opened: a SQLite file (or memory), or a PostgreSQL URL. A
    /// PostgreSQL server that cannot be reached (or refuses the login) ends the process with exit
    /// code 69 and one stderr line saying where and why; with `.existingOnly`, a SQLite file that
    /// does not exist ends it with exit code 66 and one line naming the path, as does a path that
    /// is a directory or a file that cannot be opened; a file that is not a SQLite database (or a
    /// damaged one) ends it with exit code 65.
    ///
    /// `abandonWait` (a SQLite file): asked while the open waits for another process's write
    /// lock; true ends it with `SQLiteSessionStore.LockWaitAbandoned`.
    func openStore(
        logger: Logger, access: Access = .existingOnly, abandonWait: @escaping @Sendable () -> Bool = { false }
    ) async throws -> any PlatformStore {
        guard PostgresSessionStore.isURL(db) else {
            if access != .createIfMissing, db != SQLiteSessionStore.memoryPath, !FileManager.default.fileExists(atPath: db) {
                FileHandle.standardError.write(Data("platformd: no database at \(db) (--db); only serve and mcp create one\n".utf8))
                throw ExitCode(Self.missingDatabaseExitCode)
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: db, isDirectory: &isDirectory), isDirectory.boolValue {
                let example = URL(fileURLWithPath: db).appendingPathComponent(Self.defaultPath).path
                FileHandle.standardError.write(Data("platformd: --db \(db) is a directory; give the database file's path, such as \(example)\n".utf8))
                throw ExitCode(Self.missingDatabaseExitCode)
            }
            do {
                return try await SQLiteSessionStore.open(
                    path: db, readOnly: access == .readOnly, migrating: access == .createIfMissing, logger: logger, abandonWait: abandonWait)
            } catch let error as SQLiteSessionStore.Unopenable {
                FileHandle.standardError.write(Data("platformd: --db \(error)\n".utf8))
                throw ExitCode(error.cannotOpen ? Self.missingDatabaseExitCode : Self.damagedDatabaseExitCode)
            }
        }
        guard dbPoolSize >= 1 else { throw CommandRefusal.exit("--db-pool-size must be at least 1") }
        do {
            return try await PostgresSessionStore.connect(url: db, options: .init(poolSize: dbPoolSize), logger: logger)
        } catch let error as PostgresSessionStore.Unreachable {
            FileHandle.standardError.write(Data("platformd: \(error)\n".utf8))
            Foundation.exit(Self.unreachableExitCode)
        } catch let error as PostgresSessionStore.InvalidURL {
            throw CommandRefusal.exit("--db: \(error)")
        }
    }

    /// What logs and messages name as the database: never a URL's password.
    var databaseName: String {
        guard PostgresSessionStore.isURL(db), var components = URLComponents(string: db) else { return db }
        if components.password != nil { components.password = "***" }
        return components.string ?? "postgres"
    }

    /// What a one-shot command does around its work: logs to stderr, opens the database (which
    /// must exist) with the tenants, runs `body`, closes the database whether `body` succeeded or
    /// not; a refusal of the platform's (`FlowError`) is one `Error:` line and exit 64.
    func withPlatform<T: Sendable>(
        _ tenantOptions: TenantOptions, access: Access = .existingOnly, _ body: (Platform) async throws -> T
    ) async throws -> T {
        let logger = bootstrapLogging()
        let (platform, _) = try await openPlatform(tenants: tenantOptions.load(), logger: logger, access: access)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(platform))
        } catch {
            result = .failure(error)
        }
        try await platform.close()
        switch result {
        case .success(let value): return value
        case .failure(FlowError.unknownTenant(let tenant, let hosted)):
            throw CommandRefusal.exit("tenant \(tenant) is not hosted (tenants: \(hosted.joined(separator: ", ")))")
        case .failure(let error as FlowError): throw CommandRefusal.exit(RPCError(error).message)
        case .failure(let error): throw error
        }
    }

    func openPlatform(
        tenants: [HostedTenant], logger: Logger, access: Access = .existingOnly, abandonWait: @escaping @Sendable () -> Bool = { false }
    ) async throws -> (Platform, any PlatformStore) {
        let store = try await openStore(logger: logger, access: access, abandonWait: abandonWait)
        return (Platform(tenants: tenants, store: store, logger: logger), store)
    }
}

/// `--tenants FILE`: the tenants to host instead of the defaults.
struct TenantOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A tenants file (JSON; YAML when it ends in .yaml or .yml) to host instead of the default tenants (one per registered plugin); see Docs/operations.md.",
            valueName: "file"))
    var tenants: String?

    /// The configured tenants; a file that cannot be used ends the process with exit code 78
    /// (EX_CONFIG) and one stderr line naming the file, the tenant and the key.
    func load() -> [HostedTenant] {
        guard let tenants else {
            // A plugin's theme is part of the build, but a text color failing contrast must not
            // reach a page: the defaults are checked as a file's tenants are.
            for tenant in RegisteredPlugins.defaultTenants {
                if let problem = tenant.plugin.theme.contrastProblems().first {
                    FileHandle.standardError.write(
                        Data("platformd: tenant \(tenant.id): the theme of plugin \(tenant.plugin.name) cannot be served: \(problem)\n".utf8))
                    Foundation.exit(78)
                }
            }
            return RegisteredPlugins.defaultTenants
        }
        let environment = ProcessInfo.processInfo.environment
        do throws(ConfigurationError) {
            guard let data = FileManager.default.contents(atPath: tenants) else {
                throw ConfigurationError(file: tenants, tenant: nil, key: nil, reason: "cannot be read (missing, or not a readable file)")
            }
            guard tenants.hasSuffix(".yaml") || tenants.hasSuffix(".yml") else {
                return try TenantsConfiguration.parse(
                    Array(data), file: tenants, registrations: RegisteredPlugins.registrations, environment: environment,
                    outbound: ServerOutboundHTTP())
            }
            let document: JSONValue
            do throws(YAMLDocument.Problem) {
                document = try YAMLDocument.json(String(decoding: data, as: UTF8.self))
            } catch {
                throw ConfigurationError(file: tenants, tenant: nil, key: nil, reason: error.description)
            }
            return try TenantsConfiguration.parse(
                document, file: tenants, registrations: RegisteredPlugins.registrations, environment: environment,
                outbound: ServerOutboundHTTP())
        } catch {
            FileHandle.standardError.write(Data("platformd: \(error)\n".utf8))
            Foundation.exit(78)
        }
    }

    /// Refuses a tenant that is not hosted (commands that act on one tenant's rows): one the
    /// tenants file does not define, or without a file one of the default tenants is not, so a
    /// typo makes no key, export or erasure for a tenant nobody serves.
    func requireDefined(_ tenant: String) throws {
        let hosted = load()
        guard !hosted.contains(where: { $0.id == tenant }) else { return }
        guard let tenants else {
            throw CommandRefusal.exit(
                "tenant \(tenant) is not hosted (tenants: \(hosted.map(\.id).joined(separator: ", "))); for a tenants file's tenant pass --tenants FILE")
        }
        throw CommandRefusal.exit("tenant \(tenant) is not defined in \(tenants)")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
