import ArgumentParser
import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTransports
import SQLiteStore
import ServiceLifecycle

/// The sweeper as a service of `serve`: every five minutes, while it holds the database's sweep lease
/// (one host at a time on a shared database), it applies the tenants' `sessions` and `retention`.
struct SweepService: Service {
    let platform: Platform
    let logger: Logger
    /// Whose lease this is: unique per process.
    let host = "host-" + UUID().uuidString.prefix(8).lowercased()
    /// Often enough for hour-scale rules; each pass reads the tenants' sessions in flight.
    static let interval: Duration = .seconds(300)
    /// Longer than a pass; a host that died releases it by letting it run out.
    static let lease: TimeInterval = 300

    func run() async throws {
        // The first pass soon after start, then one every interval; a stop ends the wait at once.
        var wait: Duration = .seconds(5)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let pause = wait
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
            } catch {
                return
            }
            wait = Self.interval
            do {
                let now = Date()
                guard try await platform.claimSweep(host: host, now: now, lease: Self.lease) else { continue }
                let report = try await platform.sweep(now: now)
                for line in report.lines { logger.info("sweep: \(line)") }
            } catch {
                logger.warning("sweep failed, trying again in a minute: \(error)")
            }
        }
    }
}

/// `platformd sessions sweep`: one pass of the sweeper, for operators and tests.
struct Sessions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the tenants' session and retention rules.", subcommands: [Sweep.self])

    struct Sweep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run one pass of the sweeper (abandoned and expired sessions, completed sessions' details, old events) and print what it did.",
            discussion: """
                The rules are the tenants file's per-tenant "sessions" (abandonedAfterHours, expireAfterDays, \
                keepCompletedAnswersDays) and "retention" (eventsDays); tenants without them are left alone. \
                `serve` runs the same pass every five minutes, one host at a time. --now stands in for the clock.
                """)

        @OptionGroup var store: StoreOptions
        @OptionGroup var tenantOptions: TenantOptions
        @Option(help: "The time to sweep at, ISO 8601 (default: now), to replay a day or test.") var now: String?

        func validate() throws {
            if let now, Timestamp.date(now) == nil { throw ValidationError("--now must be an ISO 8601 time such as 2026-12-01T00:00:00Z") }
        }

        func run() async throws {
            let at = now.flatMap(Timestamp.date) ?? Date()
            let report = try await store.withPlatform(tenantOptions) { platform in try await platform.sweep(now: at) }
            if report.tenants.isEmpty {
                StandardOutput.writeLine("nothing to do at \(Timestamp.string(at))")
            } else {
                report.lines.forEach { StandardOutput.writeLine($0) }
            }
        }
    }
}

/// `autoStop`: every running experiment that has it is read once a minute (its results computed,
/// a worse variant stopped on every host) while `serve` runs, even when nobody asks for results.
struct ExperimentWatch: Service {
    let platform: Platform
    let logger: Logger
    static let interval: Duration = .seconds(60)

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.interval) }
            } catch {
                return
            }
            await platform.checkExperiments()
        }
    }
}
