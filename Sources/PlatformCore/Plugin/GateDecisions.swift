import Foundation

extension OnboardingPlugin {
    /// `gate.check`'s answer: every gate that guards `action` is asked, before completion as
    /// after it, and one decision lists every requirement they name.
    ///
    /// Before completion the ``onboardingGate`` refuses and its copy is shown; the plugin's own
    /// gates are asked with a profile that has no records (`completedAt` is `.distantPast`), so
    /// a requirement such as "Link your bank" is listed beside "Complete onboarding" from the
    /// start. After completion the first gate that refuses gives the copy. Requirements are in
    /// that order, each id once (the first gate to name it says whether it is met).
    ///
    /// - Parameters:
    ///   - action: the action asked about (`share_budget`).
    ///   - tenant: the tenant, for the empty profile the gates see before completion.
    ///   - userId: the user, likewise.
    ///   - profile: the user's profile; nil before onboarding is complete.
    public func gateDecision(for action: String, tenant: String, userId: String, profile: Profile?) -> GateDecision {
        let asked = profile ?? Profile(tenant: tenant, userId: userId, completedAt: .distantPast, records: [:])
        let decisions = gates.compactMap { $0.decide(action: action, profile: asked) }
        var refusals = decisions.filter { !$0.allowed }
        if profile == nil { refusals.insert(onboardingGate.decision(for: action), at: 0) }
        guard var decision = refusals.first else {
            return decisions.first ?? GateDecision(action: action, allowed: true)
        }
        var named = Set<String>()
        decision.requirements = refusals.flatMap(\.requirements).filter { named.insert($0.id).inserted }
        return decision
    }
}
