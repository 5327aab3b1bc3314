import Foundation
import Testing

@testable import PlatformCore
@testable import PlatformServer
@testable import PlatformStorage

/// The store's memory of the states it last committed: scoped by tenant, never older than what
/// it already holds, without rejected sessions, and bounded.
@Suite struct RecentSessionsTests {
    func state(_ id: String, tenant: String = "t1", revision: Int = 0, status: SessionStatus = .active) -> SessionState {
        var state = sampleState(id: id, tenant: tenant)
        state.revision = revision
        state.status = status
        return state
    }

    @Test func anEntryIsOnlyFoundInItsTenant() {
        let recent = RecentSessions()
        recent.remember(state("s1"), writeCount: 3)
        #expect(recent.entry(tenant: "t1", id: "s1")?.writeCount == 3)
        #expect(recent.entry(tenant: "t2", id: "s1") == nil)
        #expect(recent.entry(tenant: "t1", id: "s2") == nil)
    }

    @Test func anOlderWriteNeverReplacesALaterOne() {
        let recent = RecentSessions()
        recent.remember(state("s1", revision: 5), writeCount: 5)
        recent.remember(state("s1", revision: 4), writeCount: 4)
        #expect(recent.entry(tenant: "t1", id: "s1")?.state.revision == 5)
        recent.remember(state("s1", revision: 6), writeCount: 6)
        #expect(recent.entry(tenant: "t1", id: "s1")?.state.revision == 6)
    }

    @Test func aRejectedSessionIsForgotten() {
        let recent = RecentSessions()
        recent.remember(state("s1"), writeCount: 1)
        recent.remember(state("s1", status: .rejected), writeCount: 2)
        #expect(recent.entry(tenant: "t1", id: "s1") == nil)
    }

    /// Two commands of one batch resume in any order: the state before the rejection, remembered
    /// after it, must not bring the erased answers back.
    @Test func aStateOlderThanTheRejectionIsNotKeptAfterIt() {
        let recent = RecentSessions()
        recent.remember(state("s1", status: .rejected), writeCount: 5)
        recent.remember(state("s1"), writeCount: 4)
        #expect(recent.entry(tenant: "t1", id: "s1") == nil)
    }

    @Test func itHoldsAtMostTwoGenerationsAndKeepsTheNewest() {
        let recent = RecentSessions(capacity: 4)
        for index in 0..<50 { recent.remember(state("s\(index)"), writeCount: 0) }
        let kept = (0..<50).filter { recent.entry(tenant: "t1", id: "s\($0)") != nil }
        #expect(kept.count <= 8)
        #expect(kept.contains(49))
        #expect(!kept.contains(0))
    }
}
