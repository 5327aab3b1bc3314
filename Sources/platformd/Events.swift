import ArgumentParser
import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore

/// `platformd events TENANT [--failed]` and `platformd events retry ID`: the completion events in
/// the database and the state of their webhook deliveries, for operators.
struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a tenant's recent completion events with their webhook deliveries, or re-queue a failed one.",
        discussion: """
            `platformd events TENANT` prints the latest events, oldest first, one line per webhook \
            delivery; `--failed` keeps the events whose delivery was given up. `platformd events \
            retry ID` puts a failed event's deliveries back in the queue: a running server sends \
            them within a second, retried for another 24 hours.
            """,
        subcommands: [List.self, Retry.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a tenant's recent events and their delivery state (the default).")

        @OptionGroup var store: StoreOptions
        @OptionGroup var tenantOptions: TenantOptions
        @Argument(help: "The tenant, e.g. statlocker.") var tenant: String
        @Flag(help: "Only events with a delivery that failed (given up after 24 hours).") var failed = false
        @Option(help: "How many of the latest events.") var limit = 50

        func validate() throws {
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be between 1 and 10000") }
        }

        func run() async throws {
            let logger = store.bootstrapLogging()
            try tenantOptions.requireDefined(tenant)
            let database = try await store.openStore(logger: logger)
            let events = try await database.recentEvents(tenant: tenant, limit: limit, failedOnly: failed)
            try await database.close()
            guard !events.isEmpty else {
                StandardOutput.writeLine(failed ? "no failed events for \(tenant)" : "no events for \(tenant)")
                return
            }
            StandardOutput.writeLine(Self.table(events).joined(separator: "\n"))
        }

        static func table(_ events: [EventDeliveries]) -> [String] {
            var rows: [[String]] = []
            for item in events {
                let event = item.entry.event
                let head = [
                    EventCursor.string(item.entry.sequence), event.id, event.type.rawValue, event.userId,
                    Timestamp.string(event.occurredAt),
                ]
                if item.deliveries.isEmpty {
                    rows.append(head + ["-", "no webhook", "0", ""])
                }
                for delivery in item.deliveries {
                    rows.append(head + [delivery.webhook, delivery.state.rawValue, String(delivery.attempts), detail(delivery)])
                }
            }
            return TextTable.lines(["cursor", "event", "type", "user", "occurred", "webhook", "state", "attempts", "detail"], rows)
        }

        static func detail(_ delivery: DeliveryStatus) -> String {
            var parts: [String] = []
            switch delivery.state {
            case .delivered:
                if let status = delivery.lastStatus { parts.append("HTTP \(status)") }
                if let at = delivery.finishedAt { parts.append("at " + Timestamp.string(at)) }
            case .pending:
                if let next = delivery.nextAttemptAt { parts.append("next " + Timestamp.string(next)) }
                if let error = delivery.lastError { parts.append("last: " + error) }
            case .failed:
                if let at = delivery.finishedAt { parts.append("gave up " + Timestamp.string(at)) }
                if let error = delivery.lastError { parts.append("last: " + error) }
            }
            return parts.joined(separator: "; ")
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-queue a failed event's deliveries: due at once, retried for another 24 hours.")

        @OptionGroup var store: StoreOptions
        @Argument(help: "The event's id (evt_…), as `platformd events TENANT --failed` shows it.") var id: String

        func run() async throws {
            let logger = store.bootstrapLogging()
            let database = try await store.openStore(logger: logger)
            let now = Date()
            let count = try await database.requeueFailed(
                eventId: id, now: now, deliverUntil: now.addingTimeInterval(Platform.deliveryWindow))
            try await database.close()
            guard count > 0 else { throw CommandRefusal.exit("no failed delivery of an event with the id \(id)") }
            logger.info("event re-queued", metadata: ["event": "\(id)", "deliveries": "\(count)"])
            StandardOutput.writeLine("re-queued \(count) deliver\(count == 1 ? "y" : "ies") of \(id)")
        }
    }
}
