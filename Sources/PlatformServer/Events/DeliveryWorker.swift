import Foundation
import Logging
import PlatformCore
import PlatformStorage
import Synchronization

/// How a webhook is reached: one HTTP POST, answered with a status or not at all. The server's
/// is AsyncHTTPClient (in the `platformd` module); tests pass their own.
public protocol WebhookTransport: Sendable {
    func post(url: String, headers: [(name: String, value: String)], body: [UInt8], timeout: Duration) async -> WebhookResponse
}

public enum WebhookResponse: Sendable, Hashable {
    /// The receiver answered with this HTTP status.
    case status(Int)
    /// No answer: refused, reset, closed, timed out, a bad URL.
    case failure(String)
}

/// When deliveries are retried: exponential backoff with jitter, the first retry within 2 s,
/// for `window` after the event, then given up.
public struct RetryPolicy: Sendable {
    /// The full delay after the first failed attempt; it doubles with each further one.
    public var base: TimeInterval
    /// The longest delay between two attempts.
    public var cap: TimeInterval
    /// An attempt with no answer by then counts as failed.
    public var timeout: Duration
    /// How long a host holds a claimed delivery; longer than `timeout`, so a delivery is never
    /// attempted by two hosts at once, and what a host that died mid-delivery holds it up by.
    public var lease: TimeInterval
    /// A number in [0, 1) for the jitter.
    public var random: @Sendable () -> Double

    public init(
        base: TimeInterval = 1, cap: TimeInterval = 3600,
        timeout: Duration = .seconds(10), lease: TimeInterval = 30,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.base = base
        self.cap = cap
        self.timeout = timeout
        self.lease = lease
        self.random = random
    }

    public static let standard = RetryPolicy()

    /// The wait after the `attempts`-th failed attempt (1 for the first): half to all of
    /// `base * 2^(attempts-1)`, capped ("equal jitter", so hosts retrying at once spread out).
    public func delay(afterAttempt attempts: Int) -> TimeInterval {
        let exponent = Double(max(0, min(attempts - 1, 40)))
        let full = min(cap, base * pow(2, exponent))
        return full / 2 + full / 2 * random()
    }

    /// What a failed attempt at `now` leads to: another attempt (no later than the window's end,
    /// so the last one falls on it), or giving up once the window is over.
    public func afterFailure(attempts: Int, at now: Date, expiresAt: Date, status: Int?, error: String) -> DeliveryAttempt {
        guard now < expiresAt else { return .failed(at: now, status: status, error: error) }
        let next = min(now.addingTimeInterval(delay(afterAttempt: attempts)), expiresAt)
        return .retry(at: now, next: next, status: status, error: error)
    }
}

/// The delivery worker of one host: claims due deliveries (a lease, so one host at a time holds
/// each), POSTs each signed event to its webhook outside any transaction, and records the
/// outcome: done on a 2xx, otherwise another attempt after a backoff, until the window ends.
/// Different deliveries run concurrently, at most `concurrency` at once. It wakes when the
/// platform commits an event and polls every `pollInterval` for the rest (retries falling due,
/// other hosts' events, operators' re-queues).
public final class DeliveryWorker: Sendable {
    let store: any DeliveryStore
    /// The tenants' webhooks, by tenant then URL.
    let webhooks: [String: [String: Webhook]]
    let transport: any WebhookTransport
    let signal: OutboxSignal
    let policy: RetryPolicy
    let clock: @Sendable () -> Date
    let concurrency: Int
    let pollInterval: Duration
    /// How long a stopping worker lets its deliveries in flight finish before it cancels them.
    let stopGrace: Duration
    let logger: Logger
    /// This host's name on its claims.
    public let host: String

    private struct State {
        var inFlight = 0
        var stopping = false
    }

    private let state = Mutex(State())

