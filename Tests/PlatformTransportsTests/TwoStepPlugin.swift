import PlatformCore

/// The smallest plugin the routes need: two text questions and a record at completion.
struct TwoStepPlugin: OnboardingPlugin {
    static let tenant = "two-step"
    let id = TwoStepPlugin.tenant
    let name = "Two Step"
    let version = "1.0.0"
    let defaultDisplayName = "Friend"

    var flows: [Flow] {
        [
            Flow(steps: [Question(id: "first", title: "First question"), Question(id: "second", title: "Second question")], completion: Done()),
            // An alternative an experiment can send people to.
            Flow(id: "short", steps: [Question(id: "only", title: "Only question")], completion: Done()),
        ]
    }

    struct Question: FlowStep {
        let id: String
        let title: String
        let kind = StepKind.question

        func fields(in context: StepContext) -> [FieldSpec] {
            [FieldSpec(id: "\(id)Answer", type: .text, label: title)]
        }

        func copy(in context: StepContext) -> StepCopy { StepCopy(title: title, actions: [.continue()]) }
    }

    struct Done: CompletionHandler {
        func complete(_ context: StepContext) throws -> CompletionResult {
            CompletionResult(records: ["answers": ["first": context.value(of: "firstAnswer") ?? .null]], message: "Done")
        }
    }
}
