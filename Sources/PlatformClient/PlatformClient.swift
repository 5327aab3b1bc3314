import Foundation
import PlatformProtocol

/// A connection to a `platformd` server, speaking its JSON-RPC 2.0 protocol one line per message.
///
/// ```swift
/// let client = try await PlatformClient.connect(.unix(path: "/tmp/platformd.sock"))
/// var view = try await client.start(tenant: "statlocker", userId: "u1", user: .init(firstName: "Alex"))
/// view = try await client.submit(view, values: ["sport": "lacrosse"])
/// try await client.close()
/// ```
///
/// Calls may come from many tasks at once: each gets the next integer id, requests are written in
/// id order without waiting for earlier replies (pipelined), and each reply is handed to the call
/// with its id. Every error thrown is a `PlatformClientError`. Closing the client (or the server
/// going away) fails the calls still waiting, and every later call, with `.connectionClosed`.
public actor PlatformClient {
    /// Where the built-in transport connects.
    public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// A Unix domain socket (`platformd serve --unix PATH`).
        case unix(path: String)
        /// A TCP connection (`platformd serve --tcp HOST:PORT`).
        case tcp(host: String, port: Int)

        public var description: String {
            switch self {
            case .unix(let path): "unix \(path)"
            case .tcp(let host, let port): "tcp \(host.contains(":") ? "[\(host)]" : host):\(port)"
            }
        }
    }

    public struct Configuration: Sendable {
        /// 17 MiB: the server's replies are at most 16 MiB, plus room for the envelope.
        public static let defaultMaxLineBytes = 17 * 1024 * 1024

        /// How long a call waits for its reply before failing with `.timedOut`; nil waits as long
        /// as the connection lasts.
        public var requestTimeout: Duration?
        /// How long `connect` tries to open the connection (built-in transport).
        public var connectTimeout: Duration
        /// The longest reply line the built-in transport accepts; a longer one ends the connection
        /// with `.invalidReply`.
        public var maxLineBytes: Int

        public init(
            requestTimeout: Duration? = .seconds(60), connectTimeout: Duration = .seconds(10),
            maxLineBytes: Int = Configuration.defaultMaxLineBytes
        ) {
            self.requestTimeout = requestTimeout
            self.connectTimeout = connectTimeout
            self.maxLineBytes = maxLineBytes
        }
    }

    private struct Pending {
        var continuation: CheckedContinuation<JSONValue, any Error>
        var timer: Task<Void, Never>?
    }

    /// A reply line as the reader read it: a response, or why it is not one.
    private enum Reply: Sendable {
        case response(RPCResponse)
        case unreadable(PlatformClientError)

        init(parsing line: [UInt8]) {
            do {
                self = .response(try JSONValue.parse(line).decode(RPCResponse.self))
            } catch {
                let text = String(decoding: line.prefix(200), as: UTF8.self)
                self = .unreadable(PlatformClientError(.invalidReply, "The server sent a line that is not a JSON-RPC response: \(text)", underlying: error))
            }
        }
    }

    private let transport: any PlatformTransport
    private let requestTimeout: Duration?
    /// Request lines in id order, written by the writer task one at a time.
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private var nextId: Int64 = 1
    private var pending: [Int64: Pending] = [:]
    /// Ids sent and not yet answered, in the order sent, including calls that stopped waiting
    /// (timed out, cancelled): the server answers a connection's requests in order, so a reply
    /// with a null id (a line it could not read) belongs to the first of these.
    private var unanswered: [Int64] = []
    /// Why the connection ended; set once.
    private var failure: PlatformClientError?

    /// Opens the built-in SwiftNIO transport to `endpoint`.
    public static func connect(
        _ endpoint: Endpoint, configuration: Configuration = Configuration()
    ) async throws -> PlatformClient {
        do {
            let transport = try await SocketTransport.connect(
                to: endpoint, maxLineBytes: configuration.maxLineBytes, connectTimeout: configuration.connectTimeout)
            return PlatformClient(transport: transport, configuration: configuration)
        } catch {
            throw PlatformClientError(.connectionFailed, "Could not connect to \(endpoint).", underlying: error)
        }
    }

    /// A client over a transport of your own (see `PlatformTransport`). `maxLineBytes` and
    /// `connectTimeout` of `configuration` are the transport's business and are not used here.
    public init(transport: any PlatformTransport, configuration: Configuration = Configuration()) {
        self.transport = transport
        requestTimeout = configuration.requestTimeout
        let (lines, outbox) = AsyncStream.makeStream(of: [UInt8].self)
        self.outbox = outbox

        Task { [weak self] in
            for await line in lines {
                do {
                    try await transport.send(line)
                } catch {
                    await self?.end(PlatformClientError(.connectionClosed, "Sending a request failed.", underlying: error))
                    try? await transport.close()
                    return
                }
            }
        }
        Task { [weak self] in
            let ending: PlatformClientError
            do {
                while let line = try await transport.receiveLine() {
                    let reply = Reply(parsing: line)
                    guard let self else { return }
                    await self.deliver(reply)
                }
                ending = PlatformClientError(.connectionClosed, "The server closed the connection.")
            } catch let error as PlatformClientError {
                ending = error
            } catch {
                ending = PlatformClientError(.connectionClosed, "The connection failed.", underlying: error)
            }
            await self?.end(ending)
            try? await transport.close()
        }
    }

    deinit {
        outbox.finish()
        let transport = self.transport
        Task { try? await transport.close() }
    }

    /// Fails the calls still waiting and every later call with `.connectionClosed`, and closes
    /// the connection. Calling it again does nothing more.
    public func close() async throws {
        end(PlatformClientError(.connectionClosed, "The client was closed."))
        do {
            try await transport.close()
        } catch {
            throw PlatformClientError(.connectionClosed, "Closing the connection failed.", underlying: error)
        }
    }

    /// Calls `method` with `params` (any Encodable: one of PlatformProtocol's params types, a
    /// dictionary of `JSONValue`, `NoParams()`) and decodes its result as `Result` (`JSONValue`
    /// for the raw result).
    public nonisolated func call<Params: Encodable, Result: Decodable>(
        _ method: String, params: Params, as type: Result.Type = Result.self
    ) async throws -> Result {
        let encoded: JSONValue
        do {
            encoded = try JSONValue(encoding: params)
        } catch {
            throw PlatformClientError(.invalidRequest, "The params of \(method) cannot be encoded as JSON.", underlying: error)
        }
        let result = try await roundTrip(method, encoded)
        do {
            return try result.decode(Result.self)
        } catch {
            throw PlatformClientError(.invalidReply, "The result of \(method) is not a \(Result.self).", underlying: error)
        }
    }

    /// Calls one of the protocol's methods with its params type (the one the server decodes and
    /// `rpc.discover` describes).
    public nonisolated func call<Params: MethodParams, Result: Decodable>(
        _ method: PlatformMethod, _ params: Params, as type: Result.Type = Result.self
    ) async throws -> Result {
        precondition(
            ObjectIdentifier(Params.self) == ObjectIdentifier(method.paramsType), "\(method.rawValue) takes \(method.paramsType), not \(Params.self)")
        return try await call(method.rawValue, params: params, as: type)
    }

    // MARK: - machinery

    /// The error a call gets once the connection has ended.
    private var closedError: PlatformClientError? {
        guard let failure else { return nil }
        if failure.kind == .connectionClosed { return failure }
        return PlatformClientError(.connectionClosed, "The connection is closed.", underlying: failure)
    }

    /// Sends one request and waits for its reply's result (or throws its error).
    private func roundTrip(_ method: String, _ params: JSONValue) async throws -> JSONValue {
        if let closedError { throw closedError }
        if Task.isCancelled { throw PlatformClientError(.cancelled, "The call to \(method) was cancelled.") }
        let id = nextId
        nextId += 1
        let line: [UInt8]
        do {
            line = try JSONValue(encoding: RPCRequest(id: .int(id), method: method, params: params)).serializedBytes() + [0x0A]
        } catch {
            throw PlatformClientError(.invalidRequest, "The request \(method) cannot be encoded as JSON.", underlying: error)
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                    if let closedError { return continuation.resume(throwing: closedError) }
                    pending[id] = Pending(continuation: continuation, timer: timer(for: id, method))
                    unanswered.append(id)
                    outbox.yield(line)
                }
            } onCancel: {
                Task { await self.abandon(id, PlatformClientError(.cancelled, "The call to \(method) was cancelled.")) }
            }
        } catch let error as PlatformClientError {
            throw error
        } catch {
            throw PlatformClientError(.connectionClosed, "The call to \(method) failed.", underlying: error)
        }
    }

    private func timer(for id: Int64, _ method: String) -> Task<Void, Never>? {
        guard let requestTimeout else { return nil }
        return Task { [weak self] in
            try? await Task.sleep(for: requestTimeout)
            guard !Task.isCancelled else { return }
            await self?.abandon(id, PlatformClientError(.timedOut, "No reply to \(method) within \(requestTimeout)."))
        }
    }

    /// Stops waiting for `id`'s reply (it is dropped when it comes).
    private func abandon(_ id: Int64, _ error: PlatformClientError) {
        guard let call = pending.removeValue(forKey: id) else { return }
        call.timer?.cancel()
        call.continuation.resume(throwing: error)
    }

    private func deliver(_ reply: Reply) {
        let id: Int64?
        switch reply {
        case .response(let response):
            if case .int(let number) = response.id {
                id = number
            } else if response.id.isNull {
                id = unanswered.first
            } else {
                id = nil  // Not an id this client sends; nothing to match.
            }
        case .unreadable:
            id = unanswered.first
        }
        guard let id, let index = unanswered.firstIndex(of: id) else { return }
        unanswered.remove(at: index)
        guard let call = pending.removeValue(forKey: id) else { return }
        call.timer?.cancel()
        switch reply {
        case .response(let response):
            switch response.outcome {
            case .result(let result): call.continuation.resume(returning: result)
            case .error(let error): call.continuation.resume(throwing: PlatformClientError(error))
            }
        case .unreadable(let error):
            call.continuation.resume(throwing: error)
        }
    }

    /// Ends the connection: the calls waiting get `error`, later calls `.connectionClosed`.
    private func end(_ error: PlatformClientError) {
        guard failure == nil else { return }
        failure = error
        outbox.finish()
        let calls = pending.values
        pending = [:]
        unanswered = []
        for call in calls {
            call.timer?.cancel()
            call.continuation.resume(throwing: error)
        }
    }
}