    public init(
        store: any DeliveryStore, tenants: [HostedTenant], transport: any WebhookTransport, signal: OutboxSignal,
        policy: RetryPolicy = .standard, clock: @escaping @Sendable () -> Date = { Date() }, concurrency: Int = 8,
        pollInterval: Duration = .seconds(1), stopGrace: Duration = .seconds(2),
        host: String = "host_" + String(UUID().uuidString.lowercased().prefix(12)), logger: Logger
    ) {
        self.store = store
        self.webhooks = Dictionary(
            tenants.map { tenant in
                (tenant.id, Dictionary(tenant.webhooks.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first }))
            }, uniquingKeysWith: { first, _ in first })
        self.transport = transport
        self.signal = signal
        self.policy = policy
        self.clock = clock
        self.concurrency = max(1, concurrency)
        self.pollInterval = pollInterval
        self.stopGrace = stopGrace
        self.host = host
        self.logger = logger
    }

    /// Asks `run` to return: no new claims; deliveries in flight get `stopGrace` to finish, then
    /// are cancelled and their claims given back.
    public func stop() {
        state.withLock { $0.stopping = true }
        signal.ring()
    }

    var stopping: Bool { state.withLock { $0.stopping } }

    /// Delivers until `stop()` or cancellation.
    public func run() async {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled && !stopping {
                let free = concurrency - state.withLock { $0.inFlight }
                var wait = pollInterval
                if free > 0 {
                    do {
                        let round = try await store.claimDeliveries(
                            now: clock(), limit: free, lease: policy.lease, host: host)
                        for claim in round.claims {
                            state.withLock { $0.inFlight += 1 }
                            group.addTask {
                                await self.deliver(claim)
                                self.state.withLock { $0.inFlight -= 1 }
                                self.signal.ring()
                            }
                        }
                        // Slots left and nothing more due now: sleep until the next falls due.
                        if round.claims.count < free, let due = round.nextDue {
                            let seconds = max(0.01, due.timeIntervalSince(clock()))
                            wait = min(pollInterval, .milliseconds(Int64(seconds * 1000)))
                        }
                    } catch {
                        logger.error("claiming webhook deliveries failed: \(error)")
                    }
                }
                await signal.wait(upTo: wait)
            }
            // Stopping: let what is in flight finish for a moment, then cancel it.
            let deadline = ContinuousClock.now.advanced(by: stopGrace)
            while !Task.isCancelled, state.withLock({ $0.inFlight }) > 0, ContinuousClock.now < deadline {
                await signal.wait(upTo: deadline - ContinuousClock.now)
            }
            group.cancelAll()
        }
    }

    /// One attempt of one claimed delivery, recorded.
    func deliver(_ claim: DeliveryClaim) async {
        let target = "\(claim.webhook.split(separator: "?", maxSplits: 1).first ?? "")"
        var metadata: Logger.Metadata = [
            "event": "\(claim.eventId)", "tenant": "\(claim.tenant)", "webhook": "\(target)",
            "attempt": "\(claim.attempts + 1)",
        ]
        let response: WebhookResponse
        if let webhook = webhooks[claim.tenant]?[claim.webhook] {
            let headers: [(name: String, value: String)] = [
                ("Content-Type", "application/json"),
                ("Platformd-Event-Id", claim.eventId),
                (WebhookSignature.header, WebhookSignature.value(body: claim.body, secret: webhook.secret, time: clock())),
            ]
            response = await transport.post(url: webhook.url, headers: headers, body: claim.body, timeout: policy.timeout)
        } else {
            response = .failure("no webhook with this URL for tenant \(claim.tenant) in this host's tenants file")
        }
        if Task.isCancelled {
            // Stopping mid-attempt: the claim goes back, not counted. The receiver may have had
            // it; it is sent again later (at least once), and the receiver deduplicates by id.
            // A task of its own, so the cancelled one's write is not refused.
            let store = self.store
            let host = self.host
            _ = await Task { try? await store.releaseClaim(claim, host: host) }.value
            return
        }
        let now = clock()
        let attempt: DeliveryAttempt
        switch response {
        case .status(let code) where (200..<300).contains(code):
            attempt = .delivered(at: now, status: code)
        case .status(let code):
            attempt = policy.afterFailure(
                attempts: claim.attempts + 1, at: now, expiresAt: claim.expiresAt, status: code, error: "HTTP \(code)")
        case .failure(let reason):
            attempt = policy.afterFailure(
                attempts: claim.attempts + 1, at: now, expiresAt: claim.expiresAt, status: nil, error: reason)
        }
        do {
            let recorded = try await store.recordAttempt(claim, host: host, attempt)
            if !recorded {
                logger.warning("a webhook delivery's claim had passed to another host before its outcome was recorded", metadata: metadata)
            }
        } catch {
            // The claim runs out and the delivery is attempted again: at least once.
            logger.error("recording a webhook delivery failed: \(error)", metadata: metadata)
        }
        switch attempt {
        case .delivered(_, let status):
            PlatformMetrics.webhookDelivery(.delivered, tenant: claim.tenant)
            metadata["status"] = "\(status)"
            logger.info("event delivered", metadata: metadata)
        case .retry(_, let next, _, let error):
            PlatformMetrics.webhookDelivery(.retried, tenant: claim.tenant)
            metadata["retryIn"] = "\(String(format: "%.1f", next.timeIntervalSince(now)))s"
            logger.notice("webhook delivery failed: \(error); retrying", metadata: metadata)
        case .failed(_, _, let error):
            PlatformMetrics.webhookDelivery(.failed, tenant: claim.tenant)
            logger.error(
                // The window is the outbox's (`Platform.deliveryWindow`), fixed when the event was written.
                "webhook delivery failed until its window closed at \(Timestamp.string(claim.expiresAt)), giving up (platformd events retry \(claim.eventId) re-queues it): \(error)",
                metadata: metadata)
        }
    }
}
