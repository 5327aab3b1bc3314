import Foundation

/// Waits (polling every 50 ms) until `condition` holds, for at most `seconds`; whether it held.
/// The bound is for a condition that will never hold, not a speed target: in a whole `swift test`
/// run on two cores, with hundreds of tests sharing the cooperative pool, a delivery test's 15
/// webhook attempts took over 20 s three times in thirteen runs.
public func eventually(_ seconds: Double = 120, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
}
