import Foundation
import PlatformCore
import PlatformServer
import PlatformStorage
import PlatformTesting
import SQLiteStore
import Testing

/// A flow whose branching is only declared: owners detour through two steps, sitters through one,
/// everyone else goes straight on, and all rejoin at `about` without a jump written anywhere.
/// The last step can send the user back to the start (a jump to a declared step).
private struct PetsPlugin: OnboardingPlugin {
    let id = "pets"
    let name = "Pets"
    let version = "1.0.0"
    let defaultDisplayName = "Friend"

    var flows: [Flow] {
        let steps: [any FlowStep] = [
            Question(id: "intro", fields: [], counts: false),
            Question(
                id: "role", fields: [Self.roleField],
                branches: [
                    FlowBranch(
                        when: "role = owner", if: { $0["role"] == "owner" },
                        steps: [
                            Question(id: "pet", fields: [Self.text("petName")]),
                            Question(id: "vet", fields: [Self.text("vetName")]),
                        ]),
                    FlowBranch(
                        when: "role = sitter", if: { $0["role"] == "sitter" },
                        steps: [
                            Question(id: "experience", fields: [Self.text("years")])
                        ]),
                ]),
            Question(id: "about", fields: [Self.text("bio")]),
            Question(
                id: "finish", fields: [FieldSpec(id: "again", type: .boolean, label: "Start over?", required: false)],
                branches: [
                    FlowBranch(when: "again = true", if: { $0["again"] == true }, to: "role")
                ]),
        ]
        return [
            Flow(steps: steps, completion: PetsCompletion()),
            Flow(id: "resume", steps: steps, resumePolicy: .firstMissingAnswer, progress: .derived(countingCompletion: true), completion: PetsCompletion()),
        ]
    }

    var gates: [any Gate] { [] }
    var onboardingGate: OnboardingGate { OnboardingGate(title: "Finish") }

    static let roleField = FieldSpec(
        id: "role", type: .choice, label: "You are", required: false,
        options: [
            FieldOption(value: "owner", label: "Owner"), FieldOption(value: "sitter", label: "Sitter"),
            FieldOption(value: "neither", label: "Just looking"),
        ])

    static func text(_ id: String) -> FieldSpec { FieldSpec(id: id, type: .text, label: id, required: false, maxLength: 40) }
}

private struct Question: FlowStep {
    let id: String
    let kind = StepKind.question
    let fieldList: [FieldSpec]
    let countsInProgress: Bool
    let branches: [FlowBranch]

    init(id: String, fields: [FieldSpec], counts: Bool = true, branches: [FlowBranch] = []) {
        self.id = id
        self.fieldList = fields
        self.countsInProgress = counts
        self.branches = branches
    }

    func fields(in context: StepContext) -> [FieldSpec] { fieldList }
    func copy(in context: StepContext) -> StepCopy { StepCopy(title: id, actions: [.continue(), .skip()]) }
}

private struct PetsCompletion: CompletionHandler {
    func complete(_ context: StepContext) throws -> CompletionResult {
        let answered = ["petName", "vetName", "years", "bio"].compactMap { id in context.value(of: id).map { (id, $0) } }
        return CompletionResult(records: ["account": .object(Dictionary(uniqueKeysWithValues: answered))], message: "Done")
    }
}

@Suite struct FlowBranchTests {
    let d: FlowDriver

    init() async throws { d = try await FlowDriver(plugin: PetsPlugin()) }

    /// Walks from `intro` answering each step with `answers[step]` (an empty submit otherwise),
    /// returning the steps seen and their progress labels until the session completes.
    func walk(_ answers: [String: [String: JSONValue]], flow: String = "onboarding") async throws -> (steps: [String], labels: [String], view: SessionView) {
        var view = try await d.start("u-\(answers.count)-\(answers["role"]?["role"]?.stringValue ?? "none")", flow: flow)
        var steps: [String] = []
        var labels: [String] = []
        while let step = view.stepId {
            steps.append(step)
            labels.append(view.progress.label)
            view = try await d.submit(view, answers[step] ?? [:])
            try #require(steps.count < 20, "the flow loops")
        }
        return (steps, labels, view)
    }

    @Test func aDetourRejoinsTheFlowAfterItsLastStep() async throws {
        let owner = try await walk(["role": ["role": "owner"], "pet": ["petName": "Rex"], "vet": ["vetName": "Dr Who"], "about": ["bio": "Hi"]])
        #expect(owner.steps == ["intro", "role", "pet", "vet", "about", "finish"])
        #expect(owner.view.status == .completed)
        #expect(try await d.profile(owner.view.userId)["records"]?["account"] == ["petName": "Rex", "vetName": "Dr Who", "bio": "Hi"])

        let sitter = try await walk(["role": ["role": "sitter"], "experience": ["years": "3"]])
        #expect(sitter.steps == ["intro", "role", "experience", "about", "finish"])

        let neither = try await walk(["role": ["role": "neither"]])
        #expect(neither.steps == ["intro", "role", "about", "finish"])
    }

