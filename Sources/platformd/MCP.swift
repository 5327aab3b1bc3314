import ArgumentParser
import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore
import UnixSignals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `platformd mcp`: one user's onboarding as a Model Context Protocol server on stdio, for an AI
/// assistant's host (Claude Desktop, an IDE, an agent) to start as a subprocess. Same engine,
/// same store as `serve`; see Docs/mcp.md.
struct MCP: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Walk one user through a tenant's flow from an AI assistant: an MCP server on stdio.",
        discussion: """
            Speaks the Model Context Protocol (newline-delimited JSON-RPC on stdin/stdout, protocol \
            \(MCPServer.supportedVersions.reversed().joined(separator: " and "))) with tools onboarding_status, \
            onboarding_answer, onboarding_back, onboarding_edit and onboarding_search, the flow's Mermaid diagram \
            and the current step as resources, and the prompt \(MCPServer.promptName). stdout carries only MCP \
            messages; logs go to stderr. It may share --db with a running `platformd serve`.
            With --auth required the environment variable \(Self.tokenVariable) must hold a user token \
            (auth.userToken) for the same tenant and user, from the same database; otherwise the process \
            refuses to start (exit code 77). EOF on stdin, SIGTERM or SIGINT: answers what was sent, exits 0.
            """
    )

    /// The environment variable that holds the user token.
    static let tokenVariable = "PLATFORMD_TOKEN"

    @OptionGroup var store: StoreOptions
    @OptionGroup var tenantOptions: TenantOptions

    @Option(help: "The tenant whose flow to walk, e.g. statlocker.")
    var tenant: String

    @Option(name: .customLong("user-id"), help: "The user the assistant onboards (the app's own id for them).")
    var userId: String

    @Option(help: "The flow id.")
    var flow = "onboarding"

    @Option(help: "The user's first name, for the flow's personalised copy (as flow.start's user.firstName).")
    var firstName: String?
    @Option(help: "The user's last name.")
    var lastName: String?
    @Option(help: "The user's email.")
    var email: String?
    @Option(help: "The user's display name.")
    var displayName: String?

    @Option(
        help: ArgumentHelp(
            "The language of a session the assistant starts (BCP 47: es, es-MX), as flow.start's locale; the nearest one the tenant serves is used.",
            valueName: "tag"))
    var locale: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "required: \(MCP.tokenVariable) must hold a valid user token for --tenant and --user-id; none (the default): no login, as `serve` on stdio.",
            valueName: "required|none"))
    var auth: Serve.AuthMode = .none

    @Option(help: "Longest accepted line in bytes; a longer line gets error -32006 and is skipped.")
    var maxLineBytes: Int = 1 << 20

    func validate() throws {
        if let locale, LocaleTag.normalized(locale) == nil {
            throw ValidationError("--locale must be a BCP 47 language tag such as es or es-MX")
        }
        guard maxLineBytes > 0 else { throw ValidationError("--max-line-bytes must be positive") }
        guard !userId.trimmingCharacters(in: .whitespaces).isEmpty, userId.count <= 256 else {
            throw ValidationError("--user-id must be 1-256 characters, not blank")
        }
        if let refusal = IDBytes.refusal(userId) { throw ValidationError("--user-id \(refusal)") }
        for (name, value) in [("--first-name", firstName), ("--last-name", lastName), ("--email", email), ("--display-name", displayName)] {
            if let value, value.count > 256 { throw ValidationError("\(name) must be at most 256 characters") }
        }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        // Trapped first thing, as in `serve`: a signal during start-up is remembered, not lost.
        let stopSignals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let stopWhileStarting = StopWhileStarting()
        let logger = store.bootstrapLogging()
        let hosted = tenantOptions.load()
        guard hosted.contains(where: { $0.id == tenant }) else {
            throw CommandRefusal.exit("tenant \(tenant) is not hosted (tenants: \(hosted.map(\.id).joined(separator: ", ")))")
        }
        guard let opened = try await store.openPlatform(tenants: hosted, logger: logger, unlessStopped: stopWhileStarting) else { return }
        let (platform, database) = opened
        // One person's server: it registers the versions it serves and learns the others' (so no
        // two binaries move a session back and forth), but reads no one's sessions for a
        // report (serve logs that).
        try await platform.registerFlowVersions()
        do {
            _ = try platform.describe(tenant: tenant, flow: flow)
        } catch {
            try? await platform.close()
            throw CommandRefusal.exit(RPCError(error).message)
        }

        var authorize: (@Sendable () async -> String?)?
        let environment = ProcessInfo.processInfo.environment
        switch auth {
        case .required:
            guard let secret = environment[Self.tokenVariable], !secret.isEmpty else {
                try? await platform.close()
                try Self.refuse("--auth required needs a user token for tenant \(tenant) and user \(userId) in \(Self.tokenVariable), which is not set")
            }
            let check = TokenCheck(credentials: Credentials(store: database), secret: secret, tenant: tenant, userId: userId)
            if let refusal = await check.refusal() {
                try? await platform.close()
                try Self.refuse(refusal)
            }
            // Checked again before each tool call: a token expires while the host keeps the process.
            authorize = { await check.refusal() }
        case .none:
            if environment[Self.tokenVariable] != nil {
                logger.notice("\(Self.tokenVariable) is set but --auth is none: the token is not checked")
            }
        }

        let user = UserDetails(firstName: firstName, lastName: lastName, email: email, displayName: displayName)
        // The tenant's rate limit holds here as on every door (this process's own bucket, as each
        // serve host has its own).
        let limits = platform.rpcServer(credentials: Credentials(store: database))
        let limitedTenant = tenant
        let server = MCPServer(
            platform: platform, tenant: tenant, userId: userId, flow: flow,
            user: [firstName, lastName, email, displayName].contains { $0 != nil } ? user : nil,
            locale: locale.flatMap(LocaleTag.normalized), authorize: authorize,
            rateLimit: { limits.takeRate(tenant: limitedTenant) }, dispatcher: limits, logger: logger)
        logger.info("MCP server for tenant \(tenant), user \(userId), flow \(flow) on stdio, database \(store.databaseName), auth \(auth.rawValue)")
        let transport = StdioTransport(
            server: server.rpcServer(), maxLineBytes: maxLineBytes, logger: logger,
            notifications: { await server.takeNotifications().map { $0.serializedBytes() } }, transport: "mcp")
        try await Serve.run([(transport, "mcp")], platform: platform, stopSignals: stopSignals, logger: logger)
    }

    /// One stderr line, exit code 77 (EX_NOPERM).
    static func refuse(_ reason: String) throws -> Never {
        FileHandle.standardError.write(Data("platformd mcp: refused to start: \(reason)\n".utf8))
        throw ExitCode(77)
    }
}

/// The user token from the environment, checked against the database's tokens.
struct TokenCheck: Sendable {
    let credentials: Credentials
    let secret: String
    let tenant: String
    let userId: String

    /// Why the token does not let this process act for the tenant's user; nil when it does.
    func refusal() async -> String? {
        let variable = MCP.tokenVariable
        do {
            switch try await credentials.token(secret) {
            case .failure(let refusal):
                return "\(variable) is not a valid user token (\(refusal.reason))"
            case .success(let token) where !IDBytes.equal(token.tenant, tenant):
                return "\(variable) is a user token for another tenant, not \(tenant)"
            case .success(let token) where !IDBytes.equal(token.userId, userId):
                return "\(variable) is a user token for another user of \(tenant), not \(userId)"
            case .success:
                return nil
            }
        } catch {
            return "\(variable) could not be checked: the database cannot be read (\(error))"
        }
    }
}
