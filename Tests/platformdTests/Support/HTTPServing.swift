import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// A `platformd serve --http 127.0.0.1:0` under test, and the HTTP calls its tests make
/// (AsyncHTTPClient, so every status, header and body is seen as sent).
struct HTTPServing {
    let server: PlatformdProcess
    let port: Int

    var base: String { "http://127.0.0.1:\(port)" }

    struct Answer {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
        var json: JSONValue? { try? JSONValue.parse(body) }

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// Starts the server with `arguments` after `serve`, waits for its HTTP listener. It stops
    /// without a drain (`--drain-seconds 0`) unless `arguments` ask for one: a test that is not
    /// about the drain has no load balancer to tell.
    static func with<T>(
        _ arguments: [String], environment: [String: String] = [:], _ body: (HTTPServing) async throws -> T
    ) async throws -> T {
        let drain = arguments.contains("--drain-seconds") ? [] : ["--drain-seconds", "0"]
        return try await PlatformdProcess.with(["serve"] + arguments + drain, environment: environment) { server in
            let port = try await listeningPort(server)
            return try await body(HTTPServing(server: server, port: port))
        }
    }

    static func listeningPort(_ server: PlatformdProcess) async throws -> Int {
        for _ in 0..<1500 {
            if let line = server.stderrText.split(separator: "\n").first(where: { $0.contains("listening on http") }),
                let port = line.split(separator: ":").last.flatMap({ Int($0) })
            {
                return port
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SocketClient.Failure(description: "no 'listening on http' line on stderr:\n\(server.stderrText)")
    }

    func request(
        _ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, contentType: String? = "application/json",
        headers: [(String, String)] = [], timeout: TimeAmount = .seconds(30)
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        // AsyncHTTPClient keeps retrying a refused connection until this deadline: a request to a
        // server that has stopped waits all of it. A test that may ask a stopping server says less.
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Answer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Array(collected.readableBytesView))
    }

    /// POST /rpc with a JSON body, as `bearer` when given.
    func rpc(_ body: JSONValue, bearer: String? = nil) async throws -> Answer {
        try await request(.POST, "/rpc", body: body.serializedBytes(), headers: bearer.map { [("Authorization", "Bearer \($0)")] } ?? [])
    }

    /// One request's result or error, through POST /rpc.
    func call(_ method: String, _ params: JSONValue = [:], bearer: String? = nil, id: Int64 = 1) async throws -> JSONValue {
        let answer = try await rpc(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params], bearer: bearer)
        return try #require(answer.json, "HTTP \(answer.status): \(answer.text)")
    }

    /// `/metrics`, as series (the name and labels of each sample line) to their values.
    func metrics() async throws -> [String: Double] {
        let answer = try await request(.GET, "/metrics")
        #expect(answer.status == 200)
        var series: [String: Double] = [:]
        for line in answer.text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            series[String(line[..<space])] = value
        }
        return series
    }
}
