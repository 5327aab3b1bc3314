import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// Ids are bytes: a token minted for an id that Swift's `String ==` takes for another (canonical
/// equivalence) acts for its own id only, on every store; ids holding control characters or
/// what was not UTF-8 are refused with -32602 naming the parameter, and nothing is stored.
@Suite("Ids are compared as bytes")
struct IDBytesTests {
    /// Pairs Swift's `==` calls equal while their bytes differ.
    static let lookalikes: [(victim: String, attacker: String)] = [
        ("Kate", "\u{212A}ate"),  // KELVIN SIGN
        ("jos\u{E9}", "jose\u{301}"),  // NFC against NFD
    ]

    static func server(_ store: any PlatformStore) -> (Platform, RPCServer) {
        let platform = Platform(tenants: [HostedTenant(id: "fixture", pluginName: "Fixture", plugin: FixturePlugin())], store: store)
        return (platform, platform.rpcServer(credentials: Credentials(store: store)))
    }

    static func call(
        _ server: RPCServer, _ method: String, _ params: JSONValue, as connection: ConnectionState = .trusted("test")
    ) async -> JSONValue {
        let request: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": .string(method), "params": params]
        return await server.reply(to: request.serializedBytes(), connection: connection) ?? .null
    }

    static func loggedIn(_ server: RPCServer, tenant: String, userId: String) async throws -> ConnectionState {
        let minted = await call(server, "auth.userToken", ["tenant": .string(tenant), "userId": .string(userId)])
        let token = try #require(minted["result"]?["token"]?.stringValue, "\(minted)")
        let connection = ConnectionState(nil, label: "test", transport: "test")
        let login = await call(server, "auth.login", ["token": .string(token)], as: connection)
        #expect(login["result"] != nil, "\(login)")
        return connection
    }

    @Test(.postgres) func aTokenForALookalikeIdReachesNothingOfTheOriginalOnPostgres() async throws {
        try await aTokenForALookalikeIdReachesNothingOfTheOriginal(kind: .postgres)
    }

    @Test(arguments: StoreKind.sqlite)
    func aTokenForALookalikeIdReachesNothingOfTheOriginal(kind: StoreKind) async throws {
        let store = try await kind.open()
        let (platform, server) = Self.server(store)
        defer { Task { try? await platform.close() } }
        for (victim, attacker) in Self.lookalikes {
            #expect(victim == attacker, "Swift's String == takes them for one")
            let started = await Self.call(
                server, "flow.start", ["tenant": "fixture", "userId": .string(victim), "user": ["firstName": "Victoria", "email": "victoria@example.com"]])
            let sessionId = try #require(started["result"]?["sessionId"]?.stringValue, "\(started)")
            let mallory = try await Self.loggedIn(server, tenant: "fixture", userId: attacker)

            // Every method a user token may call that names the victim, by user id or by session.
            let byUser: [(String, JSONValue)] = [
                ("user.export", ["tenant": "fixture", "userId": .string(victim)]),
                ("flow.get", ["tenant": "fixture", "userId": .string(victim)]),
                ("flow.start", ["tenant": "fixture", "userId": .string(victim)]),
                ("profile.get", ["tenant": "fixture", "userId": .string(victim)]),
                ("gate.check", ["tenant": "fixture", "userId": .string(victim), "action": "anything"]),
            ]
            for (method, params) in byUser {
                let reply = await Self.call(server, method, params, as: mallory)
                #expect(reply["error"]?["code"] == -32001, "\(method) for \(victim) as \(attacker): \(reply)")
            }
            let bySession: [(String, JSONValue)] = [
                ("flow.get", ["tenant": "fixture", "sessionId": .string(sessionId)]),
                ("flow.back", ["tenant": "fixture", "sessionId": .string(sessionId), "revision": 0]),
                ("flow.submit", ["tenant": "fixture", "sessionId": .string(sessionId), "stepId": "basics", "revision": 0, "values": [:]]),
            ]
            for (method, params) in bySession {
                let reply = await Self.call(server, method, params, as: mallory)
                #expect(reply["error"]?["code"] == -32002, "\(method) of \(victim)'s session as \(attacker): \(reply)")
            }

            // The lookalike is a user of its own: its own session is a different one.
            let own = await Self.call(server, "flow.start", ["tenant": "fixture", "userId": .string(attacker)], as: mallory)
            let ownId = try #require(own["result"]?["sessionId"]?.stringValue, "\(own)")
            #expect(ownId != sessionId)
            let export = await Self.call(server, "user.export", ["tenant": "fixture", "userId": .string(attacker)], as: mallory)
            #expect(export["result"]?["sessions"]?.arrayValue?.count == 1)
            #expect(!export.serialized().contains("victoria@example.com"))
        }
    }

    @Test(arguments: [
        ("userId", "victim\u{0}attacker"), ("userId", "line\nbreak"), ("userId", "bell\u{7}"), ("userId", "del\u{7F}"),
        ("userId", "lone\u{FFFD}"), ("tenant", "fixture\u{0}"), ("sessionId", "0190\u{0}"),
    ])
    func idsWithControlCharactersAreRefusedNamingTheParameter(name: String, value: String) async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let (platform, server) = Self.server(store)
        defer { Task { try? await platform.close() } }
        var params: [String: JSONValue] = ["tenant": "fixture", "userId": "ok-user"]
        params[name] = .string(value)
        let method = name == "sessionId" ? "flow.get" : "flow.start"
        let reply = await Self.call(server, method, .object(params))
        #expect(reply["error"]?["code"] == -32602, "\(reply)")
        #expect(reply["error"]?["data"]?["field"]?.stringValue == name || reply["error"]?["message"]?.stringValue?.contains(name) == true, "\(reply)")
        // Minting a token for such an id is refused too: nothing is stored for it.
        if name == "userId" {
            let minted = await Self.call(server, "auth.userToken", ["tenant": "fixture", "userId": .string(value)])
            #expect(minted["error"]?["code"] == -32602, "\(minted)")
        }
        let stored = try await store.userData(tenant: "fixture", userId: String(value.prefix { $0 != "\u{0}" }))
        #expect(stored.sessions.isEmpty, "nothing stored under the id cut at its NUL")
    }

    @Test func anUnpairedSurrogateEscapeIsRefusedNotFolded() async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let (platform, server) = Self.server(store)
        defer { Task { try? await platform.close() } }
        for escape in [#"\ud800"#, #"\udc00"#] {
            let line = #"{"jsonrpc":"2.0","id":1,"method":"flow.start","params":{"tenant":"fixture","userId":"u"# + escape + #""}}"#
            let reply = await server.reply(to: Array(line.utf8)) ?? .null
            #expect(reply["error"]?["code"] == -32602, "\(reply)")
        }
    }

    @Test func byteEqualityAndKeys() {
        #expect(!IDBytes.equal("Kate", "\u{212A}ate"))
        #expect(IDBytes.equal("Kate", "Kate"))
        #expect(!IDBytes.equal("a", nil) && IDBytes.equal(nil as String?, nil))
        #expect(IDKey("Kate") != IDKey("\u{212A}ate"))
        #expect(Set([IDKey("jos\u{E9}"), IDKey("jose\u{301}")]).count == 2)
        #expect(IDKey(joining: "ab", "c") != IDKey(joining: "a", "bc"))
        #expect(IDBytes.refusal("plain-id") == nil && IDBytes.refusal("Ωmega") == nil)
    }
}
