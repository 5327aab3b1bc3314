import Foundation
import PlatformClient
import PlatformClientTesting
import PlatformProtocol
import PlatformTesting
import Testing

/// The client's own behaviour: discovery, errors, pipelining, closing, TCP, custom transports.
@Suite("PlatformClient", .timeLimit(.minutes(5)))
struct ClientTests {
    @Test func infoAndDiscover() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            let info = try await client.info()
            #expect(info.name == "platformd")
            #expect(info.protocol == 4)
            let hosted = try await Hosted.tenants()
            #expect(info.tenants.map(\.tenant) == hosted)
            #expect(!info.tenants.isEmpty)
            #expect(info.tenants.allSatisfy { $0.flows.first == "onboarding" })

            let document = try await client.discover()
            #expect(document.openrpc.hasPrefix("1."))
            #expect(document.info.version == info.version)
            #expect(Set(document.methods.map(\.name)) == Set(PlatformMethod.allCases.map(\.rawValue)))
            #expect(document.components.schemas["SessionView"] != nil)
            #expect(document.components.errors.values.contains { $0.code == ErrorCode.validationFailed.rawValue })

            // The escape hatch: any method, any Encodable params, any Decodable result.
            let raw: JSONValue = try await client.call("platform.info", params: NoParams())
            #expect(raw["tenants"]?.arrayValue?.count == info.tenants.count)
            let tenant = try #require(info.tenants.last?.tenant)
            let typed = try await client.call("flow.describe", params: ["tenant": .string(tenant)] as JSONValue, as: FlowDescription.self)
            #expect(typed.tenant == tenant)
            try await client.close()
        }
    }

    /// The person's data through the client: an export holds the session, an erasure counts it
    /// and leaves nothing to export.
    @Test func exportAndEraseAUser() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            let tenant = try #require(try await client.info().tenants.first?.tenant)
            let view = try await client.start(tenant: tenant, userId: "person", user: UserDetails(firstName: "Ada"))
            #expect(view.flowVersion != nil)
            let export = try await client.exportUser(tenant: tenant, userId: "person")
            #expect(export.sessions.map(\.sessionId) == [view.sessionId])
            #expect(export.sessions.first?.user.firstName == "Ada")
            let erased = try await client.eraseUser(tenant: tenant, userId: "person")
            #expect(erased.erased.sessions == 1)
            #expect(try await client.exportUser(tenant: tenant, userId: "person").sessions.isEmpty)
            try await client.close()
        }
    }

    @Test func serverErrorsCarryTheirCodeAndData() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            let unknownTenant = try await #require(throws: PlatformClientError.self) {
                try await client.start(tenant: "nope", userId: "u1")
            }
            #expect(unknownTenant.kind == .server)
            #expect(unknownTenant.errorCode == .notFound)
            #expect(!unknownTenant.isTransportFailure)

            let badLimit = try await #require(throws: PlatformClientError.self) {
                // The limit is checked before the field: any tenant, any field.
                let view = try await client.start(tenant: try await Hosted.tenant(), userId: "u1")
                return try await client.search(view, field: "any-field", query: "austin", limit: 500)
            }
            #expect(badLimit.errorCode == .invalidParams)
            #expect(badLimit.param == "limit")

            let unknownMethod = try await #require(throws: PlatformClientError.self) {
                try await client.call("no.such.method", params: NoParams(), as: JSONValue.self)
            }
            #expect(unknownMethod.code == -32601)
            #expect(unknownMethod.errorCode == .methodNotFound)

            // A result that is not the type asked for.
            let mistyped = try await #require(throws: PlatformClientError.self) {
                try await client.call("platform.info", params: NoParams(), as: SessionView.self)
            }
            #expect(mistyped.kind == .invalidReply)
            #expect(mistyped.code == 0)
            #expect(mistyped.errorCode == nil)

            // The connection goes on after every one of them.
            let hosted = try await Hosted.tenants()
            #expect(try await client.info().tenants.count == hosted.count)
            try await client.close()
        }
    }

    /// Over TCP a login is required: a tenant key, then a user token minted with it, each
    /// narrowing what the connection may do.
    @Test(.enabled("the other-tenant check needs two hosted tenants") { try await Hosted.tenants().count > 1 })
    func loginWithAKeyThenAUserToken() async throws {
        let directory = URL(fileURLWithPath: "/tmp/pc-auth-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("platformd.sqlite").path
        let tenants = try await Hosted.tenants()
        let tenant = tenants[0]
        try await PlatformdProcess.createDatabase(db)
        let secret = try await PlatformdServer.command(["keys", "create", "--tenant", tenant, "--db", db])
        #expect(secret.hasPrefix("pdk_"))
        try await PlatformdServer.with(.tcp, arguments: ["--db", db]) { server in
            let client = try await server.connect()
            let refused = try await #require(throws: PlatformClientError.self) { try await client.start(tenant: tenant, userId: "u1") }
            #expect(refused.errorCode == .unauthorized)
            _ = try await client.discover()

            let wrong = try await #require(throws: PlatformClientError.self) { try await client.login(key: "pdk_wrong") }
            #expect(wrong.errorCode == .unauthorized)
            let me = try await client.login(key: secret)
            #expect(me == Principal(kind: .tenant, tenant: tenant))
            _ = try await client.start(tenant: tenant, userId: "u1")
            let otherTenant = try await #require(throws: PlatformClientError.self) { try await client.start(tenant: tenants[1], userId: "u1") }
            #expect(otherTenant.errorCode == .unauthorized)

            let token = try await client.userToken(tenant: tenant, userId: "u2", ttlSeconds: 600)
            #expect(token.token.hasPrefix("pdt_"))
            let app = try await server.connect()
            let user = try await app.login(token: token.token)
            #expect(user.kind == .user)
            #expect(user.tenant == tenant)
            #expect(user.userId == "u2")
            #expect(user.expiresAt == token.expiresAt)
            let own = try await app.start(tenant: tenant, userId: "u2", user: .init(firstName: "Sam"))
            #expect(own.userId == "u2")
            let someoneElse = try await #require(throws: PlatformClientError.self) { try await app.start(tenant: tenant, userId: "u1") }
            #expect(someoneElse.errorCode == .unauthorized)
            let u1 = try await client.get(tenant: tenant, userId: "u1")
            let hidden = try await #require(throws: PlatformClientError.self) { try await app.get(tenant: tenant, sessionId: u1.sessionId) }
            #expect(hidden.errorCode == .notFound)
            let funnel = try await #require(throws: PlatformClientError.self) { try await app.funnel(tenant: tenant) }
            #expect(funnel.errorCode == .unauthorized)
            #expect(!"\(LoginParams.key(secret))".contains(secret))
            #expect(!"\(token)".contains(token.token))
            #expect(!"\(RevokeTokenParams(tenant: tenant, token: token.token))".contains(token.token))

            // Revoked, the token's connection is refused from its next request.
            #expect(try await client.revokeToken(tenant: tenant, token: token.token) == 1)
            let revoked = try await #require(throws: PlatformClientError.self) { try await app.get(tenant: tenant, userId: "u2") }
            #expect(revoked.errorCode == .unauthorized)
            #expect(try await client.revokeTokens(tenant: tenant, userId: "u2") == 0)
            try await app.close()
            try await client.close()
        }
    }

    @Test func concurrentCallsArePipelinedAndMatchedById() async throws {
        let tenant = try await Hosted.tenant()
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            let users = (0..<40).map { "user-\($0)" }
            let sessions = try await withThrowingTaskGroup(of: (String, SessionView).self) { group in
                for user in users {
                    group.addTask { (user, try await client.start(tenant: tenant, userId: user)) }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(sessions.count == users.count)
            for (user, view) in sessions {
                #expect(view.userId == user)
            }
            #expect(Set(sessions.values.map(\.sessionId)).count == users.count)
            try await client.close()
        }
    }

    @Test func overTCP() async throws {
        // A loopback address may serve without logins when the operator says so.
        try await PlatformdServer.with(.tcp, arguments: ["--db", ":memory:", "--auth", "none"]) { server in
            guard case .tcp(let host, let port) = server.endpoint else {
                Issue.record("not a TCP endpoint: \(server.endpoint)")
                return
            }
            let client = try await PlatformClient.connect(.tcp(host: host, port: port), configuration: PlatformdServer.configuration)
            let tenants = try await Hosted.tenants()
            #expect(try await client.info().tenants.count == tenants.count)
            // The first step answered (generic answers), then back to it with the answers kept.
            let first = try await client.start(tenant: tenants[0], userId: "tcp-user", user: .init(firstName: "Alex"))
            let (moved, values) = try await Hosted.answer(client, first)
            #expect(moved.revision == first.revision + 1)
            #expect(moved.step?.id != first.step?.id)
            let back = try await client.back(moved)
            #expect(back.step?.id == first.step?.id)
            for field in first.step?.fields ?? [] where field.visibleWhen == nil {
                if let value = values[field.id] { #expect(back.step?.field(field.id)?.value == value, "\(field.id)") }
            }
            try await client.close()
        }
    }

    @Test func closingFailsLaterCalls() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            _ = try await client.info()
            try await client.close()
            try await client.close()  // again: nothing more happens
            let error = try await #require(throws: PlatformClientError.self) { try await client.info() }
            #expect(error.kind == .connectionClosed)
            #expect(error.isTransportFailure)
        }
    }

    @Test func aServerThatGoesAwayFailsTheCall() async throws {
        try await PlatformdServer.with { server in
            let client = try await server.connect()
            _ = try await client.info()
            server.kill()
            let error = try await #require(throws: PlatformClientError.self) { try await client.info() }
            #expect(error.kind == .connectionClosed)
        }
    }

    @Test func aReplyLineOverTheLimitEndsTheConnection() async throws {
        try await PlatformdServer.with { server in
            let client = try await PlatformClient.connect(
                server.endpoint, configuration: .init(requestTimeout: PlatformdServer.timeout, maxLineBytes: 100))
            let error = try await #require(throws: PlatformClientError.self) { try await client.info() }
            #expect(error.kind == .invalidReply)
            #expect(error.underlying is LineSplitter.LineTooLong)
            let later = try await #require(throws: PlatformClientError.self) { try await client.info() }
            #expect(later.kind == .connectionClosed)
        }
    }

    @Test func connectingToNothingFails() async throws {
        let error = try await #require(throws: PlatformClientError.self) {
            try await PlatformClient.connect(.unix(path: "/tmp/pc-no-such-socket-\(UUID().uuidString.prefix(8))"))
        }
        #expect(error.kind == .connectionFailed)
    }
}

