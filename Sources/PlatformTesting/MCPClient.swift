import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import Testing

/// An MCP client over a `platformd mcp` process (`PlatformdProcess`), as an MCP host drives it:
/// one JSON-RPC message per line, requests by id, notifications kept as they come.
public final class MCPClient {
    public let server: PlatformdProcess
    private var nextId: Int64 = 1
    /// Notifications the server sent, in order (`notifications/tools/list_changed`).
    public private(set) var notifications: [JSONValue] = []
    /// Every line the server wrote on stdout.
    public private(set) var lines: [String] = []

    public init(_ server: PlatformdProcess) {
        self.server = server
    }

    /// Sends a request and reads lines until its reply, keeping notifications on the way.
    public func request(_ method: String, _ params: JSONValue? = nil) async throws -> JSONValue {
        let id = nextId
        nextId += 1
        var message: [String: JSONValue] = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { message["params"] = params }
        try server.send(JSONValue.object(message).serialized())
        while true {
            let line = try await server.readLine()
            lines.append(line)
            let reply = try JSONValue.parse(line)
            #expect(reply["jsonrpc"] == "2.0", "not JSON-RPC 2.0: \(line)")
            if reply["id"] == nil {
                notifications.append(reply)
                continue
            }
            #expect(reply["id"] == .int(id), "reply out of order: \(line)")
            return reply
        }
    }

    public func result(_ method: String, _ params: JSONValue? = nil) async throws -> JSONValue {
        let reply = try await request(method, params)
        return try #require(reply["result"], "\(method) failed: \(reply.serialized())")
    }

    public func initialize(version: String = "2025-06-18") async throws -> JSONValue {
        let result = try await self.result(
            "initialize",
            [
                "protocolVersion": .string(version), "capabilities": [:], "clientInfo": ["name": "PlatformTesting", "version": "1"],
            ])
        try server.send(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        return result
    }

    /// `tools/call`; returns the result (a tool's refusal is a result with isError).
    public func call(_ tool: String, _ arguments: JSONValue = [:]) async throws -> JSONValue {
        try await result("tools/call", ["name": .string(tool), "arguments": arguments])
    }

    /// A tool call that must succeed; returns its structured content (the SessionView).
    public func view(_ tool: String, _ arguments: JSONValue = [:]) async throws -> JSONValue {
        let result = try await call(tool, arguments)
        #expect(result["isError"] == false, "\(tool) \(arguments.serialized()) failed: \(Self.text(result))")
        return try #require(result["structuredContent"], "\(tool): no structuredContent")
    }

    public func answer(_ values: JSONValue) async throws -> JSONValue {
        try await view("onboarding_answer", ["values": values])
    }

    public static func text(_ result: JSONValue) -> String {
        (result["content"]?.arrayValue ?? []).compactMap { $0["type"] == "text" ? $0["text"]?.stringValue : nil }
            .joined(separator: "\n")
    }
}

extension MCPClient {
    /// The arguments of `platformd mcp` for `tenant` and `user` on `db`, plus `extra`.
    public static func arguments(_ tenant: String, user: String, db: String, _ extra: [String] = []) -> [String] {
        ["mcp", "--tenant", tenant, "--user-id", user, "--db", db] + extra
    }
}

extension JSONValue {
    /// The array's item at `index`, if this is an array that long.
    public subscript(index: Int) -> JSONValue? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