    /// Alternatives share numbers: each branch continues from `role` (1), and `about`, where they
    /// rejoin, keeps its own number on every path. The uncounted intro shows nothing.
    @Test func progressIsNumberedAlongTheGraph() async throws {
        let owner = try await walk(["role": ["role": "owner"]])
        #expect(owner.labels == ["", "Step 1 of 3", "Step 2 of 3", "Step 3 of 3", "Step 2 of 3", "Step 3 of 3"])
        #expect(owner.view.progress.index == 3)
        let sitter = try await walk(["role": ["role": "sitter"]])
        #expect(sitter.labels == ["", "Step 1 of 3", "Step 2 of 3", "Step 2 of 3", "Step 3 of 3"])
        let flow = try #require(PetsPlugin().flow("resume"))
        #expect(flow.progress.total == 4, "countingCompletion adds the finished screen")
    }

    @Test func backRetracesTheBranchAndAnotherChoiceDropsItsAnswers() async throws {
        var view = try await d.start("u1")
        view = try await d.walk(view, [[:], ["role": "owner"], ["petName": "Rex"], ["vetName": "Vera"]])
        #expect(view.stepId == "about")
        view = try await d.back(view)
        #expect(view.stepId == "vet")
        view = try await d.goto(view, "role")
        view = try await d.walk(view, [["role": "sitter"], ["years": "2"], ["bio": "Sits"], [:]])
        #expect(view.status == .completed)
        #expect(try await d.profile("u1")["records"]?["account"] == ["years": "2", "bio": "Sits"], "the owner detour's answers are off the path")
    }

    @Test func aJumpBranchGoesToTheStepItNames() async throws {
        var view = try await d.start("u1")
        view = try await d.walk(view, [[:], ["role": "neither"], ["bio": "x"], ["again": true]])
        #expect(view.stepId == "role")
        #expect(view.status == .active)
    }

    @Test func resumingFollowsTheBranchesToTheFirstMissingAnswer() async throws {
        var view = try await d.start("u1", flow: "resume")
        view = try await d.walk(view, [[:], ["role": "owner"], ["petName": "Rex"]])
        #expect(view.stepId == "vet")
        view = try await d.goto(view, "role")
        let resumed = try await d.start("u1", flow: "resume")
        #expect(resumed.stepId == "vet")
        #expect(resumed.progress.label == "Step 3 of 4")
    }

    @Test func theDeclarationDrawsTheEdgesAndTheBranchIsCounted() async throws {
        let description = try await d.call("flow.describe", [:])
        let edges = description["edges"]?.arrayValue ?? []
        #expect(
            edges == [
                ["from": "intro", "to": "role"],
                ["from": "role", "to": "pet", "when": "role = owner"],
                ["from": "role", "to": "experience", "when": "role = sitter"],
                ["from": "role", "to": "about", "when": "otherwise"],
                ["from": "pet", "to": "vet"],
                ["from": "vet", "to": "about"],
                ["from": "experience", "to": "about"],
                ["from": "about", "to": "finish"],
                ["from": "finish", "to": "role", "when": "again = true"],
            ])
        let mermaid = try #require(description["mermaid"]?.stringValue)
        _ = try MermaidChecker.check(mermaid).get()
        #expect(mermaid.contains("finish --> done"))

        _ = try await walk(["role": ["role": "owner"]])
        _ = try await walk(["role": ["role": "neither"]])
        let funnel = try await d.call("analytics.funnel", [:])
        let branches = funnel["branches"]?.arrayValue ?? []
        #expect(branches.contains { $0["from"] == "role" && $0["to"] == "pet" && $0["count"] == 1 })
        #expect(branches.contains { $0["from"] == "role" && $0["to"] == "about" && $0["count"] == 1 })
    }

    @Test func aJumpToAnUnknownStepIsADefinitionProblem() {
        let flow = Flow(
            steps: [Question(id: "a", fields: [], branches: [FlowBranch(when: "never", if: { _ in false }, to: "nowhere")])],
            completion: PetsCompletion())
        let problems = flow.definitionProblems(StepContext(tenant: "pets", displayName: "x", now: Date()))
        #expect(problems == ["flow onboarding: a has an edge to unknown step nowhere"])
    }
}
