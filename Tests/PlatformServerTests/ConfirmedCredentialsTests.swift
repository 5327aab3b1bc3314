import Synchronization
import Testing

@testable import PlatformServer

/// A key or token confirmed at a credentials version holds while the version stands, and at
/// most its lifetime: the bound that lets a revocation no counter heard of be seen.
@Suite struct ConfirmedCredentialsTests {
    /// A clock the test moves by hand.
    final class HandClock: Sendable {
        private let offset = Mutex<Duration>(.zero)
        let start = ContinuousClock.now
        func advance(_ by: Duration) { offset.withLock { $0 += by } }
        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
    }

    @Test func aConfirmationHoldsWhileTheVersionStandsWithinItsLifetime() {
        let clock = HandClock()
        let confirmed = ConfirmedCredentials(lifetime: .seconds(1), now: { clock.now })
        confirmed.confirm("key k1", at: 7)
        #expect(confirmed.holds("key k1", at: 7))
        #expect(!confirmed.holds("key k2", at: 7), "another key was never confirmed")
        #expect(!confirmed.holds("key k1", at: 8), "the version moved")
        #expect(!confirmed.holds("key k1", at: nil), "a store without a version always reads")
        clock.advance(.milliseconds(999))
        #expect(confirmed.holds("key k1", at: 7))
        clock.advance(.milliseconds(1))
        #expect(!confirmed.holds("key k1", at: 7), "a second later it is read again")
        confirmed.confirm("key k1", at: 7)
        #expect(confirmed.holds("key k1", at: 7), "confirmed again by that read")
    }

    @Test func aMovedVersionForgetsEveryConfirmation() {
        let confirmed = ConfirmedCredentials()
        confirmed.confirm("key k1", at: 1)
        confirmed.confirm("token t1", at: 2)
        #expect(!confirmed.holds("key k1", at: 2))
        #expect(confirmed.holds("token t1", at: 2))
    }
}
