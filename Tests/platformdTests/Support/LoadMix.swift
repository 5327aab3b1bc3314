import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mix of clients on one Unix socket, driven from one thread of its own with poll(2), never
/// from the cooperative pool, so a test keeps watching while the server stalls:
/// - walkers start sessions and answer their steps one request at a time (`GenericAnswers`),
///   searching first where a step has a search field;
/// - readers start one session, then keep `depth` `flow.get`s of it in flight (pipelined);
/// - funnels ask `analytics.funnel` one at a time.
/// It counts what each connection sent and what came back.
final class LoadMix: Sendable {
    enum Role: Sendable, CustomStringConvertible {
        case walker
        case reader(depth: Int)
        case funnel

        var description: String {
            switch self {
            case .walker: "walker"
            case .reader(let depth): "reader(\(depth))"
            case .funnel: "funnel"
            }
        }
    }

    struct Tally: Sendable {
        /// Per connection, in the order of `roles`.
        var sent: [Int]
        var answered: [Int]
        /// Connections the server closed (EOF or a reset).
        var closed: [Bool]
        /// Replies that were JSON-RPC errors, by code (a stalled or broken server shows here too).
        var errors: [Int64: Int] = [:]

        var totalAnswered: Int { answered.reduce(0, +) }
        var totalSent: Int { sent.reduce(0, +) }
    }

    let roles: [Role]
    private let tally: Mutex<Tally>
    private let sending = Atomic<Bool>(true)
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    private let descriptors: [Int32]
    private let tenants: [String]

    /// Connects every client (blocking connects, before the thread starts).
    init(socketPath: String, tenants: [String], roles: [Role]) throws {
        precondition(!tenants.isEmpty && !roles.isEmpty)
        self.roles = roles
        self.tenants = tenants
        tally = Mutex(
            Tally(
                sent: Array(repeating: 0, count: roles.count), answered: Array(repeating: 0, count: roles.count),
                closed: Array(repeating: false, count: roles.count)))
        var opened: [Int32] = []
        do {
            for _ in roles {
                let fd = try SocketClient.connectedDescriptor(unixPath: socketPath)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                opened.append(fd)
            }
        } catch {
            opened.forEach { close($0) }
            throw error
        }
        descriptors = opened
    }

    deinit {
        descriptors.forEach { close($0) }
    }

    /// Starts driving the connections on a thread of its own.
    func start(label: String = "load") {
        let thread = Thread { [self] in drive(label: label) }
        thread.name = "LoadMix"
        thread.start()
    }

    var snapshot: Tally { tally.withLock { $0 } }

    /// No new requests from now on; every connection keeps reading its replies until the
    /// server closes it (or `stop()`).
    func stopSending() { sending.store(false, ordering: .sequentiallyConsistent) }

    /// Ends the thread.
    func stop() { running.store(false, ordering: .sequentiallyConsistent) }

    /// The thread has ended: `stop()` was called or every connection was closed by the server.
    var isFinished: Bool { finished.load(ordering: .sequentiallyConsistent) }

    // MARK: - the driving thread

    private final class Client {
        let fd: Int32
        let role: Role
        let tenant: String
        let index: Int
        var input: [UInt8] = []
        var output: [UInt8] = []
        var inFlight = 0
        var closed = false
        var nextID: Int64 = 0
        var users = 0
        /// A walker's or reader's session view.
        var view: JSONValue?
        var answers = GenericAnswers()
        /// A walker's values waiting for a search result before they are submitted.
        var awaitingSearch: (field: String, values: [String: JSONValue])?

        init(fd: Int32, role: Role, tenant: String, index: Int) {
            self.fd = fd
            self.role = role
            self.tenant = tenant
            self.index = index
        }
    }

    private func drive(label: String) {
        defer { finished.store(true, ordering: .sequentiallyConsistent) }
        let clients = descriptors.enumerated().map { index, fd in
            Client(fd: fd, role: roles[index], tenant: tenants[index % tenants.count], index: index)
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while running.load(ordering: .sequentiallyConsistent) {
            let open = clients.filter { !$0.closed }
            guard !open.isEmpty else { return }
            if sending.load(ordering: .sequentiallyConsistent) {
                for client in open { fill(client, label: label) }
            }
            var watched = open.map { client in
                pollfd(fd: client.fd, events: Int16(POLLIN) | (client.output.isEmpty ? 0 : Int16(POLLOUT)), revents: 0)
            }
            let ready = poll(&watched, nfds_t(watched.count), 50)
            guard ready > 0 else { continue }
            for (client, entry) in zip(open, watched) where entry.revents != 0 {
                if entry.revents & Int16(POLLOUT) != 0 { flush(client) }
                if entry.revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    let count = chunk.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
                    if count > 0 {
                        client.input += chunk[0..<count]
                        takeLines(client, label: label)
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        client.closed = true
                        tally.withLock { $0.closed[client.index] = true }
                    }
                }
            }
        }
    }

