import Foundation
import Logging
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Synchronization
import Testing

@testable import TeePals

/// A UTC instant, for clocks that must sit on an exact day.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 12, _ minute: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
}

/// The day most tests run on: 15 June 2026, noon UTC. Someone born 2013-06-15 turns 13 today.
let testDay = utc(2026, 6, 15)

/// Answers that pass each step; the city is Austin, TX (GeoNames 4671654).
enum Answers {
    static let nickname: [String: JSONValue] = ["nickname": "Birdie Queen"]
    static let adultBirthdate = "1990-04-25"
    static let birthdate: [String: JSONValue] = ["birthdate": .string(adultBirthdate)]
    static let austinId = "4671654"
    static let location: [String: JSONValue] = ["location": .string(austinId)]
    static let gender: [String: JSONValue] = ["gender": "female"]
}

/// A driver over an in-memory store (or `store`), its clock on `now`, the plugin's lines written
/// to `logs` (once their command has committed).
func teePals(now: Date = testDay, store: (any SessionStore)? = nil, logs: LogRecorder? = nil) async throws -> FlowDriver {
    try await FlowDriver(
        plugin: TeePalsPlugin(), store: store, clock: TestClock(now),
        pluginLogger: { label in logs?.logger ?? Logger(label: label) })
}

extension FlowDriver {
    /// Starts `user`'s session and answers every step before `step`.
    func session(_ user: String = "u1", at step: String) async throws -> SessionView {
        try await walk(
            user, to: step,
            answers: [
                "nickname": Answers.nickname, "birthdate": Answers.birthdate, "location": Answers.location, "gender": Answers.gender,
            ])
    }

    /// Walks `user` through the whole wizard.
    func completed(_ user: String = "u1") async throws -> SessionView {
        let view = try await submit(session(user, at: "gender"), Answers.gender)
        #expect(view.status == .completed)
        return view
    }

    func search(_ view: SessionView, _ query: String, limit: Int? = nil) async throws -> JSONValue {
        var params: [String: JSONValue] = [
            "sessionId": .string(view.sessionId), "field": "location", "query": .string(query),
        ]
        if let limit { params["limit"] = .int(Int64(limit)) }
        return try await call("flow.search", params)
    }

    func update(_ user: String, _ values: [String: JSONValue]) async throws -> JSONValue {
        try await call("profile.update", ["userId": .string(user), "values": .object(values)])
    }
}

/// Every line a Logger writes, as `LEVEL MESSAGE [metadata]`, for tests that check what is logged.
extension LogRecorder {
    var all: [String] { lines.map { "\($0.level) \($0.message) \($0.allMetadata)" } }
    var logger: Logger { logger("TeePals") }
}