/// The client over a transport of the test's own: what an app plugging in Network.framework gets.
/// (Four minutes: a stall guard, not a speed bound. In the first two minutes of the whole suite on
/// two cores, hundreds of tests start at once and these waited past one minute to be scheduled.)
@Suite("PlatformClient over a custom transport", .timeLimit(.minutes(4)))
struct CustomTransportTests {
    /// Hands each request line to the test, and replies only when the test says.
    actor ScriptedTransport: PlatformTransport {
        /// The requests, parsed, in the order the client sent them.
        nonisolated let sent: AsyncStream<JSONValue>
        private nonisolated let sentInput: AsyncStream<JSONValue>.Continuation
        private var queued: [[UInt8]] = []
        private var waiter: CheckedContinuation<[UInt8]?, Never>?
        private var closed = false

        init() {
            (sent, sentInput) = AsyncStream.makeStream()
        }

        func reply(_ line: String) {
            if let waiter {
                self.waiter = nil
                waiter.resume(returning: Array(line.utf8))
            } else {
                queued.append(Array(line.utf8))
            }
        }

        func send(_ line: [UInt8]) throws {
            #expect(line.last == 0x0A)
            sentInput.yield(try JSONValue.parse(line.dropLast()))
        }

        func receiveLine() async -> [UInt8]? {
            if !queued.isEmpty { return queued.removeFirst() }
            if closed { return nil }
            return await withCheckedContinuation { waiter = $0 }
        }

        func close() {
            closed = true
            waiter?.resume(returning: nil)
            waiter = nil
            sentInput.finish()
        }
    }

