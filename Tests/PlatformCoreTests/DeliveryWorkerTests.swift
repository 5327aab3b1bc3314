import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

/// A webhook receiver in memory: answers each POST as `answer` says (by the event's attempt
/// number), records every request, and notes how many requests were in flight at once.
final class RecordingTransport: WebhookTransport {
    struct Request: Sendable {
        var url: String
        var headers: [String: String]
        var body: [UInt8]
    }

    private struct State {
        var requests: [Request] = []
        var attempts: [String: Int] = [:]
        var inFlight = 0
        var mostInFlight = 0
    }

    private struct Gate {
        var opened = false
        var next = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())
    private let gate = Mutex(Gate())
    let answer: @Sendable (_ attempt: Int) -> WebhookResponse
    /// Requests wait until `open()` (or their cancellation) when set.
    let held: Bool

    init(held: Bool = false, answer: @escaping @Sendable (_ attempt: Int) -> WebhookResponse = { _ in .status(200) }) {
        self.held = held
        self.answer = answer
    }

    var requests: [Request] { state.withLock { $0.requests } }
    var mostInFlight: Int { state.withLock { $0.mostInFlight } }
    var inFlight: Int { state.withLock { $0.inFlight } }

    func open() {
        let pending = gate.withLock { gate in
            gate.opened = true
            defer { gate.waiters = [:] }
            return Array(gate.waiters.values)
        }
        pending.forEach { $0.resume() }
    }

    /// Waits for `open()`; a cancelled request stops waiting, as a real client's would.
    private func waitForOpen() async {
        let id = gate.withLock { gate in
            gate.next += 1
            return gate.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = gate.withLock { gate in
                    if gate.opened || Task.isCancelled { return true }
                    gate.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            gate.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookResponse {
        let request = Request(url: url, headers: Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }), body: body)
        let attempt = state.withLock { state in
            state.requests.append(request)
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            let key = "\(url) \(request.headers["Platformd-Event-Id"] ?? "")"
            state.attempts[key, default: 0] += 1
            return state.attempts[key]!
        }
        if held { await waitForOpen() }
        state.withLock { $0.inFlight -= 1 }
        return answer(attempt)
    }
}

@Suite struct DeliveryWorkerTests {
    static let secret = Array("whsec_test".utf8)
    static let hook = Webhook(url: "http://127.0.0.1:9/hooks", secretEnv: "HOOK", secret: secret, events: Set(PlatformEventType.allCases))
    static let tenants = [HostedTenant(id: "t1", pluginName: "Fixture", plugin: FixturePlugin(), webhooks: [hook])]
    /// Fast retries for tests: the first after 10-20 ms.
    static let quick = RetryPolicy(base: 0.02, cap: 0.1, timeout: .seconds(2), lease: 5)

    /// An in-memory store with `count` events of tenant t1 for the webhook, written now and
    /// delivered for `window` seconds.
    func store(events count: Int, window: TimeInterval = 3600) async throws -> SQLiteSessionStore {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        let time = Date()
        for index in 1...count {
            let sample = sampleEvent("evt_\(index)", user: "u\(index)", session: "s\(index)", at: time, webhooks: [Self.hook.url])
            let event = OutboxEvent(event: sample.event, webhooks: sample.webhooks, deliverUntil: time.addingTimeInterval(window))
            try await store.updateSession(tenant: "t1", key: .id("s\(index)")) { _ in
                (SessionCommit(state: sampleState(id: "s\(index)", user: "u\(index)"), events: [], outbox: [event]), ())
            }
        }
        return store
    }

    func worker(_ store: SQLiteSessionStore, _ transport: RecordingTransport, policy: RetryPolicy = quick, host: String = "h1") -> DeliveryWorker {
        DeliveryWorker(
            store: store, tenants: Self.tenants, transport: transport, signal: OutboxSignal(), policy: policy,
            pollInterval: .milliseconds(50), host: host, logger: Logger(label: "test"))
    }

    /// Runs `worker` while `body` runs, then stops it and waits for it to return.
    func running<T>(_ workers: [DeliveryWorker], _ body: () async throws -> T) async throws -> T {
        let tasks = workers.map { worker in Task { await worker.run() } }
        let result = try await body()
        workers.forEach { $0.stop() }
        for task in tasks { await task.value }
        return result
    }

    func states(_ store: SQLiteSessionStore) async throws -> [String] {
        try await store.recentEvents(tenant: "t1", limit: 100, failedOnly: false).flatMap { item in
            item.deliveries.map { "\(item.entry.event.id) \($0.state.rawValue) \($0.attempts)" }
        }
    }