    /// Queues the client's next requests, as its role allows.
    private func fill(_ client: Client, label: String) {
        switch client.role {
        case .walker, .funnel:
            guard client.inFlight == 0 else { return }
            enqueue(client, nextWalkOrFunnel(client, label: label))
        case .reader(let depth):
            guard let session = client.view?["sessionId"] else {
                if client.inFlight == 0 { enqueue(client, start(client, label: label)) }
                return
            }
            while client.inFlight < depth {
                enqueue(client, request(client, "flow.get", ["tenant": .string(client.tenant), "sessionId": session]))
            }
        }
    }

    private func nextWalkOrFunnel(_ client: Client, label: String) -> JSONValue {
        if case .funnel = client.role {
            return request(client, "analytics.funnel", ["tenant": .string(client.tenant)])
        }
        guard let view = client.view, view["status"] == "active", let step = view["step"], step != .null else {
            return start(client, label: label)
        }
        let values = client.answers.valuesWithoutSearch(for: step["fields"]?.arrayValue ?? [])
        if let search = (step["fields"]?.arrayValue ?? []).first(where: { $0["type"] == "search" && values[$0["id"]?.stringValue ?? ""] == nil }),
            let field = search["id"]?.stringValue
        {
            client.awaitingSearch = (field, values)
            return request(
                client, "flow.search",
                [
                    "tenant": .string(client.tenant), "sessionId": view["sessionId"] ?? .null, "field": .string(field), "query": "a",
                ])
        }
        return submit(client, view: view, values: values)
    }

    private func submit(_ client: Client, view: JSONValue, values: [String: JSONValue]) -> JSONValue {
        request(
            client, "flow.submit",
            [
                "tenant": .string(client.tenant), "sessionId": view["sessionId"] ?? .null, "stepId": view["step"]?["id"] ?? .null,
                "revision": view["revision"] ?? .null, "values": .object(values),
            ])
    }

    private func start(_ client: Client, label: String) -> JSONValue {
        client.users += 1
        client.answers = GenericAnswers()
        client.view = nil
        return request(
            client, "flow.start",
            [
                "tenant": .string(client.tenant), "userId": .string("\(label)-\(client.index)-\(client.users)"),
                "user": ["firstName": "Load"],
            ])
    }

    private func request(_ client: Client, _ method: String, _ params: JSONValue) -> JSONValue {
        client.nextID += 1
        return ["jsonrpc": "2.0", "id": .int(client.nextID), "method": .string(method), "params": params]
    }

    private func enqueue(_ client: Client, _ request: JSONValue) {
        client.output += request.serializedBytes() + [0x0A]
        client.inFlight += 1
        tally.withLock { $0.sent[client.index] += 1 }
        flush(client)
    }

    private func flush(_ client: Client) {
        while !client.output.isEmpty {
            let written = client.output.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return }
            client.output.removeFirst(written)
        }
    }

    private func takeLines(_ client: Client, label: String) {
        var start = 0
        while let newline = client.input[start...].firstIndex(of: 0x0A) {
            let line = Array(client.input[start..<newline])
            start = newline + 1
            client.inFlight -= 1
            let reply = (try? JSONValue.parse(line)) ?? .null
            tally.withLock { tally in
                tally.answered[client.index] += 1
                if let code = reply["error"]?["code"]?.intValue { tally.errors[Int64(code), default: 0] += 1 }
            }
            accept(reply, client: client)
        }
        client.input.removeFirst(start)
    }

    /// A walker's or reader's next move from a reply.
    private func accept(_ reply: JSONValue, client: Client) {
        if case .funnel = client.role { return }
        if let result = reply["result"], result["results"] != nil {
            // A search's results: submit the step with the first one.
            guard let waiting = client.awaitingSearch, let view = client.view else { return }
            client.awaitingSearch = nil
            var values = waiting.values
            if let first = result["results"]?[0]?["value"] { values[waiting.field] = first }
            guard sending.load(ordering: .sequentiallyConsistent) else { return }
            enqueue(client, submit(client, view: view, values: values))
            return
        }
        if let result = reply["result"] {
            if case .reader = client.role {
                if client.view == nil { client.view = result }
            } else {
                client.view = result
            }
            return
        }
        // A refusal with field errors: the next candidates; anything else: a new user.
        let errors = reply["error"]?["data"]?["errors"]?.arrayValue ?? []
        if case .walker = client.role, !errors.isEmpty, client.answers.retry(after: errors) { return }
        if case .walker = client.role { client.view = nil }
    }
}