    /// The error `task` ends with; nil (and an issue) when it returns.
    static func failure<T>(of task: Task<T, any Error>, sourceLocation: SourceLocation = #_sourceLocation) async -> PlatformClientError? {
        do {
            let value = try await task.value
            Issue.record("expected a PlatformClientError, got \(value)", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error is PlatformClientError, sourceLocation: sourceLocation)
            return error as? PlatformClientError
        }
    }

    @Test func repliesAreMatchedByIdAndNullIdsGoToTheOldestCall() async throws {
        let transport = ScriptedTransport()
        let client = PlatformClient(transport: transport, configuration: .init(requestTimeout: nil))
        var sent = transport.sent.makeAsyncIterator()

        let first = Task { try await client.info() }
        let firstRequest = try #require(await sent.next())
        #expect(firstRequest["jsonrpc"] == "2.0")
        #expect(firstRequest["method"] == "platform.info")
        #expect(firstRequest["params"] == [:])
        let second = Task { try await client.get(tenant: "tenant-a", sessionId: "s1") }
        let secondRequest = try #require(await sent.next())
        #expect(secondRequest["method"] == "flow.get")
        #expect(secondRequest["params"] == ["tenant": "tenant-a", "sessionId": "s1"])
        let third = Task { try await client.call("x.echo", params: ["text": "hi"] as JSONValue, as: String.self) }
        let thirdRequest = try #require(await sent.next())
        let ids = [firstRequest, secondRequest, thirdRequest].compactMap { $0["id"]?.intValue }
        #expect(ids.count == 3)
        #expect(ids == ids.sorted())

        // Replies out of order still reach their calls; a null id (a line the server could not
        // read) answers the oldest call still unanswered.
        await transport.reply(#"{"jsonrpc":"2.0","id":\#(ids[2]),"result":"hi"}"#)
        await transport.reply(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32006,"message":"Payload too large"}}"#)
        await transport.reply(#"{"jsonrpc":"2.0","id":\#(ids[1]),"error":{"code":-32002,"message":"Not found: session"}}"#)
        #expect(try await third.value == "hi")
        #expect(await Self.failure(of: first)?.errorCode == .payloadTooLarge)
        #expect(await Self.failure(of: second)?.errorCode == .notFound)
        try await client.close()
    }

    @Test func closingFailsTheCallsWaiting() async throws {
        let transport = ScriptedTransport()
        let client = PlatformClient(transport: transport, configuration: .init(requestTimeout: nil))
        var sent = transport.sent.makeAsyncIterator()
        let waiting = Task { try await client.info() }
        _ = try #require(await sent.next())
        try await client.close()
        #expect(await Self.failure(of: waiting)?.kind == .connectionClosed)
    }

    @Test func aCallWithoutReplyTimesOut() async throws {
        let transport = ScriptedTransport()
        let client = PlatformClient(transport: transport, configuration: .init(requestTimeout: .milliseconds(50)))
        let error = try await #require(throws: PlatformClientError.self) { try await client.info() }
        #expect(error.kind == .timedOut)
        try await client.close()
    }

    @Test func aCancelledCallStopsWaitingAndItsLateReplyIsDropped() async throws {
        let transport = ScriptedTransport()
        let client = PlatformClient(transport: transport, configuration: .init(requestTimeout: nil))
        var sent = transport.sent.makeAsyncIterator()
        let cancelled = Task { try await client.info() }
        let abandoned = try #require(await sent.next()?["id"])
        cancelled.cancel()
        #expect(await Self.failure(of: cancelled)?.kind == .cancelled)

        let next = Task { try await client.call("x.echo", params: NoParams(), as: String.self) }
        let nextId = try #require(await sent.next()?["id"])
        await transport.reply(#"{"jsonrpc":"2.0","id":\#(abandoned.serialized()),"result":"late"}"#)
        await transport.reply(#"{"jsonrpc":"2.0","id":\#(nextId.serialized()),"result":"on time"}"#)
        #expect(try await next.value == "on time")
        try await client.close()
    }

    @Test func anUnreadableReplyFailsItsCallOnly() async throws {
        let transport = ScriptedTransport()
        let client = PlatformClient(transport: transport, configuration: .init(requestTimeout: nil))
        var sent = transport.sent.makeAsyncIterator()
        let garbled = Task { try await client.info() }
        _ = try #require(await sent.next())
        await transport.reply("<html>")
        #expect(await Self.failure(of: garbled)?.kind == .invalidReply)

        let fine = Task { try await client.call("x.echo", params: ["a": 1] as [String: Int], as: Int.self) }
        let id = try #require(await sent.next()?["id"])
        await transport.reply(#"{"jsonrpc":"2.0","id":\#(id.serialized()),"result":7}"#)
        #expect(try await fine.value == 7)
        try await client.close()
    }

    @Test func theServerClosingFailsTheCallsWaiting() async throws {
        let transport = ScriptedTransport()
        let client = PlatformClient(transport: transport, configuration: .init(requestTimeout: nil))
        var sent = transport.sent.makeAsyncIterator()
        let waiting = Task { try await client.info() }
        _ = try #require(await sent.next())
        await transport.close()
        #expect(await Self.failure(of: waiting)?.kind == .connectionClosed)
        let later = try await #require(throws: PlatformClientError.self) { try await client.info() }
        #expect(later.kind == .connectionClosed)
    }
}

@Suite("LineSplitter")
struct LineSplitterTests {
    @Test func splitsAtNewlinesAcrossChunks() throws {
        var splitter = LineSplitter(maxLineBytes: 10)
        splitter.append(Array("ab".utf8))
        #expect(try splitter.nextLine() == nil)
        splitter.append(Array("c\r\nde\n\nf".utf8))
        #expect(try splitter.nextLine() == Array("abc".utf8))
        #expect(try splitter.nextLine() == Array("de".utf8))
        #expect(try splitter.nextLine() == [])
        #expect(try splitter.nextLine() == nil)
        #expect(splitter.remainder() == Array("f".utf8))
        #expect(splitter.remainder() == nil)
    }

    @Test func refusesALineOverTheLimit() throws {
        var splitter = LineSplitter(maxLineBytes: 4)
        splitter.append(Array("abcd\n".utf8))
        #expect(try splitter.nextLine() == Array("abcd".utf8))
        splitter.append(Array("abcde".utf8))
        #expect(throws: LineSplitter.LineTooLong.self) { try splitter.nextLine() }
        var finished = LineSplitter(maxLineBytes: 4)
        finished.append(Array("abcdef\n".utf8))
        #expect(throws: LineSplitter.LineTooLong.self) { try finished.nextLine() }
    }
}