    @Test func theFirstRetryComesWithinTwoSecondsAndDelaysDoubleWithJitterUpToTheCap() {
        for random in [0.0, 0.5, 0.999] {
            let policy = RetryPolicy(random: { random })
            let first = policy.delay(afterAttempt: 1)
            #expect(first >= 0.5 && first <= 1.0)
            #expect(first <= 2)
            for attempt in 1...20 {
                let delay = policy.delay(afterAttempt: attempt)
                let full = min(3600, pow(2, Double(attempt - 1)))
                #expect(delay >= full / 2 && delay <= full)
            }
        }
        let low = RetryPolicy(random: { 0 })
        let high = RetryPolicy(random: { 0.999 })
        #expect(low.delay(afterAttempt: 3) == 2)
        #expect(high.delay(afterAttempt: 3) > 3.99)
        #expect(low.delay(afterAttempt: 60) == 1800)
    }

    @Test func afterTheWindowAFailureGivesUpAndTheLastAttemptFallsOnItsEnd() {
        let policy = RetryPolicy(random: { 0.999 })
        let start = epoch
        let end = epoch.addingTimeInterval(24 * 3600)
        #expect(
            policy.afterFailure(attempts: 1, at: start, expiresAt: end, status: 500, error: "HTTP 500")
                == .retry(at: start, next: start.addingTimeInterval(policy.delay(afterAttempt: 1)), status: 500, error: "HTTP 500"))
        let late = end.addingTimeInterval(-10)
        #expect(
            policy.afterFailure(attempts: 30, at: late, expiresAt: end, status: nil, error: "x")
                == .retry(at: late, next: end, status: nil, error: "x"))
        #expect(policy.afterFailure(attempts: 31, at: end, expiresAt: end, status: nil, error: "x") == .failed(at: end, status: nil, error: "x"))
        // Over 24 hours the schedule makes a few dozen attempts, not thousands.
        var time = start
        var attempts = 0
        while case .retry(_, let next, _, _) = policy.afterFailure(attempts: attempts + 1, at: time, expiresAt: end, status: nil, error: "") {
            attempts += 1
            time = next
        }
        #expect(attempts > 20 && attempts < 60)
    }

    @Test func signaturesAreCheckedAsAReceiverChecksThem() {
        let body = Array(#"{"id":"evt_1"}"#.utf8)
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        let value = WebhookSignature.value(body: body, secret: Self.secret, time: time)
        #expect(value.hasPrefix("t=1800000000,v1="))
        #expect(value.count == "t=1800000000,v1=".count + 64)
        #expect(WebhookSignature.isValid(value, body: body, secret: Self.secret, now: time.addingTimeInterval(299)))
        #expect(!WebhookSignature.isValid(value, body: body, secret: Self.secret, now: time.addingTimeInterval(301)))
        #expect(!WebhookSignature.isValid(value, body: body + [0x20], secret: Self.secret, now: time))
        #expect(!WebhookSignature.isValid(value, body: body, secret: Array("other".utf8), now: time))
        #expect(!WebhookSignature.isValid(value.replacingOccurrences(of: "t=1800000000", with: "t=1800000001"), body: body, secret: Self.secret, now: time))
    }

    @Test func failedAttemptsAreRetriedUntilEachEventIsDeliveredWithAValidSignature() async throws {
        let store = try await store(events: 5)
        // Every event: HTTP 500, then no answer, then 200.
        let transport = RecordingTransport { attempt in
            attempt == 1 ? .status(500) : attempt == 2 ? .failure("the receiver closed the connection without answering") : .status(200)
        }
        try await running([worker(store, transport)]) { () async throws in
            #expect(try await eventually { try await states(store).allSatisfy { $0.hasSuffix("delivered 3") } })
        }
        #expect(try await states(store) == (1...5).map { "evt_\($0) delivered 3" })
        let requests = transport.requests
        #expect(requests.count == 15)
        for request in requests {
            #expect(request.url == Self.hook.url)
            #expect(request.headers["Content-Type"] == "application/json")
            let signature = try #require(request.headers["Platformd-Signature"])
            #expect(WebhookSignature.isValid(signature, body: request.body, secret: Self.secret, now: Date()))
            let event = try JSONValue.parse(request.body).decode(PlatformEvent.self)
            #expect(request.headers["Platformd-Event-Id"] == event.id)
        }
        // The same bytes on every attempt of an event.
        let bodies = Dictionary(grouping: requests, by: { $0.headers["Platformd-Event-Id"] ?? "" }).mapValues { Set($0.map(\.body)) }
        #expect(bodies.count == 5 && bodies.values.allSatisfy { $0.count == 1 })
    }

    @Test func aDeliveryThatFailsPastTheWindowIsMarkedFailed() async throws {
        let store = try await store(events: 1, window: 0.3)
        let transport = RecordingTransport { _ in .status(503) }
        try await running([worker(store, transport)]) { () async throws in
            #expect(try await eventually { try await states(store).first?.contains("failed") == true })
        }
        let failed = try await store.recentEvents(tenant: "t1", limit: 10, failedOnly: true)
        #expect(failed.first?.deliveries.first?.lastError == "HTTP 503")
        #expect(failed.first?.deliveries.first?.lastStatus == 503)
        // How many attempts fit in the window depends on the machine's load; each is counted.
        let attempts = transport.requests.count
        #expect(attempts >= 1)
        #expect(failed.first?.deliveries.first?.attempts == attempts)
    }

    @Test func deliveriesRunConcurrentlyButAtMostEightAtOnce() async throws {
        let store = try await store(events: 20)
        let transport = RecordingTransport(held: true)
        try await running([worker(store, transport)]) { () async throws in
            #expect(await eventually { transport.inFlight == 8 })
            transport.open()
            #expect(try await eventually { try await states(store).allSatisfy { $0.hasSuffix("delivered 1") } })
        }
        #expect(transport.mostInFlight == 8)
        #expect(transport.requests.count == 20)
    }

    @Test func twoHostsOnOneDatabaseNeverSendADeliveryTwice() async throws {
        let directory = try TemporaryDirectory.make()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("hosts.sqlite").path
        let first = try await SQLiteSessionStore.open(path: path)
        let count = 30
        for index in 1...count {
            try await first.updateSession(tenant: "t1", key: .id("s\(index)")) { _ in
                (
                    SessionCommit(
                        state: sampleState(id: "s\(index)", user: "u\(index)"), events: [],
                        outbox: [sampleEvent("evt_\(index)", session: "s\(index)", at: Date(), webhooks: [Self.hook.url])]), ()
                )
            }
        }
        let second = try await SQLiteSessionStore.open(path: path)
        let transport = RecordingTransport()
        try await running([worker(first, transport, host: "a"), worker(second, transport, host: "b")]) { () async throws in
            #expect(try await eventually { try await states(first).allSatisfy { $0.hasSuffix("delivered 1") } })
        }
        let ids = transport.requests.compactMap { $0.headers["Platformd-Event-Id"] }
        #expect(ids.count == count)
        #expect(Set(ids).count == count)
        try await first.close()
        try await second.close()
    }

    @Test func aStoppingWorkerGivesBackWhatItCouldNotFinish() async throws {
        let store = try await store(events: 2)
        let transport = RecordingTransport(held: true)
        let worker = DeliveryWorker(
            store: store, tenants: Self.tenants, transport: transport, signal: OutboxSignal(), policy: Self.quick,
            pollInterval: .milliseconds(50), stopGrace: .milliseconds(100), host: "h1", logger: Logger(label: "test"))
        let task = Task { await worker.run() }
        #expect(await eventually { transport.inFlight == 2 })
        worker.stop()
        // The held requests never finish: the worker returns after its grace all the same…
        await task.value
        // … and the claims are back, due at once for the next host, no attempt counted.
        #expect(try await states(store) == ["evt_1 pending 0", "evt_2 pending 0"])
        let next = try await store.claimDeliveries(now: Date(), limit: 10, lease: 5, host: "h2")
        #expect(next.claims.count == 2)
        transport.open()
    }

    @Test func aWebhookNoLongerConfiguredIsRetriedAndReported() async throws {
        let store = try await SQLiteSessionStore.open(path: SQLiteSessionStore.memoryPath)
        try await store.updateSession(tenant: "t1", key: .id("s1")) { _ in
            (SessionCommit(state: sampleState(), events: [], outbox: [sampleEvent("evt_1", at: Date(), webhooks: ["http://gone.test/h"])]), ())
        }
        let transport = RecordingTransport()
        try await running([worker(store, transport)]) { () async throws in
            #expect(try await eventually { try await states(store).first.map { !$0.hasSuffix(" 0") } ?? false })
        }
        #expect(transport.requests.isEmpty)
        let delivery = try await store.recentEvents(tenant: "t1", limit: 1, failedOnly: false).first?.deliveries.first
        #expect(delivery?.state == .pending)
        #expect(delivery?.lastError?.contains("no webhook with this URL") == true)
    }
}
